package dev.gputop.agent.demo;

import java.util.EnumMap;
import java.util.Map;

/**
 * Hugging Face TGI 3.x (Rust router, metrics-exporter-prometheus): no model labels, counters
 * without {@code _total}, a blank line after every family, TYPE without HELP for families that
 * were never described ({@code tgi_batch_concat}, {@code tgi_request_failure}, {@code
 * tgi_batch_max_total_tokens}), durations in 35 buckets of 0.0001·1.5^k seconds, token lengths in
 * 100 linear buckets, {@code tgi_request_skipped_tokens} as a summary, histogram {@code _sum}
 * before {@code _count}, numbers in Rust's shortest form ({@code 109}, {@code
 * 0.00015000000000000001}), and families that appear only once used. No TTFT and no KV-cache
 * gauge. Thread-safe.
 */
final class TgiWriter implements ExpositionWriter {

  static final double[] DURATION = durationBuckets();

  private final Map<Kind, double[]> bounds = new EnumMap<>(Kind.class);

  TgiWriter(int maxInputTokens, int maxTotalTokens) {
    bounds.put(Kind.E2E, DURATION);
    bounds.put(Kind.VALIDATION, DURATION);
    bounds.put(Kind.QUEUE, DURATION);
    bounds.put(Kind.INFERENCE, DURATION);
    bounds.put(Kind.TPOT, DURATION);
    bounds.put(Kind.BATCH_PREFILL, DURATION);
    bounds.put(Kind.BATCH_DECODE, DURATION);
    bounds.put(Kind.PROMPT_TOKENS, linear(maxInputTokens));
    bounds.put(Kind.GENERATION_TOKENS, linear(maxTotalTokens));
    bounds.put(Kind.MAX_TOKENS, linear(maxTotalTokens));
  }

  /**
   * 0.0001 · 1.5^k for k = 1..35, multiplied step by step as the router computes them (so the
   * bounds carry the same rounding, e.g. {@code 0.0011390624999999999}).
   */
  static double[] durationBuckets() {
    double[] b = new double[35];
    double x = 0.0001;
    for (int k = 0; k < 35; k++) {
      x *= 1.5;
      b[k] = x;
    }
    return b;
  }

  /** (max / 100) · (i + 1) for i = 0..99 (so the last bound can be {@code 4095.0000000000005}). */
  static double[] linear(int max) {
    double[] b = new double[100];
    double step = max / 100.0;
    for (int i = 0; i < 100; i++) {
      b[i] = step * (i + 1);
    }
    return b;
  }

  @Override
  public String engine() {
    return "tgi";
  }

  @Override
  public String contentType() {
    return "text/plain; charset=utf-8";
  }

  @Override
  public Map<Kind, double[]> histogramBounds() {
    return bounds;
  }

