package dev.gputop.inference.stats;

import dev.gputop.receiver.ServerReport;

/**
 * The windowed statistics of one server (or of one model on it). Every field is null when the
 * engine does not export it or the window can't compute it yet (N/A, never 0). Immutable.
 *
 * <p>This record is the one declaration of the statistics fields: the JSON snapshot's {@code
 * inference[]} and {@code models[]} entries write them inline ({@code @JsonUnwrapped} in {@code
 * ServerEntry} and {@code ModelEntry}), in this order, and {@code SnapshotBuilder} hands the
 * record on whole; everything else builds it by name ({@link #builder}). To add a statistic: add
 * the component here and to the {@link Builder}, compute it in {@link WindowStatistics}, register its gauge in {@code InferenceMetrics} (the metric's name,
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
  public static final ServerStats EMPTY = builder().build();

  public ServerStats {
    slo = slo == null ? SloStats.NONE : slo;
    requestLengths = requestLengths == null ? RequestLengths.NONE : requestLengths;
    finishReasons = finishReasons == null ? null : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(finishReasons));
  }

  /** Statistics with nothing known ({@link #EMPTY}) until set. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Collects the components by name (each unset one null: N/A; {@code slo} {@link
   * SloStats#NONE}); {@link #build} hands them to the canonical constructor. Adding a statistic:
   * its field and setter here and its name in {@link #build}.
   */
  public static final class Builder {
    private Integer running;
    private Integer waiting;
    private Double kvCacheUsage;
    private Double prefixHitRatio;
    private Double requestsPerSecond;
    private Double promptTokensPerSecond;
    private Double generationTokensPerSecond;
    private Double preemptionsPerSecond;
    private LatencyStats ttft;
    private LatencyStats itl;
    private LatencyStats tpot;
    private LatencyStats e2e;
    private LatencyStats queue;
    private Double ttftApproxMean;
    private Double failedRequestsPerSecond;
    private Double abortedRequestsPerSecond;
    private Double specDecodeAcceptanceRate;
    private LatencyStats prefill;
    private LatencyStats decode;
    private java.util.Map<String, Double> finishReasons;
    private SloStats slo;
    private RequestLengths requestLengths;

    private Builder() {}

    public Builder running(Integer running) {
      this.running = running;
      return this;
    }

    public Builder waiting(Integer waiting) {
      this.waiting = waiting;
      return this;
    }

    public Builder kvCacheUsage(Double kvCacheUsage) {
      this.kvCacheUsage = kvCacheUsage;
      return this;
    }

    public Builder prefixHitRatio(Double prefixHitRatio) {
      this.prefixHitRatio = prefixHitRatio;
      return this;
    }

    public Builder requestsPerSecond(Double requestsPerSecond) {
      this.requestsPerSecond = requestsPerSecond;
      return this;
    }

    public Builder promptTokensPerSecond(Double promptTokensPerSecond) {
      this.promptTokensPerSecond = promptTokensPerSecond;
      return this;
    }

    public Builder generationTokensPerSecond(Double generationTokensPerSecond) {
      this.generationTokensPerSecond = generationTokensPerSecond;
      return this;
    }

    public Builder preemptionsPerSecond(Double preemptionsPerSecond) {
      this.preemptionsPerSecond = preemptionsPerSecond;
      return this;
    }

    public Builder ttft(LatencyStats ttft) {
      this.ttft = ttft;
      return this;
    }

    public Builder itl(LatencyStats itl) {
      this.itl = itl;
      return this;
    }

    public Builder tpot(LatencyStats tpot) {
      this.tpot = tpot;
      return this;
    }

    public Builder e2e(LatencyStats e2e) {
      this.e2e = e2e;
      return this;
    }

    public Builder queue(LatencyStats queue) {
      this.queue = queue;
      return this;
    }

    public Builder ttftApproxMean(Double ttftApproxMean) {
      this.ttftApproxMean = ttftApproxMean;
      return this;
    }

    public Builder failedRequestsPerSecond(Double failedRequestsPerSecond) {
      this.failedRequestsPerSecond = failedRequestsPerSecond;
      return this;
    }

    public Builder abortedRequestsPerSecond(Double abortedRequestsPerSecond) {
      this.abortedRequestsPerSecond = abortedRequestsPerSecond;
      return this;
    }

    public Builder specDecodeAcceptanceRate(Double specDecodeAcceptanceRate) {
      this.specDecodeAcceptanceRate = specDecodeAcceptanceRate;
      return this;
    }

    public Builder prefill(LatencyStats prefill) {
      this.prefill = prefill;
      return this;
    }

    public Builder decode(LatencyStats decode) {
      this.decode = decode;
      return this;
    }

    public Builder finishReasons(java.util.Map<String, Double> finishReasons) {
      this.finishReasons = finishReasons;
      return this;
    }

    public Builder slo(SloStats slo) {
      this.slo = slo;
      return this;
    }

    public Builder requestLengths(RequestLengths requestLengths) {
      this.requestLengths = requestLengths;
      return this;
    }

    public ServerStats build() {
      return new ServerStats(running, waiting, kvCacheUsage, prefixHitRatio, requestsPerSecond,
          promptTokensPerSecond, generationTokensPerSecond, preemptionsPerSecond, ttft, itl, tpot,
          e2e, queue, ttftApproxMean, failedRequestsPerSecond, abortedRequestsPerSecond,
          specDecodeAcceptanceRate, prefill, decode, finishReasons, slo, requestLengths);
    }
  }
}
