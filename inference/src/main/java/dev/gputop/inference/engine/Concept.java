package dev.gputop.inference.engine;

/**
 * A serving concept (SPEC.md section 2) and how its source series are read. Each engine profile
 * maps a concept to the metric names that carry it.
 */
public enum Concept {
  /** Requests in the batch (gauge, summed over data-parallel ranks and models). */
  RUNNING(Kind.GAUGE),
  /** Requests queued for admission (gauge, summed). */
  WAITING(Kind.GAUGE),
  /** Fraction of KV-cache in use, 0–1 (gauge, the fullest rank). */
  KV_CACHE(Kind.GAUGE),
  /** Prefix-cache hits in tokens (counter), numerator of the hit ratio. */
  PREFIX_HITS(Kind.COUNTER),
  /** Prefix-cache lookups in tokens (counter), denominator of the hit ratio. */
  PREFIX_QUERIES(Kind.COUNTER),
  /** vLLM V0's cumulative block-level hit-rate gauge (−1 when prefix caching is off). */
  PREFIX_HIT_RATE_GAUGE(Kind.GAUGE),
  /** Completed requests (counter). */
  REQUESTS(Kind.COUNTER),
  /** Prompt tokens processed (counter). */
  PROMPT_TOKENS(Kind.COUNTER),
  /** Tokens generated (counter). */
  GENERATION_TOKENS(Kind.COUNTER),
  /** Requests preempted from the batch (counter). */
  PREEMPTIONS(Kind.COUNTER),
  /** Time to first token (histogram, seconds). */
  TTFT(Kind.HISTOGRAM),
  /** Inter-token latency (histogram, seconds). */
  ITL(Kind.HISTOGRAM),
  /** End-to-end request latency (histogram, seconds). */
  E2E(Kind.HISTOGRAM),
  /** Time waiting before scheduling (histogram, seconds). */
  QUEUE(Kind.HISTOGRAM),
  /**
   * Time of one prefill forward pass (histogram, seconds, per batch): TGI only, for the
   * approximate TTFT of an engine that has no TTFT histogram.
   */
  PREFILL_BATCH(Kind.HISTOGRAM);

  /** How a concept's samples are read. */
  public enum Kind {
    GAUGE,
    COUNTER,
    HISTOGRAM
  }

  private final Kind kind;

  Concept(Kind kind) {
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
