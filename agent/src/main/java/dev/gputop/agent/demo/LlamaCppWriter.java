package dev.gputop.agent.demo;

import java.util.Map;

/**
 * llama.cpp {@code llama-server --metrics}: hand-written text, no labels, counters first, numbers
 * as C++ streams print them ({@code %g}, six significant digits, so {@code 1.23457e+06}), a
 * {@code Process-Start-Time-Unix} header that is really a monotonic microsecond clock. Token and
 * time totals move only when a request finishes, and times are whole milliseconds. The two
 * throughput gauges describe the requests finished since the previous read and start over on
 * every read ({@code 0} when none, {@code inf} when they took no measurable time). {@code
 * n_busy_slots_per_decode} is typed counter but is an average. Builds from May 2025 on have no
 * KV-cache gauges; {@code legacyKvCache} emulates an older build (b4748) that has them and lacks
 * {@code n_tokens_max}.
 *
 * <p>Thread-safe: the per-read state is guarded by the writer.
 */
final class LlamaCppWriter implements ExpositionWriter {

  private final boolean legacyKvCache;
  private final long monotonicStartMicros;

  // What the previous read saw, for the gauges that reset on every read.
  private int lastGeneration = -1;
  private long lastPromptTokens;
  private long lastPromptMillis;
  private long lastPredictedTokens;
  private long lastPredictedMillis;

  LlamaCppWriter(boolean legacyKvCache, long monotonicStartMicros) {
    this.legacyKvCache = legacyKvCache;
    this.monotonicStartMicros = monotonicStartMicros;
  }

  @Override
  public String engine() {
    return "llamacpp";
  }

  @Override
  public String contentType() {
    return "text/plain; version=0.0.4";
  }

  @Override
  public Map<Kind, double[]> histogramBounds() {
    return Map.of();
  }

  @Override
  public String[] headers(LoadModel.Stats st) {
    long micros = monotonicStartMicros + (st.startNanos() / 1000);
    return new String[] {"Process-Start-Time-Unix", Long.toString(micros)};
  }

  @Override
  public synchronized String write(LoadModel.Stats st) {
    EngineStats e = st.engines().get(0);
    if (st.generation() != lastGeneration) {
      lastGeneration = st.generation();
      lastPromptTokens = lastPromptMillis = lastPredictedTokens = lastPredictedMillis = 0;
    }
    double promptRate = rate(e.promptTokensFinished - lastPromptTokens, e.promptMillisFinished - lastPromptMillis);
    double predictedRate = rate(e.generationTokensFinished - lastPredictedTokens, e.predictedMillisFinished - lastPredictedMillis);
    lastPromptTokens = e.promptTokensFinished;
    lastPromptMillis = e.promptMillisFinished;
    lastPredictedTokens = e.generationTokensFinished;
    lastPredictedMillis = e.predictedMillisFinished;

    StringBuilder b = new StringBuilder(2048);
    metric(b, "prompt_tokens_total", "Number of prompt tokens processed.", "counter", e.promptTokensFinished);
    metric(b, "prompt_seconds_total", "Prompt process time", "counter", e.promptMillisFinished / 1e3);
    metric(b, "tokens_predicted_total", "Number of generation tokens processed.", "counter", e.generationTokensFinished);
    metric(b, "tokens_predicted_seconds_total", "Predict process time", "counter", e.predictedMillisFinished / 1e3);
    metric(b, "n_decode_total", "Total number of llama_decode() calls", "counter", e.decodeCalls);
    metric(b, "n_busy_slots_per_decode", "Average number of busy slots per llama_decode() call", "counter",
        (float) e.busySlotSum / Math.max((float) e.decodeCalls, 1f));
    if (!legacyKvCache) {
      metric(b, "n_tokens_max", "Largest observed n_tokens.", "counter", e.maxStepTokens);
    }
    metric(b, "prompt_tokens_seconds", "Average prompt throughput in tokens/s.", "gauge", promptRate);
    metric(b, "predicted_tokens_seconds", "Average generation throughput in tokens/s.", "gauge", predictedRate);
    if (legacyKvCache) {
      metric(b, "kv_cache_usage_ratio", "KV-cache usage. 1 means 100 percent usage.", "gauge", e.kvUsage());
      metric(b, "kv_cache_tokens", "KV-cache tokens.", "gauge", e.kvUsedTokens);
    }
    metric(b, "requests_processing", "Number of requests processing.", "gauge", e.running);
    metric(b, "requests_deferred", "Number of requests deferred.", "gauge", e.waiting);
    return b.toString();
  }

  /** tokens / seconds the way llama.cpp computes it: 0 without tokens, inf without time. */
  private static double rate(long tokens, long millis) {
    return tokens == 0 ? 0 : 1e3 / millis * tokens;
  }

  private static void metric(StringBuilder b, String name, String help, String type, double v) {
    b.append("# HELP llamacpp:").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE llamacpp:").append(name).append(' ').append(type).append('\n');
    b.append("llamacpp:").append(name).append(' ').append(Fmt.cpp(v)).append('\n');
  }
}
