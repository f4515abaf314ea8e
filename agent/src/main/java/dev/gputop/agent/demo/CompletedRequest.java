package dev.gputop.agent.demo;

import java.util.List;
import java.util.Objects;

/**
 * One request a {@link LoadModel} served to the end, with the true times it drew: what the model
 * observes into its histograms at the finish, and what it tells its {@link LoadListener}. Times
 * are readings of the model's clock ({@link dev.gputop.receiver.Clock#nanoTime()}). Immutable.
 *
 * @param engine the data-parallel engine index that served it (0 when the server has one)
 * @param generation how many restarts the server had gone through when it finished
 * @param arrivalNanos when it arrived
 * @param scheduledNanos when it was first scheduled (left the waiting queue)
 * @param firstTokenNanos when its first token was produced
 * @param finishNanos when its last token was produced
 * @param promptTokens prompt length
 * @param cachedTokens prompt tokens served from the prefix cache
 * @param generationTokens tokens generated
 * @param maxTokens the max_tokens parameter
 * @param finishReason {@code stop} or {@code length}
 * @param preemptions how many times it was preempted (evicted and recomputed)
 * @param itlSeconds its steady gap between tokens
 * @param stallGapsSeconds the longer gaps caused by preemptions, one per preemption after the
 *     first token
 */
record CompletedRequest(
    int engine,
    int generation,
    long arrivalNanos,
    long scheduledNanos,
    long firstTokenNanos,
    long finishNanos,
    int promptTokens,
    int cachedTokens,
    int generationTokens,
    int maxTokens,
    String finishReason,
    int preemptions,
    double itlSeconds,
    List<Double> stallGapsSeconds) {

  CompletedRequest {
    Objects.requireNonNull(finishReason, "finishReason");
    stallGapsSeconds = List.copyOf(stallGapsSeconds);
  }

  /** Time to first token: queueing plus prefill. */
  double ttftSeconds() {
    return (firstTokenNanos - arrivalNanos) / 1e9;
  }

  /** End-to-end latency. */
  double e2eSeconds() {
    return (finishNanos - arrivalNanos) / 1e9;
  }

  /** Time spent waiting before the first scheduling. */
  double queueSeconds() {
    return (scheduledNanos - arrivalNanos) / 1e9;
  }

  /** First scheduling to first token. */
  double prefillSeconds() {
    return (firstTokenNanos - scheduledNanos) / 1e9;
  }

  /** First token to last token. */
  double decodeSeconds() {
    return (finishNanos - firstTokenNanos) / 1e9;
  }

  /** First scheduling to last token. */
  double inferenceSeconds() {
    return (finishNanos - scheduledNanos) / 1e9;
  }

  /** Mean time per output token after the first, or 0 for a one-token answer. */
  double tpotSeconds() {
    return generationTokens > 1 ? decodeSeconds() / (generationTokens - 1) : 0;
  }

  /** Number of inter-token gaps observed: one fewer than the tokens. */
  int itlObservations() {
    return Math.max(0, generationTokens - 1);
  }
}
