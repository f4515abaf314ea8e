package dev.gputop.nvml;

/**
 * NVML can't be used on this host: the library is missing, the driver is not loaded, or
 * initialization failed. The message says which, in words a person can act on.
 */
public final class NvmlUnavailableException extends Exception {
  private static final long serialVersionUID = 1L;

  public NvmlUnavailableException(String message) {
    super(message);
  }
}
