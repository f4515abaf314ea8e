package dev.gputop.agent.demo;

import java.util.EnumMap;
import java.util.Map;

/**
 * The counters, gauges and histograms of one engine (one data-parallel rank) of a {@link
 * LoadModel}, as a server's metrics library would hold them. Mutable and not thread-safe: the
 * model mutates its own instances under its lock and hands writers a {@link #copy()}.
 */
final class EngineStats {

  final int index;
  final Map<Kind, Hist> hists = new EnumMap<>(Kind.class);
  /** Told of every observation; a copy tells no one. */
  LoadListener listener = LoadListener.NONE;

  // Counters, since the last restart.
  long arrived;
  long rejected;
  long completed;
  long finishedStop;
  long finishedLength;
  /** Prompt tokens, counted when prefill completes (vLLM). */
  long promptTokens;
  /** Generated tokens, counted as produced (vLLM). */
  long generationTokens;
  /** Prompt tokens of finished requests (SGLang, TGI, llama.cpp count at finish). */
  long promptTokensFinished;
  /** Generated tokens of finished requests. */
  long generationTokensFinished;
  /** Prefix-cache hit tokens of finished requests (SGLang {@code cached_tokens_total}). */
  long cachedTokensFinished;
  long prefixQueries;
  long prefixHits;
  long preemptions;
  long preemptedInputTokens;
  long preemptedOutputTokens;
  long prefillCalls;
  long decodeCalls;
  long busySlotSum;
  long maxStepTokens;
  /** Sum over finished requests of prefill time in whole milliseconds (llama.cpp). */
  long promptMillisFinished;
  /** Sum over finished requests of generation time in whole milliseconds (llama.cpp). */
  long predictedMillisFinished;

  // Gauges, now.
  int running;
  int waiting;
  long kvUsedTokens;
  long kvCapacityTokens;
  /** Sum over running requests of prompt + max_tokens (TGI's batch max tokens). */
  long batchMaxTokens;
  double genThroughput;
  double cacheHitRate;

  EngineStats(int index, Map<Kind, double[]> bounds, long kvCapacityTokens) {
    this.index = index;
    this.kvCapacityTokens = kvCapacityTokens;
    for (Map.Entry<Kind, double[]> e : bounds.entrySet()) {
      hists.put(e.getKey(), new Hist(e.getValue()));
    }
  }

  private EngineStats(EngineStats o) {
    index = o.index;
    for (Map.Entry<Kind, Hist> e : o.hists.entrySet()) {
      hists.put(e.getKey(), e.getValue().copy());
    }
    arrived = o.arrived;
    rejected = o.rejected;
    completed = o.completed;
    finishedStop = o.finishedStop;
    finishedLength = o.finishedLength;
    promptTokens = o.promptTokens;
    generationTokens = o.generationTokens;
    promptTokensFinished = o.promptTokensFinished;
    generationTokensFinished = o.generationTokensFinished;
    cachedTokensFinished = o.cachedTokensFinished;
    prefixQueries = o.prefixQueries;
    prefixHits = o.prefixHits;
    preemptions = o.preemptions;
    preemptedInputTokens = o.preemptedInputTokens;
    preemptedOutputTokens = o.preemptedOutputTokens;
    prefillCalls = o.prefillCalls;
    decodeCalls = o.decodeCalls;
    busySlotSum = o.busySlotSum;
    maxStepTokens = o.maxStepTokens;
    promptMillisFinished = o.promptMillisFinished;
    predictedMillisFinished = o.predictedMillisFinished;
    running = o.running;
    waiting = o.waiting;
    kvUsedTokens = o.kvUsedTokens;
    kvCapacityTokens = o.kvCapacityTokens;
    batchMaxTokens = o.batchMaxTokens;
    genThroughput = o.genThroughput;
    cacheHitRate = o.cacheHitRate;
  }

  EngineStats copy() {
    return new EngineStats(this);
  }

  /** Records {@code weight} observations of {@code value} in the histogram, if kept, and tells the listener. */
  void observe(Kind kind, double value, long weight) {
    double sumIncrement = value * weight;
    Hist h = hists.get(kind);
    if (h != null) {
      h.observe(value, weight, sumIncrement);
    }
    listener.observed(index, kind, value, weight);
  }

  /** The histogram of a kind, which the writer must have asked the model to keep. */
  Hist hist(Kind kind) {
    Hist h = hists.get(kind);
    if (h == null) {
      throw new IllegalStateException("histogram " + kind + " not kept");
    }
    return h;
  }

  double kvUsage() {
    return kvCapacityTokens == 0 ? 0 : (double) kvUsedTokens / kvCapacityTokens;
  }
}
