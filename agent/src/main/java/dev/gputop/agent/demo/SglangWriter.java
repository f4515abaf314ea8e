package dev.gputop.agent.demo;

import java.util.EnumMap;
import java.util.Map;

/**
 * SGLang 0.5 with tensor parallelism (prometheus_client in multiprocess mode). Scheduler metrics
 * carry {@code engine_type, model_name, pp_rank, tp_rank} and are repeated once per TP rank with
 * identical values (every rank runs the same scheduler); tokenizer metrics carry only {@code
 * model_name} and appear only once first observed. Counts are at request finish (prompt and
 * generation tokens lag), {@code cached_tokens_total} is the prefix-cache hit counter, {@code
 * inter_token_latency_seconds} counts tokens, and there are no {@code _created} series and no
 * python/process families. Served with {@code --collect-tokens-histogram}, so it has the prompt
 * and generation token histograms. Thread-safe.
 */
final class SglangWriter implements ExpositionWriter {

  static final double[] TTFT = {0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400};
  static final double[] ITL = {
    0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035, 0.040, 0.060, 0.080, 0.100,
    0.200, 0.400, 0.600, 0.800, 1.000, 2.000, 4.000, 6.000, 8.000
  };
  static final double[] E2E = {
    0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600, 1200, 1800, 2400
  };
  static final double[] QUEUE = {
    0.0, 0.1, 0.2, 0.5, 1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 90, 100, 200, 300, 400,
    500, 600, 700, 800, 900, 1000, 1200, 1400, 1600, 1800, 2000, 2500, 3000
  };
  static final double[] RETRACTIONS = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 75, 100};
  /** default_bucket_prompt_tokens, which both token histograms use unless configured. */
  static final double[] TOKENS = {
    100, 300, 500, 700, 1000, 1500, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 12000,
    15000, 20000, 22000, 25000, 30000, 35000, 40000, 66000, 99000, 132000, 300000, 600000, 900000,
    1100000
  };

  private final String modelName;
  private final int tpSize;
  private final Map<Kind, double[]> bounds = new EnumMap<>(Kind.class);

  SglangWriter(String modelName, int tpSize) {
    this.modelName = modelName;
    this.tpSize = tpSize;
    bounds.put(Kind.TTFT, TTFT);
    bounds.put(Kind.ITL, ITL);
    bounds.put(Kind.E2E, E2E);
    bounds.put(Kind.QUEUE, QUEUE);
    bounds.put(Kind.PREEMPTIONS_PER_REQUEST, RETRACTIONS);
    bounds.put(Kind.PROMPT_TOKENS, TOKENS);
    bounds.put(Kind.GENERATION_TOKENS, TOKENS);
  }

  @Override
  public String engine() {
    return "sglang";
  }

  @Override
  public String contentType() {
    return "text/plain; version=0.0.4; charset=utf-8";
  }

  @Override
  public Map<Kind, double[]> histogramBounds() {
    return bounds;
  }

  @Override
  public String write(LoadModel.Stats st) {
    EngineStats e = st.engines().get(0);
    double uptime = (st.nowNanos() - st.startNanos()) / 1e9;
    StringBuilder b = new StringBuilder(32 * 1024);
    schedGauge(b, "sglang:num_running_reqs", "The number of running requests.", e.running);
    schedGauge(b, "sglang:num_used_tokens", "The number of used tokens.", e.kvUsedTokens);
    schedGauge(b, "sglang:token_usage", "The token usage.", e.kvUsage());
    schedGauge(b, "sglang:swa_token_usage", "The token usage for SWA layers.", 0);
    schedGauge(b, "sglang:gen_throughput", "The generation throughput (token/s).", e.genThroughput);
    schedGauge(b, "sglang:num_queue_reqs", "The number of requests in the waiting queue.", e.waiting);
    schedGauge(b, "sglang:num_grammar_queue_reqs", "The number of requests in the grammar waiting queue.", 0);
    schedGauge(b, "sglang:num_running_reqs_offline_batch",
        "The number of running low-priority offline batch requests(label is 'batch').", 0);
    schedGauge(b, "sglang:cache_hit_rate", "The prefix cache hit rate.", e.cacheHitRate);
    schedGauge(b, "sglang:max_total_num_tokens", "Maximum total number of tokens in the KV cache pool.", e.kvCapacityTokens);
    schedGauge(b, "sglang:spec_accept_length", "The average acceptance length of speculative decoding.", 0);
    schedGauge(b, "sglang:num_retracted_reqs", "The number of retracted requests.", 0);
    schedCounter(b, "sglang:num_retracted_requests_total", "Total number of retracted requests.", e.preemptions);
    schedCounter(b, "sglang:num_retracted_input_tokens_total", "Total number of retracted input tokens.", e.preemptedInputTokens);
    schedCounter(b, "sglang:num_retracted_output_tokens_total", "Total number of retracted output tokens.", e.preemptedOutputTokens);
    schedGauge(b, "sglang:utilization", "The utilization.", (double) e.running / st.settings().maxRunning());
    schedGauge(b, "sglang:engine_startup_time", "The time taken for the engine to start up.", 41.6);
    schedGauge(b, "sglang:engine_load_weights_time", "The time taken for the engine to load weights.", 9.2);
    schedGauge(b, "sglang:new_token_ratio", "The new token ratio.", uptime < 60 ? 0.7 : 0.41);
    schedGauge(b, "sglang:is_cuda_graph", "Whether the batch is using CUDA graph.", e.running > 0 ? 1 : 0);
    Fmt.header(b, "sglang:queue_time_seconds", "Histogram of queueing time in seconds.", "histogram");
    for (int rank = 0; rank < tpSize; rank++) {
      histogramSamples(b, "sglang:queue_time_seconds", e.hist(Kind.QUEUE), SCHED_PREFIX, schedLabels(rank));
    }

    if (e.completed > 0) {
      tokCounter(b, "sglang:prompt_tokens_total", "Number of prefill tokens processed.", e.promptTokensFinished);
      tokCounter(b, "sglang:generation_tokens_total", "Number of generation tokens processed.", e.generationTokensFinished);
      if (e.cachedTokensFinished > 0) {
        tokCounter(b, "sglang:cached_tokens_total", "Number of cached prompt tokens.", e.cachedTokensFinished);
      }
      tokCounter(b, "sglang:num_requests_total", "Number of requests processed.", e.completed);
    }
    tokHistogram(b, "sglang:time_to_first_token_seconds", "Histogram of time to first token in seconds.", e.hist(Kind.TTFT));
    tokHistogram(b, "sglang:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", e.hist(Kind.ITL));
    tokHistogram(b, "sglang:e2e_request_latency_seconds", "Histogram of End-to-end request latency in seconds", e.hist(Kind.E2E));
    tokHistogram(b, "sglang:num_retractions", "Histogram of retraction counts per request.", e.hist(Kind.PREEMPTIONS_PER_REQUEST));
    // Served with --collect-tokens-histogram: one observation of each per finished request.
    tokHistogram(b, "sglang:prompt_tokens_histogram", "Histogram of prompt token length.", e.hist(Kind.PROMPT_TOKENS));
    tokHistogram(b, "sglang:generation_tokens_histogram", "Histogram of generation token length.", e.hist(Kind.GENERATION_TOKENS));
    return b.toString();
  }

  /** The scheduler labels before {@code le} (labels are sorted by name). */
  private static final String SCHED_PREFIX = "{engine_type=\"unified\",";

  private String schedLabels(int rank) {
    return "model_name=\"" + Fmt.escape(modelName) + "\",pp_rank=\"0\",tp_rank=\"" + rank + "\"}";
  }

  private void schedGauge(StringBuilder b, String name, String help, double v) {
    schedFamily(b, name, help, "gauge", v);
  }

  private void schedCounter(StringBuilder b, String name, String help, double v) {
    schedFamily(b, name, help, "counter", v);
  }

  /** One scheduler family: the same value once per TP rank (every rank runs the same scheduler). */
  private void schedFamily(StringBuilder b, String name, String help, String type, double v) {
    Fmt.header(b, name, help, type);
    String value = Fmt.python(v);
    for (int rank = 0; rank < tpSize; rank++) {
      b.append(name).append(SCHED_PREFIX).append(schedLabels(rank)).append(' ').append(value).append('\n');
    }
  }

  private void tokCounter(StringBuilder b, String name, String help, double v) {
    Fmt.header(b, name, help, "counter");
    b.append(name).append("{model_name=\"").append(Fmt.escape(modelName)).append("\"} ").append(Fmt.python(v)).append('\n');
  }

  private void tokHistogram(StringBuilder b, String name, String help, Hist h) {
    if (h.count() == 0) {
      return; // multiprocess mode: a series exists only once observed
    }
    Fmt.header(b, name, help, "histogram");
    histogramSamples(b, name, h, "{", "model_name=\"" + Fmt.escape(modelName) + "\"}");
  }

  /** Buckets, then _count, then _sum; {@code le} sorts between the two label halves. */
  private static void histogramSamples(StringBuilder b, String name, Hist h, String before, String after) {
    for (int i = 0; i <= h.size(); i++) {
      String le = i == h.size() ? "+Inf" : Fmt.pythonLe(h.bound(i));
      b.append(name).append("_bucket").append(before).append("le=\"").append(le).append("\",").append(after)
          .append(' ').append(Fmt.python(h.cumulative(i))).append('\n');
    }
    String labels = before + after;
    b.append(name).append("_count").append(labels).append(' ').append(Fmt.python(h.count())).append('\n');
    b.append(name).append("_sum").append(labels).append(' ').append(Fmt.python(h.sum())).append('\n');
  }

}
