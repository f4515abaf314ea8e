package dev.gputop.nvml;

/**
 * One process on one GPU in the snapshot's {@code gpus[].processes[]} and in {@code gpus --json}.
 * Immutable.
 *
 * @param pid host PID
 * @param usedMemoryBytes GPU memory used, or null when the driver can't say
 * @param server the inference server the process belongs to, or null
 * @param name executable name from /proc/PID/comm, or null when unknown
 * @param utilization the process's SM utilization (0-1), or null where the driver doesn't give it
 * @param kubernetes the pod and container of the process's inference server ({@code namespace},
 *     {@code pod}, {@code container}, {@code podUid}), or null
 */
public record GpuProcessEntry(
    long pid, Long usedMemoryBytes, String server, String name, Double utilization,
    dev.gputop.config.PodIdentity kubernetes) {

  /** An entry of a process outside any known pod. */
  public GpuProcessEntry(long pid, Long usedMemoryBytes, String server, String name, Double utilization) {
    this(pid, usedMemoryBytes, server, name, utilization, null);
  }
}
