package dev.gputop.receiver;

import io.opentelemetry.api.common.Attributes;
import java.util.Objects;

/**
 * One point of a monotonic cumulative sum that a receiver exports with a start time of its own
 * (for example a server's requests since the agent first scraped it), which the OpenTelemetry
 * API's asynchronous counters can't carry: receivers hand these to the agent, which turns them
 * into SDK metric data beside the {@link ExportedHistogram}s, with the attributes as they are.
 * Immutable.
 *
 * @param name the OpenTelemetry metric name, e.g. {@code gputop.inference.requests}
 * @param description a sentence for the backend
 * @param unit UCUM unit, e.g. {@code {request}}
 * @param attributes the point's attributes (server, engine, model, outcome, ...)
 * @param startEpochNanos when accumulation started (the agent's first scrape of the server)
 * @param epochNanos when the value was observed
 * @param value the total since {@code startEpochNanos}; never decreases for one start time
 */
public record ExportedCounter(
    String name,
    String description,
    String unit,
    Attributes attributes,
    long startEpochNanos,
    long epochNanos,
    double value) {

  public ExportedCounter {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(attributes, "attributes");
  }
}
