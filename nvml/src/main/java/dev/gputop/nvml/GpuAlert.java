package dev.gputop.nvml;

/**
 * The names of the NVML receiver's {@code alerts[]} entries ({@link dev.gputop.receiver.Alert},
 * with no server): {@code gpu_failed} when a GPU fell off the bus, {@code gpu_xid} when a GPU
 * reported a critical Xid (see {@link XidCodes}) in the last ten minutes.
 */
final class GpuAlert {

  /** The alert for a GPU in state failed. */
  static final String GPU_FAILED = "gpu_failed";

  /** The alert for a critical Xid event. */
  static final String GPU_XID = "gpu_xid";

  private GpuAlert() {}
}
