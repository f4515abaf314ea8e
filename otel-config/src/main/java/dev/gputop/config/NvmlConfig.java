package dev.gputop.config;

/**
 * Settings of the NVML receiver ({@code nvml.*}). Immutable.
 *
 * @param enabled {@code nvml.enabled}, default true
 * @param library {@code nvml.library}: path or name of libnvidia-ml; null means the platform
 *     default ({@code libnvidia-ml.so.1}, or {@code nvml.dll} on Windows)
 */
public record NvmlConfig(boolean enabled, String library) {

  /** Every key of this section at its {@link ConfigSchema} default. */
  public static NvmlConfig defaults() {
    return ConfigSchema.defaults().nvml();
  }
}
