package dev.gputop.receiver;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One cumulative explicit-bucket histogram point that a receiver re-exports as it is (for example
 * a server's own TTFT histogram with the server's bucket boundaries), so a backend can aggregate
 * percentiles across a fleet. The OpenTelemetry API has no asynchronous histogram, so receivers
 * hand these to the agent, which turns them into SDK metric data. Immutable.
 *
 * @param name the OpenTelemetry metric name, e.g. {@code gen_ai.server.time_to_first_token}
 * @param description a sentence for the backend
 * @param unit UCUM unit, e.g. {@code s}
 * @param attributes the point's attributes (server, engine, model, ...)
 * @param startEpochNanos when accumulation started (the first scrape after the last reset)
 * @param epochNanos when the values were observed
 * @param boundaries finite upper bounds, ascending (the +Inf bucket is implicit)
 * @param counts per-bucket (not cumulative) counts, one more than boundaries
 * @param sum the sum of observations
 * @param count the number of observations, equal to the sum of counts
 */
public record ExportedHistogram(
    String name,
    String description,
    String unit,
    Map<String, String> attributes,
    long startEpochNanos,
    long epochNanos,
    List<Double> boundaries,
    List<Long> counts,
    double sum,
    long count) {

  public ExportedHistogram {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(unit, "unit");
    attributes = Map.copyOf(attributes);
    boundaries = List.copyOf(boundaries);
    counts = List.copyOf(counts);
    if (counts.size() != boundaries.size() + 1) {
      throw new IllegalArgumentException(
          "counts must have one more entry than boundaries: " + counts.size() + " vs " + boundaries.size());
    }
  }
}
