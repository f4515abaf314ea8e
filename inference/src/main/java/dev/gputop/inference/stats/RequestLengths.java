package dev.gputop.inference.stats;

/**
 * How long the window's requests were, in tokens: the distribution of their prompt lengths and of
 * the tokens they generated, from the engine's own per-request histograms (vLLM {@code
 * request_prompt_tokens} and {@code request_generation_tokens}, TGI {@code request_input_length}
 * and {@code request_generated_tokens}, ...). Each distribution is computed as a latency is
 * ({@link LatencyStats}: mean = Δsum / Δcount, quantiles at {@code inference.quantiles} by
 * PromQL's {@code histogram_quantile} over the window's bucket increases, count = Δcount), in
 * tokens instead of seconds. Immutable.
 *
 * @param prompt prompt tokens per request (TEI: per input of a batch request); null when the
 *     engine has no such histogram
 * @param generation generated tokens per request; null when the engine has no such histogram
 */
public record RequestLengths(LatencyStats prompt, LatencyStats generation) {

  /** Neither distribution: the engine exports none (or nothing is known yet). */
  public static final RequestLengths NONE = new RequestLengths(null, null);
}
