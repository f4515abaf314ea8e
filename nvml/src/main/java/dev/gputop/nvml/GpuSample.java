package dev.gputop.nvml;

import dev.gputop.config.services.GpuProcess;
import java.util.List;
import java.util.Objects;

/**
 * Everything one call of {@link Nvml#sample()} read: every GPU and MIG instance (lost GPUs
 * included, with state failed), the compute processes on them, and per-process utilization where
 * the driver gives it. Immutable.
 *
 * @param driverVersion e.g. {@code 550.54.15}, or null when NVML did not say
 * @param devices GPUs in NVML index order, each followed by its MIG instances
 * @param processes one entry per process and GPU (or MIG instance)
 * @param processUtilizations SM utilization per process and GPU, for GPUs that report it
 */
public record GpuSample(
    String driverVersion,
    List<GpuDevice> devices,
    List<GpuProcess> processes,
    List<GpuProcessUtilization> processUtilizations) {

  public GpuSample {
    devices = List.copyOf(devices);
    processes = List.copyOf(processes);
    processUtilizations = List.copyOf(processUtilizations);
  }

  /** A sample with no GPU. */
  public static GpuSample empty(String driverVersion) {
    return new GpuSample(driverVersion, List.of(), List.of(), List.of());
  }

  /** The utilization of process {@code pid} on GPU {@code gpuUuid}, or null when not reported. */
  public GpuProcessUtilization utilizationOf(long pid, String gpuUuid) {
    for (GpuProcessUtilization u : processUtilizations) {
      if (u.pid() == pid && Objects.equals(u.gpuUuid(), gpuUuid)) {
        return u;
      }
    }
    return null;
  }
}
