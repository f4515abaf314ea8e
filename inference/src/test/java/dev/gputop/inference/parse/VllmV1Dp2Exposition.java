package dev.gputop.inference.parse;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

/**
 * Writes {@code src/test/resources/fixtures/vllm/vllm-v1-dp2.prom}: what a vLLM 0.11-era V1 server
 * with data parallelism 2 ({@code engine="0"} and {@code "1"}) serving one model would answer on
 * {@code /metrics} in text format 0.0.4 after a few thousand requests. The metrics deprecated in
 * 0.10 and hidden in 0.11 ({@code gpu_cache_usage_perc}, {@code gpu_prefix_cache_*}) and the
 * opt-in ones ({@code kv_block_*}, spec decode, LoRA) are absent, as on a default server.
 *
 * <p>Written from the engine's metric definitions (reference/METRICS.md: names, types, labels,
 * bucket sets) and prometheus_client's text format (HELP/TYPE per family, labels sorted as in the
 * multiprocess collector, {@code _count} before {@code _sum}, {@code _created} series as separate
 * gauge families as vLLM 0.10 emits them), not captured from a server. Observations are drawn
 * from log-normal distributions with a fixed seed, so buckets, counts, sums and counters agree
 * with each other. {@code VllmV1Dp2ExpositionTest} checks that the committed file is this
 * program's output. Run {@code main} with the output path to regenerate it.
 */
final class VllmV1Dp2Exposition {

  static final String MODEL = "Qwen/Qwen3-8B";
  private static final int MAX_MODEL_LEN = 2048;

  private static final double[] B_TTFT = {
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
    20.0, 40.0, 80.0, 160.0, 640.0, 2560.0
  };
  private static final double[] B_TPOT = {
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0
  };
  private static final double[] B_REQ = {
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
    480.0, 960.0, 1920.0, 7680.0
  };
  private static final double[] B_ITER = {
    1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384
  };
  private static final double[] B_N = {1, 2, 5, 10, 20};

  private final StringBuilder out = new StringBuilder(70_000);
  private final Random random = new Random(20250801L);
  private final double created = 1753795326.9352946;
  private int createdStep;

  private VllmV1Dp2Exposition() {}

  static String generate() {
    return new VllmV1Dp2Exposition().write();
  }

  public static void main(String[] args) throws IOException {
    Path path = Path.of(args.length > 0 ? args[0] : "inference/src/test/resources/fixtures/vllm/vllm-v1-dp2.prom");
    Files.createDirectories(path.getParent());
    Files.write(path, generate().getBytes(StandardCharsets.UTF_8));
  }

  /** One engine's traffic: what its histograms and counters are made of. */
  private static final class Traffic {
    int requests;
    double[] prompt;
    double[] generation;
    double[] maxTokens;
    double[] ttft;
    double[] queue;
    double[] prefill;
    double[] decode;
    double[] inference;
    double[] e2e;
    double[] requestTpot;
    double[] itl;
    double[] iterationTokens;
    int stop;
    int length;
    int abort;
    int running;
    int waiting;
    double kvUsage;
    double cachedFraction;
    int preemptions;
  }

