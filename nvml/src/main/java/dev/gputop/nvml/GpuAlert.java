package dev.gputop.nvml;

/**
 * An entry of the snapshot's {@code alerts[]}: {@code gpu_failed} when a GPU fell off the bus,
 * {@code gpu_xid} when a GPU reported a critical Xid (see {@link XidCodes}) in the last ten
 * minutes. Immutable.
 *
 * @param name the alert's name
 * @param server always null for GPU alerts (the field is there for the shared alert shape)
 * @param message what happened, naming the GPU
 */
record GpuAlert(String name, String server, String message) {

  /** The alert for a GPU in state failed. */
  public static final String GPU_FAILED = "gpu_failed";

  /** The alert for a critical Xid event. */
  public static final String GPU_XID = "gpu_xid";
}
