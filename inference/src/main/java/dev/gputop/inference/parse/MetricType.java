package dev.gputop.inference.parse;

/** The metric family types of the Prometheus text format 0.0.4 and OpenMetrics 1.0. */
public enum MetricType {
  COUNTER,
  GAUGE,
  HISTOGRAM,
  GAUGE_HISTOGRAM,
  SUMMARY,
  INFO,
  STATESET,
  /** {@code untyped} (0.0.4), {@code unknown} (OpenMetrics), or a sample with no TYPE line. */
  UNTYPED
}
