package dev.gputop.inference.stats;

import dev.gputop.receiver.ServerReport;

/**
 * The windowed statistics of one server (or of one model on it). Every field is null when the
 * engine does not export it or the window can't compute it yet (N/A, never 0). Immutable.
 *
 * <p>This record is the one declaration of the statistics fields: the JSON snapshot's {@code
 * inference[]} and {@code models[]} entries write them inline ({@code @JsonUnwrapped} in {@code
 * ServerEntry} and {@code ModelEntry}), in this order, and {@code SnapshotBuilder} hands the
 * record on whole. To add a statistic: add the component here (and to {@link #EMPTY}), compute it
 * in {@link WindowStatistics}, register its gauge in {@code InferenceMetrics} (the metric's name,
 * unit and description live there, with docs/metrics.md), and describe it in
 * docs/json-schema.md and agent's {@code snapshot.schema.json}. Nothing copies fields one by one.
 *
 * @param running requests in the batch (newest scrape)
 * @param waiting requests queued for admission (newest scrape)
 * @param kvCacheUsage fraction of KV cache in use, 0–1 (newest scrape, the fullest rank)
 * @param prefixHitRatio Δhits / Δqueries over the window
 * @param requestsPerSecond completed requests per second
 * @param promptTokensPerSecond prompt tokens per second
 * @param generationTokensPerSecond generated tokens per second
 * @param preemptionsPerSecond preemptions per second
 * @param ttft time to first token
 * @param itl inter-token latency: per token, the gap between consecutive output tokens
 * @param tpot time per output token: per request, its decode time over its output tokens after
 *     the first (a different distribution from {@code itl}; an engine may have either or both)
 * @param e2e end-to-end latency
 * @param queue queue time
 * @param ttftApproxMean for an engine without a TTFT histogram (TGI): mean queue time plus mean
 *     prefill batch time over the window, an approximation of the mean TTFT; else null
 * @param failedRequestsPerSecond requests per second that ended in a server-side error
 * @param abortedRequestsPerSecond requests per second the client aborted or cancelled
 * @param specDecodeAcceptanceRate Δaccepted draft tokens / Δdraft tokens over the window
 *     (speculative decoding), 0–1
 * @param prefill per-request prefill time
 * @param decode per-request decode time
 * @param finishReasons finished requests per second by the engine's finish reason (vLLM's {@code
 *     finished_reason}: stop, length, abort, error), sorted by reason; null when the requests
 *     counter has no such label
 * @param slo SLO attainment and burn rate per latency ({@link SloAttainment}); {@link
 *     SloStats#NONE} when no target applies
 * @param requestLengths the prompt and generation length distributions, in tokens ({@link
 *     RequestLengths}); {@link RequestLengths#NONE} when the engine exports neither
 */
