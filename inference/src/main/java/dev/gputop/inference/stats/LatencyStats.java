package dev.gputop.inference.stats;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.gputop.receiver.ServerReport;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One latency over the window, in seconds, or one request length distribution ({@link
 * RequestLengths}), in tokens: the same statistics of a histogram over the window. Values are
 * null when there is nothing to compute (no request completed in the window). Immutable.
 *
 * <p>In JSON: {@code mean}, one key per quantile ({@link Quantiles#key}: {@code p50}, {@code p90},
 * {@code p99} by default), then {@code count}.
 *
 * @param mean Δsum / Δcount
 * @param quantiles the quantiles computed ({@code inference.quantiles})
 * @param values each quantile's value, as PromQL's {@code histogram_quantile(q, sum by (le)
 *     (rate(…[window])))}, in the order of {@code quantiles}; an entry may be null
 * @param count observations in the window (Δcount, with counter-reset correction)
 */
public record LatencyStats(Double mean, Quantiles quantiles, List<Double> values, Long count)
    implements ServerReport.Latency {

  public LatencyStats {
    Objects.requireNonNull(quantiles, "quantiles");
    values = Collections.unmodifiableList(new ArrayList<>(values));
    if (values.size() != quantiles.size()) {
      throw new IllegalArgumentException(
          values.size() + " values for " + quantiles.size() + " quantiles");
    }
  }

  /** Statistics at the default quantiles 0.5, 0.9 and 0.99. */
  public LatencyStats(Double mean, Double p50, Double p90, Double p99, Long count) {
    this(mean, Quantiles.DEFAULT, Arrays.asList(p50, p90, p99), count);
  }

  /** Nothing computed yet, at these quantiles: every value null. */
  static LatencyStats none(Quantiles quantiles, Long count) {
    return new LatencyStats(null, quantiles, Arrays.asList(new Double[quantiles.size()]), count);
  }

  /** The value at {@code level}, or null when it has none or {@code level} is not computed. */
  public Double value(double level) {
    int i = quantiles.indexOf(level);
    return i < 0 ? null : values.get(i);
  }

  /** The median, or null (also when 0.5 is not in {@code inference.quantiles}). */
  public Double p50() {
    return value(0.5);
  }

  /** The 90th percentile, or null (also when 0.9 is not in {@code inference.quantiles}). */
  public Double p90() {
    return value(0.9);
  }

  /** The 99th percentile, or null (also when 0.99 is not in {@code inference.quantiles}). */
  public Double p99() {
    return value(0.99);
  }

  /** The JSON object: {@code mean}, the quantiles by key, {@code count}. */
  @JsonValue
  public Map<String, Object> json() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("mean", mean);
    for (int i = 0; i < quantiles.size(); i++) {
      out.put(Quantiles.key(quantiles.level(i)), values.get(i));
    }
    out.put("count", count);
    return out;
  }
}
