package dev.gputop.agent.demo;

/**
 * The distributions a {@link LoadModel} draws and records, one per histogram an engine may export.
 * Each writer asks the model to keep the kinds it renders, with the engine's bucket boundaries.
 */
public enum Kind {
  /** Time to first token, observed when the first token is produced (s). */
  TTFT,
  /** Gap between consecutive output tokens, observed as tokens are produced (s, weight = tokens). */
  ITL,
  /** Arrival to last token, observed at finish (s). */
  E2E,
  /** Arrival to first scheduling, observed at finish (s). */
  QUEUE,
  /** First scheduling to first token, observed at finish (s). */
  PREFILL,
  /** First token to last token, observed at finish (s). */
  DECODE,
  /** First scheduling to last token, observed at finish (s). */
  INFERENCE,
  /** Per-request time per output token, decode / (generated - 1), observed at finish (s). */
  TPOT,
  /** Prompt tokens per request, observed at finish. */
  PROMPT_TOKENS,
  /** Generated tokens per request, observed at finish. */
  GENERATION_TOKENS,
  /** The request's max_tokens parameter, observed at finish. */
  MAX_TOKENS,
  /** The request's n parameter (always 1), observed at finish. */
  PARAMS_N,
  /** Prompt tokens computed in prefill (excluding prefix-cache hits), observed at finish. */
  PREFILL_COMPUTED_TOKENS,
  /** Tokens scheduled per engine step, observed each step. */
  ITERATION_TOKENS,
  /** Preemptions (retractions) per request, observed at finish. */
  PREEMPTIONS_PER_REQUEST,
  /** Duration of one prefill batch call (s), observed per step that admits requests. */
  BATCH_PREFILL,
  /** Duration of one decode batch call (s), observed per step that decodes. */
  BATCH_DECODE,
  /** Request validation time (s), observed at finish. */
  VALIDATION
}
