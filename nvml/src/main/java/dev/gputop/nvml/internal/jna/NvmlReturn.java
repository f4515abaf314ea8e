package dev.gputop.nvml.internal.jna;

/**
 * Every {@code nvmlReturn_t} value of nvml.h (API version 13), with the header's meaning in words a
 * person can act on. Immutable.
 */
public enum NvmlReturn {
  SUCCESS(0, "success"),
  ERROR_UNINITIALIZED(1, "NVML was not initialized"),
  ERROR_INVALID_ARGUMENT(2, "invalid argument"),
  ERROR_NOT_SUPPORTED(3, "not supported by this device"),
  ERROR_NO_PERMISSION(4, "no permission"),
  ERROR_ALREADY_INITIALIZED(5, "already initialized"),
  ERROR_NOT_FOUND(6, "not found"),
  ERROR_INSUFFICIENT_SIZE(7, "buffer too small"),
  ERROR_INSUFFICIENT_POWER(8, "insufficient external power"),
  ERROR_DRIVER_NOT_LOADED(9, "the NVIDIA driver is not loaded"),
  ERROR_TIMEOUT(10, "timeout"),
  ERROR_IRQ_ISSUE(11, "interrupt request issue"),
  ERROR_LIBRARY_NOT_FOUND(12, "NVML library not found"),
  ERROR_FUNCTION_NOT_FOUND(13, "function not found in this driver"),
  ERROR_CORRUPTED_INFOROM(14, "corrupted infoROM"),
  ERROR_GPU_IS_LOST(15, "GPU is lost (fallen off the bus; needs a reset)"),
  ERROR_RESET_REQUIRED(16, "GPU requires a reset"),
  ERROR_OPERATING_SYSTEM(17, "blocked by the operating system"),
  ERROR_LIB_RM_VERSION_MISMATCH(
      18, "NVML library and kernel module versions differ (driver upgraded without a reboot?)"),
  ERROR_IN_USE(19, "in use"),
  ERROR_MEMORY(20, "insufficient memory"),
  ERROR_NO_DATA(21, "no data"),
  ERROR_VGPU_ECC_NOT_SUPPORTED(22, "ECC not supported on vGPU"),
  ERROR_INSUFFICIENT_RESOURCES(23, "insufficient resources"),
  ERROR_FREQ_NOT_SUPPORTED(24, "frequency not supported"),
  ERROR_ARGUMENT_VERSION_MISMATCH(25, "struct version mismatch"),
  ERROR_DEPRECATED(26, "deprecated"),
  ERROR_NOT_READY(27, "not ready"),
  ERROR_GPU_NOT_FOUND(28, "GPU not found"),
  ERROR_INVALID_STATE(29, "invalid state"),
  ERROR_RESET_TYPE_NOT_SUPPORTED(30, "reset type not supported"),
  ERROR_UNKNOWN(999, "unknown error");

  private static final NvmlReturn[] BY_CODE = new NvmlReturn[31];

  static {
    for (NvmlReturn r : values()) {
      if (r.code < BY_CODE.length) {
        BY_CODE[r.code] = r;
      }
    }
  }

  private final int code;
  private final String description;

  NvmlReturn(int code, String description) {
    this.code = code;
    this.description = description;
  }

  /** The numeric value of nvml.h. */
  public int code() {
    return code;
  }

  /** What the code means. */
  public String description() {
    return description;
  }

  /** The constant's name as in nvml.h, e.g. {@code NVML_ERROR_GPU_IS_LOST}. */
  public String headerName() {
    return "NVML_" + name();
  }

  /** The value for a code; codes this enum does not know (a newer driver) map to {@link #ERROR_UNKNOWN}. */
  public static NvmlReturn of(int code) {
    if (code >= 0 && code < BY_CODE.length && BY_CODE[code] != null) {
      return BY_CODE[code];
    }
    return ERROR_UNKNOWN;
  }

  /** "NVML_ERROR_GPU_IS_LOST (15): GPU is lost ...", with the raw code for unknown values. */
  public static String describe(int code) {
    NvmlReturn r = of(code);
    if (r == ERROR_UNKNOWN && code != 999) {
      return "NVML error " + code + " (unknown to this agent)";
    }
    return r.headerName() + " (" + code + "): " + r.description;
  }
}