  private Traffic traffic(int requests, int running, int waiting) {
    Traffic t = new Traffic();
    t.requests = requests;
    t.prompt = new double[requests];
    t.generation = new double[requests];
    t.maxTokens = new double[requests];
    t.ttft = new double[requests];
    t.queue = new double[requests];
    t.prefill = new double[requests];
    t.decode = new double[requests];
    t.inference = new double[requests];
    t.e2e = new double[requests];
    t.requestTpot = new double[requests];
    double[][] gaps = new double[requests][];
    for (int i = 0; i < requests; i++) {
      t.prompt[i] = Math.min(MAX_MODEL_LEN - 256, Math.max(4, Math.round(logNormal(420, 0.9))));
      t.maxTokens[i] = new double[] {256, 512, 1024}[random.nextInt(3)];
      double gen = Math.max(1, Math.round(logNormal(180, 0.8)));
      if (gen >= t.maxTokens[i]) {
        gen = t.maxTokens[i];
        t.length++;
      } else if (random.nextInt(100) == 0) {
        t.abort++;
      } else {
        t.stop++;
      }
      t.generation[i] = gen;
      t.queue[i] = logNormal(0.015, 1.2);
      t.prefill[i] = 0.00012 * t.prompt[i] + logNormal(0.01, 0.4);
      double tpot = logNormal(0.021, 0.25);
      t.decode[i] = tpot * (gen - 1);
      t.requestTpot[i] = gen > 1 ? t.decode[i] / (gen - 1) : 0.0;
      t.ttft[i] = t.queue[i] + t.prefill[i] + logNormal(0.004, 0.3);
      t.inference[i] = t.prefill[i] + t.decode[i];
      t.e2e[i] = t.ttft[i] + t.decode[i] + logNormal(0.002, 0.3);
      // One inter-token gap per generated token after the first.
      gaps[i] = new double[(int) gen - 1];
      for (int k = 0; k < gaps[i].length; k++) {
        gaps[i][k] = tpot * logNormal(1.0, 0.35);
      }
    }
    t.itl = Arrays.stream(gaps).flatMapToDouble(Arrays::stream).toArray();
    // Every prompt and generated token went through some engine step.
    double tokens = sum(t.prompt) + sum(t.generation);
    double[] iterations = new double[(int) tokens];
    int steps = 0;
    for (double left = tokens; left > 0; ) {
      double step = Math.min(left, Math.max(1, Math.round(logNormal(24, 1.1))));
      iterations[steps++] = step;
      left -= step;
    }
    t.iterationTokens = Arrays.copyOf(iterations, steps);
    t.running = running;
    t.waiting = waiting;
    t.kvUsage = 0.05 + 0.4 * random.nextDouble();
    t.cachedFraction = 0.3 + 0.2 * random.nextDouble();
    t.preemptions = random.nextInt(8);
    return t;
  }

  private double logNormal(double median, double sigma) {
    return median * Math.exp(sigma * random.nextGaussian());
  }

  private String write() {
    Traffic[] engines = {traffic(1873, 14, 2), traffic(1791, 11, 0)};
    header();
    gauge("vllm:num_requests_running", "Number of requests in model execution batches.", engines, t -> t.running);
    gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", engines, t -> t.waiting);
    gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", engines, t -> t.kvUsage);
    counter(
        "vllm:prefix_cache_queries",
        "Prefix cache queries, in terms of number of queried tokens.",
        engines,
        t -> sum(t.prompt));
    counter(
        "vllm:prefix_cache_hits",
        "Prefix cache hits, in terms of number of cached tokens.",
        engines,
        t -> Math.floor(sum(t.prompt) * t.cachedFraction / 16) * 16);
    counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", engines, t -> t.preemptions);
    counter("vllm:prompt_tokens", "Number of prefill tokens processed.", engines, t -> sum(t.prompt));
    counter("vllm:generation_tokens", "Number of generation tokens processed.", engines, t -> sum(t.generation));
    requestSuccess(engines);
    histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.", b125(), engines, t -> t.prompt);
    histogram(
        "vllm:request_generation_tokens", "Number of generation tokens processed.", b125(), engines, t -> t.generation);
    histogram(
        "vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", B_ITER, engines,
        t -> t.iterationTokens);
    histogram(
        "vllm:request_max_num_generation_tokens",
        "Histogram of maximum number of requested generation tokens.",
        b125(),
        engines,
        t -> t.maxTokens);
    histogram(
        "vllm:request_params_n", "Histogram of the n request parameter.", B_N, engines, t -> ones(t.requests));
    histogram(
        "vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", b125(), engines,
        t -> t.maxTokens);
    histogram(
        "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", B_TTFT, engines,
        t -> t.ttft);
    histogram(
        "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", B_TPOT, engines,
        t -> t.itl);
    histogram(
        "vllm:request_time_per_output_token_seconds",
        "Histogram of time_per_output_token_seconds per request.",
        B_TPOT,
        engines,
        t -> t.requestTpot);
    histogram(
        "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", B_REQ, engines,
        t -> t.e2e);
    histogram(
        "vllm:request_queue_time_seconds",
        "Histogram of time spent in WAITING phase for request.",
        B_REQ,
        engines,
        t -> t.queue);
    histogram(
        "vllm:request_inference_time_seconds",
        "Histogram of time spent in RUNNING phase for request.",
        B_REQ,
        engines,
        t -> t.inference);
    histogram(
        "vllm:request_prefill_time_seconds",
        "Histogram of time spent in PREFILL phase for request.",
        B_REQ,
        engines,
        t -> t.prefill);
    histogram(
        "vllm:request_decode_time_seconds",
        "Histogram of time spent in DECODE phase for request.",
        B_REQ,
        engines,
        t -> t.decode);
    cacheConfig();
    return out.toString();
  }

