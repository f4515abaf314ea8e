package dev.gputop.inference.engine;

/**
 * A serving concept (docs/engines/README.md, "Concepts") and how its source series are read.
 * Each engine profile maps a concept to the metric names that carry it.
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
  /**
   * Inter-token latency: the gap between two consecutive output tokens, one observation per
   * token (histogram, seconds; vLLM {@code inter_token_latency_seconds}).
   */
  ITL(Kind.HISTOGRAM),
  /**
   * Time per output token of a request: its decode time over its output tokens after the first,
   * one observation per request (histogram, seconds; vLLM {@code
   * request_time_per_output_token_seconds}, TensorRT-LLM's and TGI's per-request means). Never
   * mixed with {@link #ITL}: the GenAI semantic conventions' {@code
   * gen_ai.server.time_per_output_token} is this one.
   */
  TPOT(Kind.HISTOGRAM),
  /** End-to-end request latency (histogram, seconds). */
  E2E(Kind.HISTOGRAM),
  /** Time waiting before scheduling (histogram, seconds). */
  QUEUE(Kind.HISTOGRAM),
  /**
   * Time of one prefill forward pass (histogram, seconds, per batch): TGI only, for the
   * approximate TTFT of an engine that has no TTFT histogram.
   */
  PREFILL_BATCH(Kind.HISTOGRAM),
  /**
   * Requests that ended in a server-side error (counter); a client's abort or cancellation is
   * {@link #ABORTED_REQUESTS}, each profile says which of its reasons are which.
   */
  FAILED_REQUESTS(Kind.COUNTER),
  /** Requests the client aborted or cancelled before they finished (counter). */
  ABORTED_REQUESTS(Kind.COUNTER),
  /** Draft tokens proposed by speculative decoding (counter), denominator of the acceptance rate. */
  SPEC_DRAFT_TOKENS(Kind.COUNTER),
  /** Draft tokens accepted by the target model (counter), numerator of the acceptance rate. */
  SPEC_ACCEPTED_TOKENS(Kind.COUNTER),
  /** Time of a request's prefill phase (histogram, seconds, per request). */
  PREFILL(Kind.HISTOGRAM),
  /** Time of a request's decode phase (histogram, seconds, per request). */
  DECODE(Kind.HISTOGRAM),
  /**
   * A request's prompt length (histogram, tokens, one observation per request; TEI's one per
   * input of a batch request): vLLM {@code request_prompt_tokens}, TGI {@code
   * request_input_length}, ...
   */
  PROMPT_LENGTH(Kind.HISTOGRAM),
  /**
   * The tokens a request generated (histogram, tokens, one observation per request when it
   * finishes): vLLM {@code request_generation_tokens}, TGI {@code request_generated_tokens}, ...
   */
  GENERATION_LENGTH(Kind.HISTOGRAM);

  /** How a concept's samples are read. */
  public enum Kind {
    GAUGE,
    COUNTER,
    HISTOGRAM
  }

  private final Kind kind;
  private final String key;

  Concept(Kind kind) {
    this.kind = kind;
    StringBuilder sb = new StringBuilder();
    boolean upper = false;
    for (char c : name().toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        sb.append(upper ? c : Character.toLowerCase(c));
        upper = false;
      }
    }
    this.key = sb.toString();
  }

  public Kind kind() {
    return kind;
  }

  /** The concept's key in profile files and {@code explain}: {@code kvCache}, {@code ttft}, ... */
  public String key() {
    return key;
  }

  /** The concept with this key, or null. */
  public static Concept ofKey(String key) {
    for (Concept c : values()) {
      if (c.key.equals(key)) {
        return c;
      }
    }
    return null;
  }
}
