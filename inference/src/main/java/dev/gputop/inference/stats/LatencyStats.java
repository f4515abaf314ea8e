package dev.gputop.inference.stats;

/**
 * One latency over the window, in seconds. Values are null when there is nothing to compute
 * (no request completed in the window). Immutable.
 *
 * @param mean Δsum / Δcount
 * @param p50 the median, as PromQL's histogram_quantile(0.5, sum by (le) (rate(…[window])))
 * @param p90 the 90th percentile, likewise
 * @param p99 the 99th percentile, likewise
 * @param count observations in the window (Δcount, with counter-reset correction)
 */
public record LatencyStats(Double mean, Double p50, Double p90, Double p99, Long count) {}
