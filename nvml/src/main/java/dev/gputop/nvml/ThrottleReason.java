package dev.gputop.nvml;

/**
 * The clock event ("throttle") reason bits of {@code nvmlDeviceGetCurrentClocksEventReasons}, with
 * the attribute values used in {@code gputop.gpu.throttle}.
 */
enum ThrottleReason {
  GPU_IDLE(0x1L, "gpu_idle"),
  APPLICATIONS_CLOCKS_SETTING(0x2L, "applications_clocks_setting"),
  SW_POWER_CAP(0x4L, "sw_power_cap"),
  HW_SLOWDOWN(0x8L, "hw_slowdown"),
  SYNC_BOOST(0x10L, "sync_boost"),
  SW_THERMAL_SLOWDOWN(0x20L, "sw_thermal_slowdown"),
  HW_THERMAL_SLOWDOWN(0x40L, "hw_thermal_slowdown"),
  HW_POWER_BRAKE_SLOWDOWN(0x80L, "hw_power_brake_slowdown"),
  DISPLAY_CLOCK_SETTING(0x100L, "display_clock_setting");

  private final long bit;
  private final String attributeValue;

  ThrottleReason(long bit, String attributeValue) {
    this.bit = bit;
    this.attributeValue = attributeValue;
  }

  /** The bit in nvml.h's mask. */
  public long bit() {
    return bit;
  }

  /** The {@code gputop.throttle.reason} value, and the name in JSON. */
  public String attributeValue() {
    return attributeValue;
  }

  /** Whether this reason is set in {@code mask}. */
  public boolean in(long mask) {
    return (mask & bit) != 0;
  }
}
