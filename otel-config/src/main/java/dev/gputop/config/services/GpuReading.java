package dev.gputop.config.services;

/**
 * One GPU as the NVML receiver's latest sample read it: what the inference receiver needs to put
 * a server's power and energy next to its tokens. MIG instances are not readings (their power
 * and energy are their GPU's). Immutable.
 *
 * @param index the NVML index of the GPU
 * @param uuid the GPU's UUID
 * @param lost whether the GPU failed this sample (fallen off the bus, unreachable): its values
 *     are null then
 * @param powerWatts the power draw, or null when the GPU doesn't report it
 * @param energyJoules NVML's total energy counter ({@code nvmlDeviceGetTotalEnergyConsumption},
 *     millijoules since the driver was loaded, here in joules), or null where the GPU lacks it
 *     (before Volta) or doesn't say
 * @param utilization fraction of time a kernel ran, 0-1, or null
 * @param memoryUsedBytes memory in use, or null
 * @param memoryTotalBytes memory installed, or null
 */
public record GpuReading(
    int index,
    String uuid,
    boolean lost,
    Double powerWatts,
    Double energyJoules,
    Double utilization,
    Long memoryUsedBytes,
    Long memoryTotalBytes) {}
