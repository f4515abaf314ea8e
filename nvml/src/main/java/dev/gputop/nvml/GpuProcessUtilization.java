package dev.gputop.nvml;

/**
 * The share of a GPU's streaming multiprocessors one process used in the driver's latest sample.
 * Immutable.
 *
 * @param pid the host PID
 * @param gpuUuid the GPU's UUID
 * @param smUtilization 0-1
 * @param memoryUtilization fraction of time the process read or wrote memory, 0-1
 */
record GpuProcessUtilization(
    long pid, String gpuUuid, double smUtilization, double memoryUtilization) {}
