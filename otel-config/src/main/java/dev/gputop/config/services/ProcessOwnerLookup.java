package dev.gputop.config.services;

/**
 * Which inference server a process belongs to, so per-process GPU metrics and the snapshot's
 * {@code gpus[].processes[].server} can name it. The inference receiver publishes one through
 * {@link dev.gputop.receiver.ReceiverContext#publish}; the NVML receiver looks it up on each cycle
 * (it is created later). Implementations must be thread-safe and must not do I/O.
 */
public interface ProcessOwnerLookup {

  /** The inference server's name for this PID, or null when the process belongs to none. */
  String serverFor(long pid);

  /** The Kubernetes pod of that server's process, or null (no pod, or not known). */
  default dev.gputop.config.PodIdentity podFor(long pid) {
    return null;
  }
}
