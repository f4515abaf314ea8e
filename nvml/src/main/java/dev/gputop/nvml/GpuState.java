package dev.gputop.nvml;

/** A GPU's health as {@code hw.state} and the snapshot's {@code state} report it. */
enum GpuState {
  /** Answering NVML. */
  OK,
  /** Fallen off the bus ({@code NVML_ERROR_GPU_IS_LOST}) or otherwise unreachable; needs a reset. */
  FAILED;

  /** The lower-case name used in JSON and in {@code hw.state}. */
  public String jsonName() {
    return this == OK ? "ok" : "failed";
  }
}
