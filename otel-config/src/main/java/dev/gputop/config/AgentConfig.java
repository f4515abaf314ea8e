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

  /** A builder that starts from {@link #defaults()}. */
  public static Builder builder() {
    return defaults().toBuilder();
  }

  /** A builder that starts from these settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.refreshNormal = refreshNormal;
    b.listen = listen;
    b.inference = inference;
    b.nvml = nvml;
    b.kubernetes = kubernetes;
    b.listener = listener;
    return b;
  }

  /**
   * Collects the components by name, from the settings it started with ({@link #toBuilder});
   * {@link #build} hands them to the canonical constructor, which validates them.
   */
  public static final class Builder {
    private Duration refreshNormal;
    private String listen;
    private InferenceConfig inference;
    private NvmlConfig nvml;
    private KubernetesConfig kubernetes;
    private ListenerConfig listener;

    private Builder() {}

    public Builder refreshNormal(Duration value) {
      this.refreshNormal = value;
      return this;
    }

    public Builder listen(String value) {
      this.listen = value;
      return this;
    }

    public Builder inference(InferenceConfig value) {
      this.inference = value;
      return this;
    }

    public Builder nvml(NvmlConfig value) {
      this.nvml = value;
      return this;
    }

    public Builder kubernetes(KubernetesConfig value) {
      this.kubernetes = value;
      return this;
    }

    public Builder listener(ListenerConfig value) {
      this.listener = value;
      return this;
    }

    public AgentConfig build() {
      return new AgentConfig(refreshNormal, listen, inference, nvml, kubernetes, listener);
    }
  }

  /** Whether the HTTP listener is switched off ({@code listen: off}). */
  public boolean listenerDisabled() {
    return "off".equalsIgnoreCase(listen);
  }

  /**
   * {@code listen} as a host and a port.
   *
   * @throws IllegalStateException when the listener is switched off ({@link #listenerDisabled()})
   */
  public ListenAddress listenAddress() {
    if (listenerDisabled()) {
      throw new IllegalStateException("listen: off");
    }
    return ListenAddress.parse(listen);
  }
}
