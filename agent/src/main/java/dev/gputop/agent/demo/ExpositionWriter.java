package dev.gputop.agent.demo;

import java.util.Map;

/**
 * Renders a {@link LoadModel}'s state the way one engine's {@code /metrics} endpoint does: its
 * metric names, HELP texts, types, labels, bucket boundaries, number format and ordering.
 * Implementations are thread-safe unless they say otherwise.
 */
interface ExpositionWriter {

  /** The engine identifier the agent should recognize: vllm, sglang, tgi, llamacpp or trtllm. */
  String engine();

  /** The path the engine serves its Prometheus text on ({@code /metrics} but for trtllm-serve). */
  default String path() {
    return "/metrics";
  }

  /** The Content-Type header the engine sends. */
  String contentType();

  /** The histograms the writer renders, with the engine's upper bounds (without +Inf). */
  Map<Kind, double[]> histogramBounds();

  /** The exposition text for this state. */
  String write(LoadModel.Stats stats);

  /**
   * The Content-Type of the OpenMetrics answer, or null when the engine never answers in
   * OpenMetrics (then {@link #writeOpenMetrics} is not called).
   */
  default String openMetricsContentType() {
    return null;
  }

  /** The OpenMetrics 1.0 text for this state, for requests that accept it. */
  default String writeOpenMetrics(LoadModel.Stats stats) {
    throw new UnsupportedOperationException(engine() + " does not negotiate OpenMetrics");
  }

  /** Extra response headers, as alternating names and values. */
  default String[] headers(LoadModel.Stats stats) {
    return new String[0];
  }
}
