package dev.gputop.inference.parse;

import java.util.Objects;

/**
 * One exposition sample. Immutable.
 *
 * @param name the full sample name as written, e.g. {@code vllm:e2e_request_latency_seconds_bucket}
 * @param labels its labels (including {@code le} or {@code quantile})
 * @param value the value; NaN and infinities are kept as they were written
 * @param timestampMillis the explicit timestamp in milliseconds, or {@link #NO_TIMESTAMP}
 */
public record Sample(String name, Labels labels, double value, long timestampMillis) {

  /** Marks a sample written without a timestamp. */
  public static final long NO_TIMESTAMP = Long.MIN_VALUE;

  public Sample {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(labels, "labels");
  }
}
