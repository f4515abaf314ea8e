package dev.gputop.config;

import java.util.Objects;

/**
 * Settings of server discovery ({@code inference.discovery.*}). Immutable.
 *
 * @param enabled {@code inference.discovery.enabled}, default true
 * @param scope {@code inference.discovery.scope}: {@link Scope#GPU} looks only at processes that
 *     use a GPU (from NVML); {@link Scope#ALL} looks at every process
 * @param procRoot where /proc is mounted ({@code inference.discovery.procRoot}, default
 *     {@code /proc}; a container with the host's /proc mounted elsewhere points here)
 */
public record DiscoveryConfig(boolean enabled, Scope scope, String procRoot) {

  /** Which processes discovery looks at. */
  public enum Scope {
    GPU,
    ALL
  }

  public DiscoveryConfig {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(procRoot, "procRoot");
  }

  /** The same settings, discovery switched on or off. */
  public DiscoveryConfig withEnabled(boolean value) {
    return new DiscoveryConfig(value, scope, procRoot);
  }

  /** Every key of this section at its {@link ConfigSchema} default. */
  public static DiscoveryConfig defaults() {
    return ConfigSchema.defaults().inference().discovery();
  }
}
