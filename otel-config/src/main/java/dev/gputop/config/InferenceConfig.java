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

  /** Settings without a GPU price ({@code inference.costPerGpuHour}), at the default quantiles. */
  public InferenceConfig(boolean enabled, Duration window, DiscoveryConfig discovery,
      List<Endpoint> endpoints, ScrapeConfig scrape, SloConfig slo, EnginesConfig engines) {
    this(enabled, window, discovery, endpoints, scrape, slo, engines, null, DEFAULT_QUANTILES);
  }

  /** Settings without profiles of the user's. */
  public InferenceConfig(boolean enabled, Duration window, DiscoveryConfig discovery,
      List<Endpoint> endpoints, ScrapeConfig scrape, SloConfig slo) {
    this(enabled, window, discovery, endpoints, scrape, slo, EnginesConfig.none());
  }

  /** Settings without SLO targets. */
  public InferenceConfig(boolean enabled, Duration window, DiscoveryConfig discovery,
      List<Endpoint> endpoints, ScrapeConfig scrape) {
    this(enabled, window, discovery, endpoints, scrape, SloConfig.defaults());
  }

  // One "with" per component, so that a caller changing one setting (the demo: its endpoints,
  // discovery off) keeps every other one, including components added later.

  public InferenceConfig withEnabled(boolean value) {
    return new InferenceConfig(
        value, window, discovery, endpoints, scrape, slo, engines, costPerGpuHour, quantiles);
  }

  public InferenceConfig withWindow(Duration value) {
    return new InferenceConfig(
        enabled, value, discovery, endpoints, scrape, slo, engines, costPerGpuHour, quantiles);
  }

  public InferenceConfig withDiscovery(DiscoveryConfig value) {
    return new InferenceConfig(
        enabled, window, value, endpoints, scrape, slo, engines, costPerGpuHour, quantiles);
  }

  public InferenceConfig withEndpoints(List<Endpoint> value) {
    return new InferenceConfig(
        enabled, window, discovery, value, scrape, slo, engines, costPerGpuHour, quantiles);
  }

  public InferenceConfig withScrape(ScrapeConfig value) {
    return new InferenceConfig(
        enabled, window, discovery, endpoints, value, slo, engines, costPerGpuHour, quantiles);
  }

  public InferenceConfig withSlo(SloConfig value) {
    return new InferenceConfig(
        enabled, window, discovery, endpoints, scrape, value, engines, costPerGpuHour, quantiles);
  }

  public InferenceConfig withEngines(EnginesConfig value) {
    return new InferenceConfig(
        enabled, window, discovery, endpoints, scrape, slo, value, costPerGpuHour, quantiles);
  }

  public InferenceConfig withCostPerGpuHour(Double value) {
    return new InferenceConfig(
        enabled, window, discovery, endpoints, scrape, slo, engines, value, quantiles);
  }

  public InferenceConfig withQuantiles(List<Double> value) {
    return new InferenceConfig(
        enabled, window, discovery, endpoints, scrape, slo, engines, costPerGpuHour, value);
  }

  /** Every {@code inference.*} key at its {@link ConfigSchema} default. */
  public static InferenceConfig defaults() {
    return ConfigSchema.defaults().inference();
  }
}
