package dev.gputop.config.services;

/**
 * One process using one GPU, as NVML reports it. A process on two GPUs appears twice. Immutable.
 *
 * @param pid the host PID (NVML reports host PIDs, also inside containers with hostPID)
 * @param gpuIndex the NVML index of the GPU
 * @param gpuUuid the GPU's UUID ({@code GPU-...}, or {@code MIG-...} for a MIG instance)
 * @param usedMemoryBytes GPU memory the process uses, or -1 when the driver doesn't say
 */
public record GpuProcess(long pid, int gpuIndex, String gpuUuid, long usedMemoryBytes) {}
