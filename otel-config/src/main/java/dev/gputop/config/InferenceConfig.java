package dev.gputop.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Settings of the inference receiver ({@code inference.*}). Immutable.
 *
 * @param enabled {@code inference.enabled}, default true
 * @param window {@code inference.window}: how far back rates and quantiles look, default 1m
 * @param discovery {@code inference.discovery.*}
 * @param endpoints {@code inference.endpoints[]}: servers scraped whether or not discovery finds them
 * @param scrape {@code inference.scrape.*}: timeouts and limits for every scrape
 * @param slo {@code inference.slo.*}: SLO targets and their overrides
 * @param engines {@code inference.engines.*}: the user's engine profiles
 * @param costPerGpuHour {@code inference.costPerGpuHour}: one GPU's price per hour, currency-free,
 *     for {@code efficiency.costPerMillionGeneratedTokens}; null when not configured
 * @param quantiles {@code inference.quantiles}: the quantiles latencies report, ascending
 */
public record InferenceConfig(
    boolean enabled,
    Duration window,
    DiscoveryConfig discovery,
    List<Endpoint> endpoints,
    ScrapeConfig scrape,
    SloConfig slo,
    EnginesConfig engines,
    Double costPerGpuHour,
    List<Double> quantiles) {

  /** {@code inference.window}'s default, from {@link ConfigSchema#INFERENCE_WINDOW}. */
  public static final Duration DEFAULT_WINDOW = ConfigSchema.INFERENCE_WINDOW.defaultValue();

  /** {@code inference.quantiles}' default, 0.5, 0.9 and 0.99. */
  public static final List<Double> DEFAULT_QUANTILES =
      ConfigSchema.INFERENCE_QUANTILES.defaultValue();

  public InferenceConfig {
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(discovery, "discovery");
    Objects.requireNonNull(scrape, "scrape");
    Objects.requireNonNull(slo, "slo");
    Objects.requireNonNull(engines, "engines");
    endpoints = List.copyOf(endpoints);
    quantiles = List.copyOf(quantiles);
    if (quantiles.isEmpty()) {
      throw new IllegalArgumentException("inference.quantiles needs at least one quantile");
    }
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("inference.window must be positive");
    }
  }

  /** A builder that starts from these settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.enabled = enabled;
    b.window = window;
    b.discovery = discovery;
    b.endpoints = endpoints;
    b.scrape = scrape;
    b.slo = slo;
    b.engines = engines;
    b.costPerGpuHour = costPerGpuHour;
    b.quantiles = quantiles;
    return b;
  }

  /**
   * Collects the components by name, from the settings it started with ({@link #toBuilder});
   * {@link #build} hands them to the canonical constructor, which validates them.
   * A caller changing one setting (the demo: its endpoints, discovery off) keeps every other
   * one, components added later included.
   */
  public static final class Builder {
    private boolean enabled;
    private Duration window;
    private DiscoveryConfig discovery;
    private List<Endpoint> endpoints;
    private ScrapeConfig scrape;
    private SloConfig slo;
    private EnginesConfig engines;
    private Double costPerGpuHour;
    private List<Double> quantiles;

    private Builder() {}

    public Builder enabled(boolean value) {
      this.enabled = value;
      return this;
    }

    public Builder window(Duration value) {
      this.window = value;
      return this;
    }

    public Builder discovery(DiscoveryConfig value) {
      this.discovery = value;
      return this;
    }

    public Builder endpoints(List<Endpoint> value) {
      this.endpoints = value;
      return this;
    }

    public Builder scrape(ScrapeConfig value) {
      this.scrape = value;
      return this;
    }

    public Builder slo(SloConfig value) {
      this.slo = value;
      return this;
    }

    public Builder engines(EnginesConfig value) {
      this.engines = value;
      return this;
    }

    public Builder costPerGpuHour(Double value) {
      this.costPerGpuHour = value;
      return this;
    }

    public Builder quantiles(List<Double> value) {
      this.quantiles = value;
      return this;
    }

    public InferenceConfig build() {
      return new InferenceConfig(enabled, window, discovery, endpoints, scrape, slo, engines, costPerGpuHour, quantiles);
    }
  }

  /** Every {@code inference.*} key at its {@link ConfigSchema} default. */
  public static InferenceConfig defaults() {
    return ConfigSchema.defaults().inference();
  }

  /** A builder that starts from {@link #defaults()}. */
  public static Builder builder() {
    return defaults().toBuilder();
  }
}