  @Override
  public String write(LoadModel.Stats st) {
    EngineStats e = st.engines().get(0);
    StringBuilder b = new StringBuilder(64 * 1024);
    if (e.completed > 0) {
      counter(b, "tgi_request_success", "Number of successful requests", "", e.completed);
    }
    if (e.prefillCalls > 1) {
      counter(b, "tgi_batch_concat", null, "{reason=\"chunking\"}", e.prefillCalls - 1);
    }
    if (e.arrived > 0) {
      counter(b, "tgi_request_count", "Total number of requests", "", e.arrived);
    }
    if (e.rejected > 0) {
      counter(b, "tgi_request_failure", null, "{err=\"validation\"}", e.rejected);
    }
    if (e.prefillCalls > 0) {
      counter2(b, "tgi_batch_inference_success",
          "Number of successful inference calls per method (prefill or decode)", e.prefillCalls, e.decodeCalls);
      counter2(b, "tgi_batch_inference_count", "Inference calls per method (prefill or decode)", e.prefillCalls, e.decodeCalls);
    }
    gauge(b, "tgi_queue_size", "Current queue size", e.waiting);
    gauge(b, "tgi_batch_current_max_tokens", "Maximum tokens for the current batch", e.batchMaxTokens);
    gauge(b, "tgi_batch_current_size", "Current batch size", e.running);
    histogram(b, "tgi_request_input_length", "Input token length per request", e.hist(Kind.PROMPT_TOKENS));
    histogram(b, "tgi_request_max_new_tokens", "Maximum new tokens per request", e.hist(Kind.MAX_TOKENS));
    histogram(b, "tgi_request_inference_duration", "Request inference duration", e.hist(Kind.INFERENCE));
    if (e.completed > 0) {
      b.append("# HELP tgi_request_skipped_tokens Speculated tokens per request\n");
      b.append("# TYPE tgi_request_skipped_tokens summary\n");
      for (String q : new String[] {"0", "0.5", "0.9", "0.95", "0.99", "0.999", "1"}) {
        b.append("tgi_request_skipped_tokens{quantile=\"").append(q).append("\"} 0\n");
      }
      b.append("tgi_request_skipped_tokens_sum 0\n");
      b.append("tgi_request_skipped_tokens_count ").append(e.completed).append("\n\n");
    }
    histogram(b, "tgi_request_duration", "Total time spent processing the request", e.hist(Kind.E2E));
    histogram(b, "tgi_request_validation_duration", "Time spent validating the request", e.hist(Kind.VALIDATION));
    histogram(b, "tgi_request_queue_duration", "Time spent in the queue per request", e.hist(Kind.QUEUE));
    histogram(b, "tgi_request_mean_time_per_token_duration", "Mean time per token per request", e.hist(Kind.TPOT));
    histogram(b, "tgi_request_generated_tokens", "Generated tokens per request", e.hist(Kind.GENERATION_TOKENS));
    methodHistogram(b, "tgi_batch_forward_duration", "Batch forward duration per method (prefill or decode)", e);
    methodHistogram(b, "tgi_batch_inference_duration", "Batch inference duration", e);
    if (e.arrived > 0) {
      b.append("# TYPE tgi_batch_max_total_tokens gauge\n");
      b.append("tgi_batch_max_total_tokens ").append(e.kvCapacityTokens).append("\n\n");
    }
    return b.toString();
  }

  private static void counter(StringBuilder b, String name, String help, String labels, long v) {
    if (help != null) {
      b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    }
    b.append("# TYPE ").append(name).append(" counter\n");
    b.append(name).append(labels).append(' ').append(v).append("\n\n");
  }

  private static void counter2(StringBuilder b, String name, String help, long prefill, long decode) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" counter\n");
    b.append(name).append("{method=\"prefill\"} ").append(prefill).append('\n');
    b.append(name).append("{method=\"decode\"} ").append(decode).append("\n\n");
  }

  private static void gauge(StringBuilder b, String name, String help, double v) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" gauge\n");
    b.append(name).append(' ').append(Fmt.rust(v)).append("\n\n");
  }

  private static void histogram(StringBuilder b, String name, String help, Hist h) {
    if (h.count() == 0) {
      return; // the metrics crate registers a histogram on its first observation
    }
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" histogram\n");
    samples(b, name, "", h);
    b.append('\n');
  }

  private static void methodHistogram(StringBuilder b, String name, String help, EngineStats e) {
    Hist prefill = e.hist(Kind.BATCH_PREFILL);
    Hist decode = e.hist(Kind.BATCH_DECODE);
    if (prefill.count() == 0 && decode.count() == 0) {
      return;
    }
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" histogram\n");
    if (decode.count() > 0) {
      samples(b, name, "method=\"decode\"", decode);
    }
    if (prefill.count() > 0) {
      samples(b, name, "method=\"prefill\"", prefill);
    }
    b.append('\n');
  }

  private static void samples(StringBuilder b, String name, String labels, Hist h) {
    String prefix = labels.isEmpty() ? "{" : "{" + labels + ",";
    for (int i = 0; i <= h.size(); i++) {
      String le = i == h.size() ? "+Inf" : Fmt.rustLe(h.bound(i));
      b.append(name).append("_bucket").append(prefix).append("le=\"").append(le).append("\"} ")
          .append(h.cumulative(i)).append('\n');
    }
    String l = labels.isEmpty() ? "" : "{" + labels + "}";
    b.append(name).append("_sum").append(l).append(' ').append(Fmt.rust(h.sum())).append('\n');
    b.append(name).append("_count").append(l).append(' ').append(h.count()).append('\n');
  }
}