public record ServerStats(
    Integer running,
    Integer waiting,
    Double kvCacheUsage,
    Double prefixHitRatio,
    Double requestsPerSecond,
    Double promptTokensPerSecond,
    Double generationTokensPerSecond,
    Double preemptionsPerSecond,
    LatencyStats ttft,
    LatencyStats itl,
    LatencyStats tpot,
    LatencyStats e2e,
    LatencyStats queue,
    Double ttftApproxMean,
    Double failedRequestsPerSecond,
    Double abortedRequestsPerSecond,
    Double specDecodeAcceptanceRate,
    LatencyStats prefill,
    LatencyStats decode,
    java.util.Map<String, Double> finishReasons,
    SloStats slo,
    RequestLengths requestLengths) implements ServerReport.Stats {

  /** Nothing known. */
  public static final ServerStats EMPTY = new ServerStats(
      null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
      null, null, null, null, null, SloStats.NONE, RequestLengths.NONE);

  public ServerStats {
    slo = slo == null ? SloStats.NONE : slo;
    requestLengths = requestLengths == null ? RequestLengths.NONE : requestLengths;
    finishReasons = finishReasons == null ? null : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(finishReasons));
  }

  /** These statistics without request lengths (N/A). */
  public ServerStats(Integer running, Integer waiting, Double kvCacheUsage, Double prefixHitRatio,
      Double requestsPerSecond, Double promptTokensPerSecond, Double generationTokensPerSecond,
      Double preemptionsPerSecond, LatencyStats ttft, LatencyStats itl, LatencyStats tpot,
      LatencyStats e2e, LatencyStats queue, Double ttftApproxMean, Double failedRequestsPerSecond,
      Double abortedRequestsPerSecond, Double specDecodeAcceptanceRate, LatencyStats prefill,
      LatencyStats decode, java.util.Map<String, Double> finishReasons, SloStats slo) {
    this(running, waiting, kvCacheUsage, prefixHitRatio, requestsPerSecond, promptTokensPerSecond,
        generationTokensPerSecond, preemptionsPerSecond, ttft, itl, tpot, e2e, queue, ttftApproxMean,
        failedRequestsPerSecond, abortedRequestsPerSecond, specDecodeAcceptanceRate, prefill, decode,
        finishReasons, slo, RequestLengths.NONE);
  }

  /** These statistics without SLOs and without the values of the newer concepts. */
  public ServerStats(Integer running, Integer waiting, Double kvCacheUsage, Double prefixHitRatio,
      Double requestsPerSecond, Double promptTokensPerSecond, Double generationTokensPerSecond,
      Double preemptionsPerSecond, LatencyStats ttft, LatencyStats itl, LatencyStats e2e,
      LatencyStats queue, Double ttftApproxMean) {
    this(running, waiting, kvCacheUsage, prefixHitRatio, requestsPerSecond, promptTokensPerSecond,
        generationTokensPerSecond, preemptionsPerSecond, ttft, itl, e2e, queue, ttftApproxMean,
        SloStats.NONE);
  }

  /** These statistics with SLOs, without the values of the newer concepts (null: N/A). */
  public ServerStats(Integer running, Integer waiting, Double kvCacheUsage, Double prefixHitRatio,
      Double requestsPerSecond, Double promptTokensPerSecond, Double generationTokensPerSecond,
      Double preemptionsPerSecond, LatencyStats ttft, LatencyStats itl, LatencyStats e2e,
      LatencyStats queue, Double ttftApproxMean, SloStats slo) {
    this(running, waiting, kvCacheUsage, prefixHitRatio, requestsPerSecond, promptTokensPerSecond,
        generationTokensPerSecond, preemptionsPerSecond, ttft, itl, null, e2e, queue, ttftApproxMean,
        null, null, null, null, null, null, slo, RequestLengths.NONE);
  }

  /** These statistics without a time per output token (null: N/A). */
  public ServerStats(Integer running, Integer waiting, Double kvCacheUsage, Double prefixHitRatio,
      Double requestsPerSecond, Double promptTokensPerSecond, Double generationTokensPerSecond,
      Double preemptionsPerSecond, LatencyStats ttft, LatencyStats itl, LatencyStats e2e,
      LatencyStats queue, Double ttftApproxMean, Double failedRequestsPerSecond,
      Double specDecodeAcceptanceRate, LatencyStats prefill, LatencyStats decode, SloStats slo) {
    this(running, waiting, kvCacheUsage, prefixHitRatio, requestsPerSecond, promptTokensPerSecond,
        generationTokensPerSecond, preemptionsPerSecond, ttft, itl, null, e2e, queue, ttftApproxMean,
        failedRequestsPerSecond, null, specDecodeAcceptanceRate, prefill, decode, null, slo,
        RequestLengths.NONE);
  }

  /** These statistics with {@code slo}. */
  public ServerStats withSlo(SloStats slo) {
    return new ServerStats(running, waiting, kvCacheUsage, prefixHitRatio, requestsPerSecond,
        promptTokensPerSecond, generationTokensPerSecond, preemptionsPerSecond, ttft, itl, tpot, e2e,
        queue, ttftApproxMean, failedRequestsPerSecond, abortedRequestsPerSecond,
        specDecodeAcceptanceRate, prefill, decode, finishReasons, slo, requestLengths);
  }
}
