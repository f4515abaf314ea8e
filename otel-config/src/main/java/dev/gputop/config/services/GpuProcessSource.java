package dev.gputop.config.services;

import java.util.List;

/**
 * The processes on every GPU, from the NVML receiver's latest sample. Discovery uses it to find
 * inference servers among GPU processes. Published by the NVML receiver through {@link
 * dev.gputop.receiver.ReceiverContext#publish}. Implementations must be thread-safe and must not do
 * I/O in these methods.
 */
public interface GpuProcessSource {

  /** Whether NVML is loaded and sampling; when false, {@link #gpuProcesses()} is empty. */
  boolean available();

  /** Why NVML is not available (missing library, no GPU, init failure), or null when it is. */
  String unavailableReason();

  /** The processes from the latest sample. */
  List<GpuProcess> gpuProcesses();
}
