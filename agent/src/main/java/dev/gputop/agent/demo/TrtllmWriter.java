package dev.gputop.agent.demo;

import java.util.EnumMap;
import java.util.Map;

/**
 * TensorRT-LLM's {@code trtllm-serve} (2026, {@code tensorrt_llm/metrics/collector.py}, see
 * docs/engines/trtllm.md): names prefixed {@code trtllm_}, labels {@code engine_type, model_name}
 * (+ {@code finished_reason} on the success counter), written by prometheus_client's
 * multiprocess collector, so labels are sorted, a histogram's {@code _sum} comes before its
 * buckets, there are no {@code _created} series and no python/process families. The text format
 * is served at {@code /prometheus/metrics}; {@code /metrics} answers JSON iteration stats. There
 * is no generation-token counter and no preemption counter; the per-request TPOT histogram is the
 * closest it has to ITL. Thread-safe.
 */
final class TrtllmWriter implements ExpositionWriter {

  /** The path trtllm-serve serves the Prometheus text format on. */
  static final String PATH = "/prometheus/metrics";

  private final String modelName;
  private final Map<Kind, double[]> bounds = new EnumMap<>(Kind.class);

  TrtllmWriter(String modelName) {
    this.modelName = modelName;
    // The collector was adapted from vLLM's: the same bucket layouts.
    bounds.put(Kind.TTFT, VllmWriter.TTFT);
    bounds.put(Kind.TPOT, VllmWriter.TPOT);
    bounds.put(Kind.E2E, VllmWriter.REQUEST);
    bounds.put(Kind.QUEUE, VllmWriter.REQUEST);
  }

  @Override
  public String engine() {
    return "trtllm";
  }

  @Override
  public String path() {
    return PATH;
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
    StringBuilder b = new StringBuilder(16 * 1024);
    String labels = "engine_type=\"trtllm\",model_name=\"" + Fmt.escape(modelName) + "\"";

    Fmt.header(b, "trtllm_request_success_total", "Count of successfully processed requests.", "counter");
    if (e.finishedLength > 0) {
      sample(b, "trtllm_request_success_total", "{engine_type=\"trtllm\",finished_reason=\"length\",model_name=\""
          + Fmt.escape(modelName) + "\"}", e.finishedLength);
    }
    if (e.finishedStop > 0) {
      sample(b, "trtllm_request_success_total", "{engine_type=\"trtllm\",finished_reason=\"stop\",model_name=\""
          + Fmt.escape(modelName) + "\"}", e.finishedStop);
    }
    histogram(b, "trtllm_e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.",
        e.hist(Kind.E2E), labels);
    histogram(b, "trtllm_time_to_first_token_seconds", "Histogram of time to first token in seconds.",
        e.hist(Kind.TTFT), labels);
    histogram(b, "trtllm_time_per_output_token_seconds", "Histogram of time per output token in seconds.",
        e.hist(Kind.TPOT), labels);
    histogram(b, "trtllm_request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
        e.hist(Kind.QUEUE), labels);
    gauge(b, "trtllm_kv_cache_hit_rate", "KV cache hit rate", labels, e.cacheHitRate);
    gauge(b, "trtllm_kv_cache_utilization", "KV cache utilization", labels, e.kvUsage());
    counter(b, "trtllm_prompt_tokens_total", "Total prompt tokens processed.", labels, e.promptTokensFinished);
    counter(b, "trtllm_prompt_cached_tokens_total", "Total prompt tokens served from KV cache.", labels,
        e.cachedTokensFinished);
    gauge(b, "trtllm_server_queue_length", "Number of queued requests.", labels, e.waiting);
    gauge(b, "trtllm_num_active_requests", "Number of active requests in the batch.", labels, e.running);
    if (e.rejected > 0) {
      Fmt.header(b, "trtllm_request_error_total", "Total request errors, labeled by HTTP status code.", "counter");
      sample(b, "trtllm_request_error_total", "{engine_type=\"trtllm\",http_code=\"429\",model_name=\""
          + Fmt.escape(modelName) + "\"}", e.rejected);
    }
    return b.toString();
  }

  private static void sample(StringBuilder b, String name, String labels, double v) {
    b.append(name).append(labels).append(' ').append(Fmt.python(v)).append('\n');
  }

  private static void gauge(StringBuilder b, String name, String help, String labels, double v) {
    Fmt.header(b, name, help, "gauge");
    sample(b, name, "{" + labels + "}", v);
  }

  private static void counter(StringBuilder b, String name, String help, String labels, double v) {
    Fmt.header(b, name, help, "counter");
    sample(b, name, "{" + labels + "}", v);
  }

  /**
   * The multiprocess collector's order: {@code _sum}, the buckets (with {@code le} sorted between
   * {@code engine_type} and {@code model_name}), then {@code _count}; nothing before the first
   * observation.
   */
  private void histogram(StringBuilder b, String name, String help, Hist h, String labels) {
    Fmt.header(b, name, help, "histogram");
    if (h.count() == 0) {
      return;
    }
    sample(b, name + "_sum", "{" + labels + "}", h.sum());
    for (int i = 0; i <= h.size(); i++) {
      String le = i == h.size() ? "+Inf" : Fmt.pythonLe(h.bound(i));
      sample(b, name + "_bucket", "{engine_type=\"trtllm\",le=\"" + le + "\",model_name=\"" + Fmt.escape(modelName)
          + "\"}", h.cumulative(i));
    }
    sample(b, name + "_count", "{" + labels + "}", h.count());
  }
}