  private void header() {
    long[][] gc = {{14523, 3911, 1202}, {0, 0, 0}, {1876, 170, 14}};
    String[] names = {
      "python_gc_objects_collected_total", "python_gc_objects_uncollectable_total", "python_gc_collections_total"
    };
    String[] helps = {
      "Objects collected during gc", "Uncollectable objects found during GC",
      "Number of times this generation was collected"
    };
    for (int k = 0; k < 3; k++) {
      declare(names[k], helps[k], "counter");
      for (int g = 0; g < 3; g++) {
        out.append(names[k]).append("{generation=\"").append(g).append("\"} ").append(py(gc[k][g])).append('\n');
      }
    }
    declare("python_info", "Python platform information", "gauge");
    out.append("python_info{implementation=\"CPython\",major=\"3\",minor=\"12\",patchlevel=\"11\",version=\"3.12.11\"} 1.0\n");
    simple("process_virtual_memory_bytes", "Virtual memory size in bytes.", "gauge", 3.5718287360e10);
    simple("process_resident_memory_bytes", "Resident memory size in bytes.", "gauge", 2.812465152e09);
    simple("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", "gauge", 1.75379524178e09);
    simple("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", "counter", 2417.3300000000004);
    simple("process_open_fds", "Number of open file descriptors.", "gauge", 112.0);
    simple("process_max_fds", "Maximum number of open file descriptors.", "gauge", 1.048576e06);
  }

  private void simple(String name, String help, String type, double value) {
    declare(name, help, type);
    out.append(name).append(' ').append(py(value)).append('\n');
  }

  private void declare(String name, String help, String type) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  private interface Metric {
    double of(Traffic t);
  }

  private interface Observations {
    double[] of(Traffic t);
  }

  private static String labels(int engine) {
    return "engine=\"" + engine + "\",model_name=\"" + MODEL + "\"";
  }

  private void gauge(String name, String help, Traffic[] engines, Metric metric) {
    declare(name, help, "gauge");
    for (int e = 0; e < engines.length; e++) {
      out.append(name).append('{').append(labels(e)).append("} ").append(py(metric.of(engines[e]))).append('\n');
    }
  }

  private void counter(String name, String help, Traffic[] engines, Metric metric) {
    declare(name + "_total", help, "counter");
    for (int e = 0; e < engines.length; e++) {
      out.append(name).append("_total{").append(labels(e)).append("} ").append(py(metric.of(engines[e]))).append('\n');
    }
    createdFamily(name, help, engines.length, null);
  }

  private void requestSuccess(Traffic[] engines) {
    String name = "vllm:request_success";
    String help = "Count of successfully processed requests.";
    declare(name + "_total", help, "counter");
    String[] reasons = {"stop", "length", "abort"};
    for (int e = 0; e < engines.length; e++) {
      int[] counts = {engines[e].stop, engines[e].length, engines[e].abort};
      for (int r = 0; r < reasons.length; r++) {
        out.append(name).append("_total{engine=\"").append(e).append("\",finished_reason=\"").append(reasons[r])
            .append("\",model_name=\"").append(MODEL).append("\"} ").append(py(counts[r])).append('\n');
      }
    }
    createdFamily(name, help, engines.length, reasons);
  }

