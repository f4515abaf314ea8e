package dev.gputop.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The agent's whole configuration, as read from the YAML file (README.md "Configuration") with
 * every default filled in. Immutable; safe to share between threads.
 *
 * @param refreshNormal how often every receiver refreshes ({@code refresh.normal}, default 3s)
 * @param listen host:port of the HTTP listener serving /metrics, /api/snapshot and /healthz
 *     ({@code listen}, default {@code 127.0.0.1:9464}); {@code "off"} disables it
 * @param inference the inference receiver's settings ({@code inference.*})
 * @param nvml the NVML receiver's settings ({@code nvml.*})
 * @param kubernetes pod metadata settings used by discovery ({@code kubernetes.*})
 */
public record AgentConfig(
    Duration refreshNormal,
    String listen,
    InferenceConfig inference,
    NvmlConfig nvml,
    KubernetesConfig kubernetes,
    ListenerConfig listener) {

  /** {@code refresh.normal}'s default, from {@link ConfigSchema#REFRESH_NORMAL}. */
  public static final Duration DEFAULT_REFRESH = ConfigSchema.REFRESH_NORMAL.defaultValue();
  /** {@code listen}'s default, from {@link ConfigSchema#LISTEN}. */
  public static final String DEFAULT_LISTEN = ConfigSchema.LISTEN.defaultValue();

  public AgentConfig {
    Objects.requireNonNull(refreshNormal, "refreshNormal");
    Objects.requireNonNull(listen, "listen");
    Objects.requireNonNull(inference, "inference");
    Objects.requireNonNull(nvml, "nvml");
    Objects.requireNonNull(kubernetes, "kubernetes");
    Objects.requireNonNull(listener, "listener");
    if (refreshNormal.isNegative() || refreshNormal.isZero()) {
      throw new IllegalArgumentException("refresh.normal must be positive");
    }
  }

  /** A configuration with the listener's defaults (plain HTTP, no authentication). */
  public AgentConfig(Duration refreshNormal, String listen, InferenceConfig inference, NvmlConfig nvml,
      KubernetesConfig kubernetes) {
    this(refreshNormal, listen, inference, nvml, kubernetes, ListenerConfig.defaults());
  }

  /** The same configuration with another {@code listen} address. */
  public AgentConfig withListen(String otherListen) {
    return new AgentConfig(refreshNormal, otherListen, inference, nvml, kubernetes, listener);
  }

  /** The same configuration with other inference settings. */
  public AgentConfig withInference(InferenceConfig other) {
    return new AgentConfig(refreshNormal, listen, other, nvml, kubernetes, listener);
  }

  /** The configuration used when no file is given: every key at its {@link ConfigSchema} default. */
  public static AgentConfig defaults() {
    return ConfigSchema.defaults();
  }

  /** Whether the HTTP listener is switched off ({@code listen: off}). */
  public boolean listenerDisabled() {
    return "off".equalsIgnoreCase(listen);
  }
}
