package dev.gputop.agent.demo;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * vLLM 0.11 (V1 engine) with data parallelism: every series is repeated per {@code engine} rank,
 * written by Python's prometheus_client in text format 0.0.4, so counters and histograms are
 * followed by their {@code _created} series (as vLLM 0.10/0.11 do, see production-stack issue
 * #617), numbers are Python floats ({@code 1.0}, {@code 1.7537953269352946e+09}), labels are
 * sorted, and the {@code python_*}/{@code process_*} families come first. The deprecated
 * {@code time_per_output_token_seconds} is still shown beside its replacement {@code
 * inter_token_latency_seconds}; the {@code gpu_*} names hidden since 0.11 are not. Thread-safe.
 */
final class VllmWriter implements ExpositionWriter {

  static final double[] TTFT = {
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
    20.0, 40.0, 80.0, 160.0, 640.0, 2560.0
  };
  static final double[] TPOT = {
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0
  };
  static final double[] REQUEST = {
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
    480.0, 960.0, 1920.0, 7680.0
  };
  static final double[] ITERATION = {1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  static final double[] PARAMS_N = {1, 2, 5, 10, 20};

  private final String modelName;
  private final Map<Kind, double[]> bounds = new EnumMap<>(Kind.class);

  VllmWriter(String modelName, int maxModelLen) {
    this.modelName = modelName;
    double[] tokens = build125(maxModelLen);
    bounds.put(Kind.PROMPT_TOKENS, tokens);
    bounds.put(Kind.GENERATION_TOKENS, tokens);
    bounds.put(Kind.MAX_TOKENS, tokens);
    bounds.put(Kind.ITERATION_TOKENS, ITERATION);
    bounds.put(Kind.PARAMS_N, PARAMS_N);
    bounds.put(Kind.TTFT, TTFT);
    bounds.put(Kind.ITL, TPOT);
    bounds.put(Kind.TPOT, TPOT);
    bounds.put(Kind.E2E, REQUEST);
    bounds.put(Kind.QUEUE, REQUEST);
    bounds.put(Kind.INFERENCE, REQUEST);
    bounds.put(Kind.PREFILL, REQUEST);
    bounds.put(Kind.DECODE, REQUEST);
  }

  /** vLLM's build_1_2_5_buckets: 1, 2, 5, 10, 20, 50, … up to max. */
  static double[] build125(int max) {
    List<Double> out = new ArrayList<>();
    int[] mantissa = {1, 2, 5};
    for (long exp = 1; ; exp *= 10) {
      for (int m : mantissa) {
        long v = m * exp;
        if (v > max) {
          return out.stream().mapToDouble(Double::doubleValue).toArray();
        }
        out.add((double) v);
      }
    }
  }

  @Override
  public String engine() {
    return "vllm";
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
    return render(st, false);
  }

  @Override
  public String openMetricsContentType() {
    return "application/openmetrics-text; version=1.0.0; charset=utf-8";
  }

  /**
   * What prometheus_client answers when the request accepts {@code application/openmetrics-text}
   * (vLLM's make_asgi_app negotiates): counter families named without {@code _total}, each
   * series' {@code _created} right after it, and {@code # EOF}.
   */
  @Override
  public String writeOpenMetrics(LoadModel.Stats st) {
    return render(st, true);
  }

  private String render(LoadModel.Stats st, boolean om) {
    StringBuilder b = new StringBuilder(64 * 1024);
    PythonNoise.write(b, st, 4.2, om);
    List<EngineStats> es = st.engines();
    double created = st.startEpochNanos() / 1e9 + 0.43;

    gauge(b, "vllm:num_requests_running", "Number of requests in model execution batches.", es, e -> e.running);
    gauge(b, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", es, e -> e.waiting);
    String sleepHelp = "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; "
        + "weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.";
    Fmt.header(b, "vllm:engine_sleep_state", sleepHelp, "gauge");
    for (String state : new String[] {"awake", "weights_offloaded", "discard_all"}) {
      for (EngineStats e : es) {
        sample(b, "vllm:engine_sleep_state", labels(e, "sleep_state", state), state.equals("awake") ? 1 : 0);
      }
    }
    gauge(b, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", es, EngineStats::kvUsage);
    counter(b, "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", es, e -> e.prefixQueries, created, om);
    counter(b, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", es, e -> e.prefixHits, created, om);
    counter(b, "vllm:mm_cache_queries", "Multi-modal cache queries, in terms of number of queried items.", es, e -> 0, created, om);
    counter(b, "vllm:mm_cache_hits", "Multi-modal cache hits, in terms of number of cached items.", es, e -> 0, created, om);
    counter(b, "vllm:num_preemptions", "Cumulative number of preemption from the engine.", es, e -> e.preemptions, created, om);
    counter(b, "vllm:prompt_tokens", "Number of prefill tokens processed.", es, e -> e.promptTokens, created, om);
    counter(b, "vllm:generation_tokens", "Number of generation tokens processed.", es, e -> e.generationTokens, created, om);

    String successHelp = "Count of successfully processed requests.";
    Fmt.header(b, om ? "vllm:request_success" : "vllm:request_success_total", successHelp, "counter");
    String[] reasons = {"stop", "length", "abort"};
    for (String reason : reasons) {
      for (EngineStats e : es) {
        long v = reason.equals("stop") ? e.finishedStop : reason.equals("length") ? e.finishedLength : 0;
        sample(b, "vllm:request_success_total", labels(e, "finished_reason", reason), v);
        if (om) {
          sample(b, "vllm:request_success_created", labels(e, "finished_reason", reason), created);
        }
      }
    }
    if (!om) {
      Fmt.header(b, "vllm:request_success_created", successHelp, "gauge");
      for (String reason : reasons) {
        for (EngineStats e : es) {
          sample(b, "vllm:request_success_created", labels(e, "finished_reason", reason), created);
        }
      }
    }

    histogram(b, "vllm:request_prompt_tokens", "Number of prefill tokens processed.", es, Kind.PROMPT_TOKENS, created, om);
    histogram(b, "vllm:request_generation_tokens", "Number of generation tokens processed.", es, Kind.GENERATION_TOKENS, created, om);
    histogram(b, "vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", es, Kind.ITERATION_TOKENS, created, om);
    histogram(b, "vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", es, Kind.MAX_TOKENS, created, om);
    histogram(b, "vllm:request_params_n", "Histogram of the n request parameter.", es, Kind.PARAMS_N, created, om);
    histogram(b, "vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", es, Kind.MAX_TOKENS, created, om);
    histogram(b, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", es, Kind.TTFT, created, om);
    histogram(b, "vllm:time_per_output_token_seconds",
        "Histogram of time per output token in seconds. DEPRECATED: Use vllm:inter_token_latency_seconds instead.",
        es, Kind.ITL, created, om);
    histogram(b, "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", es, Kind.ITL, created, om);
    histogram(b, "vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", es, Kind.TPOT, created, om);
    histogram(b, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", es, Kind.E2E, created, om);
    histogram(b, "vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", es, Kind.QUEUE, created, om);
    histogram(b, "vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", es, Kind.INFERENCE, created, om);
    histogram(b, "vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", es, Kind.PREFILL, created, om);
    histogram(b, "vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", es, Kind.DECODE, created, om);

    Fmt.header(b, "vllm:cache_config_info", "Information of the LLMEngine CacheConfig", "gauge");
    for (EngineStats e : es) {
      String l = "{block_size=\"16\",cache_dtype=\"auto\",cpu_offload_gb=\"0\",enable_prefix_caching=\"True\","
          + "engine=\"" + e.index + "\",gpu_memory_utilization=\"0.9\",num_cpu_blocks=\"None\","
          + "num_gpu_blocks=\"" + (e.kvCapacityTokens / 16) + "\",num_gpu_blocks_override=\"None\","
          + "prefix_caching_hash_algo=\"sha256\",sliding_window=\"None\",swap_space=\"4\","
          + "swap_space_bytes=\"4294967296\"}";
      b.append("vllm:cache_config_info").append(l).append(' ').append(Fmt.python(1)).append('\n');
    }
    if (om) {
      b.append("# EOF\n");
    }
    return b.toString();
  }

  private interface Value {
    double of(EngineStats e);
  }

  /** Labels as prometheus_client writes them: sorted by name. */
  private String labels(EngineStats e, String... extra) {
    java.util.TreeMap<String, String> l = new java.util.TreeMap<>();
    l.put("engine", Integer.toString(e.index));
    l.put("model_name", modelName);
    for (int i = 0; i < extra.length; i += 2) {
      l.put(extra[i], extra[i + 1]);
    }
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, String> x : l.entrySet()) {
      if (b.length() > 1) {
        b.append(',');
      }
      b.append(x.getKey()).append("=\"").append(Fmt.escape(x.getValue())).append('"');
    }
    return b.append('}').toString();
  }


  private static void sample(StringBuilder b, String name, String labels, double v) {
    b.append(name).append(labels).append(' ').append(Fmt.python(v)).append('\n');
  }

  private void gauge(StringBuilder b, String name, String help, List<EngineStats> es, Value v) {
    Fmt.header(b, name, help, "gauge");
    for (EngineStats e : es) {
      sample(b, name, labels(e), v.of(e));
    }
  }

  /**
   * A counter family: text format names the family {@code _total} and writes the {@code _created}
   * series as a gauge family after it; OpenMetrics names it without {@code _total} and puts each
   * series' {@code _created} right after it.
   */
  private void counter(StringBuilder b, String base, String help, List<EngineStats> es, Value v, double created, boolean om) {
    Fmt.header(b, om ? base : base + "_total", help, "counter");
    for (EngineStats e : es) {
      sample(b, base + "_total", labels(e), v.of(e));
      if (om) {
        sample(b, base + "_created", labels(e), created(e, created));
      }
    }
    if (!om) {
      createdFamily(b, base, help, es, created);
    }
  }

  private void histogram(StringBuilder b, String name, String help, List<EngineStats> es, Kind kind, double created, boolean om) {
    Fmt.header(b, name, help, "histogram");
    for (EngineStats e : es) {
      Hist h = e.hist(kind);
      for (int i = 0; i <= h.size(); i++) {
        String le = i == h.size() ? "+Inf" : Fmt.pythonLe(h.bound(i));
        // "engine" < "le" < "model_name": the sorted order without building a map per bucket
        String l = "{engine=\"" + e.index + "\",le=\"" + le + "\",model_name=\"" + Fmt.escape(modelName) + "\"}";
        sample(b, name + "_bucket", l, h.cumulative(i));
      }
      sample(b, name + "_count", labels(e), h.count());
      sample(b, name + "_sum", labels(e), h.sum());
      if (om) {
        sample(b, name + "_created", labels(e), created(e, created));
      }
    }
    if (!om) {
      createdFamily(b, name, help, es, created);
    }
  }

  /** The text format's {@code _created} gauge family that follows a counter or histogram family. */
  private void createdFamily(StringBuilder b, String name, String help, List<EngineStats> es, double created) {
    Fmt.header(b, name + "_created", help, "gauge");
    for (EngineStats e : es) {
      sample(b, name + "_created", labels(e), created(e, created));
    }
  }

  /** The {@code _created} timestamp of an engine's series: the ranks registered 0.1 ms apart. */
  private static double created(EngineStats e, double created) {
    return created + e.index * 0.0001;
  }
}