  private void histogram(String name, String help, double[] buckets, Traffic[] engines, Observations observations) {
    declare(name, help, "histogram");
    for (int e = 0; e < engines.length; e++) {
      double[] values = observations.of(engines[e]);
      for (double le : buckets) {
        long n = 0;
        for (double v : values) {
          if (v <= le) {
            n++;
          }
        }
        out.append(name).append("_bucket{engine=\"").append(e).append("\",le=\"").append(py(le))
            .append("\",model_name=\"").append(MODEL).append("\"} ").append(py(n)).append('\n');
      }
      out.append(name).append("_bucket{engine=\"").append(e).append("\",le=\"+Inf\",model_name=\"").append(MODEL)
          .append("\"} ").append(py(values.length)).append('\n');
      out.append(name).append("_count{").append(labels(e)).append("} ").append(py(values.length)).append('\n');
      out.append(name).append("_sum{").append(labels(e)).append("} ").append(py(sum(values))).append('\n');
    }
    createdFamily(name, help, engines.length, null);
  }

  private void createdFamily(String name, String help, int engines, String[] reasons) {
    declare(name + "_created", help, "gauge");
    for (int e = 0; e < engines; e++) {
      int n = reasons == null ? 1 : reasons.length;
      for (int r = 0; r < n; r++) {
        double t = created + 0.0000153 * (createdStep++) + e * 0.41;
        out.append(name).append("_created{engine=\"").append(e);
        if (reasons != null) {
          out.append("\",finished_reason=\"").append(reasons[r]);
        }
        out.append("\",model_name=\"").append(MODEL).append("\"} ").append(py(t)).append('\n');
      }
    }
  }

  private void cacheConfig() {
    declare("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", "gauge");
    for (int e = 0; e < 2; e++) {
      out.append("vllm:cache_config_info{block_size=\"16\",cache_dtype=\"auto\",calculate_kv_scales=\"False\","
          + "cpu_offload_gb=\"0\",enable_prefix_caching=\"True\",engine=\"").append(e)
          .append("\",gpu_memory_utilization=\"0.9\",is_attention_free=\"False\",num_cpu_blocks=\"None\","
              + "num_gpu_blocks=\"").append(e == 0 ? 29127 : 29131)
          .append("\",num_gpu_blocks_override=\"None\",prefix_caching_hash_algo=\"builtin\",sliding_window=\"None\","
              + "swap_space=\"4\",swap_space_bytes=\"4294967296\"} 1.0\n");
    }
  }

  private static double[] b125() {
    double[] b = new double[32];
    int n = 0;
    for (long scale = 1; ; scale *= 10) {
      for (int m : new int[] {1, 2, 5}) {
        if (m * scale > MAX_MODEL_LEN) {
          return Arrays.copyOf(b, n);
        }
        b[n++] = m * scale;
      }
    }
  }

  private static double[] ones(int n) {
    double[] d = new double[n];
    Arrays.fill(d, 1.0);
    return d;
  }

  private static double sum(double[] values) {
    double s = 0;
    for (double v : values) {
      s += v;
    }
    return s;
  }

  /**
   * A float as prometheus_client writes it ({@code floatToGoString}): Python's repr, except that
   * positive values with more than six digits before the point switch to an exponent written
   * {@code e+0} and the digit count, hence {@code 1.7537953269352946e+09} and {@code 3.5e+010}.
   */
  static String py(double v) {
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    String s = repr(v);
    int dot = s.indexOf('.');
    if (v > 0 && dot > 6) {
      String mantissa = (s.charAt(0) + "." + s.substring(1, dot) + s.substring(dot + 1)).replaceAll("[0.]+$", "");
      return mantissa + "e+0" + (dot - 1);
    }
    return s;
  }

  /** Python's repr of a float (shortest digits, exponent below 1e-4 and from 1e16). */
  static String repr(double v) {
    if (v == 0) {
      return "0.0";
    }
    BigDecimal d = new BigDecimal(Double.toString(v)).stripTrailingZeros();
    int exponent = d.precision() - d.scale() - 1;
    if (exponent >= -4 && exponent < 16) {
      String plain = d.toPlainString();
      return plain.contains(".") ? plain : plain + ".0";
    }
    String digits = d.unscaledValue().abs().toString();
    String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
    return (v < 0 ? "-" : "") + mantissa + (exponent < 0 ? "e-" : "e+") + String.format("%02d", Math.abs(exponent));
  }
}
