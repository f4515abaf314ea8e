package dev.gputop.benchmarks.scale;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A vLLM V1 server with data parallelism 2 ({@code engine="0"} and {@code engine="1"}), as its
 * {@code /metrics} answers in text format 0.0.4, that moves: each {@link #advance()} simulates the
 * requests finished since the last one, so counters and histogram buckets grow the way a busy
 * server's do. The families are those of a default V1 server (python_/process_ headers, the
 * scheduler gauges, token and request counters with their {@code _created} gauges, the four
 * latency histograms the agent reads), written the way prometheus_client writes them (sorted labels,
 * {@code 1.0}, {@code 1.7537953269352946e+09}); about 27 KB. Not thread-safe: the harness
 * advances it on one thread and publishes the rendered bytes.
 */
final class MovingVllmExposition {

  private static final String MODEL = "Qwen/Qwen3-8B";
  private static final double[] TTFT = {
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
    20.0, 40.0, 80.0, 160.0, 640.0, 2560.0
  };
  private static final double[] ITL = {
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0
  };
  private static final double[] REQUEST = {
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
    480.0, 960.0, 1920.0, 7680.0
  };

  /** One histogram family of one rank. */
  private static final class Hist {
    final double[] bounds;
    final double[] counts;
    double sum;
    double count;

    Hist(double[] bounds) {
      this.bounds = bounds;
      this.counts = new double[bounds.length + 1];
    }

    void observe(double v) {
      int i = 0;
      while (i < bounds.length && v > bounds[i]) {
        i++;
      }
      counts[i]++;
      sum += v;
      count++;
    }
  }

  /** The state of one data-parallel rank. */
  private static final class Rank {
    final String engine;
    final double created;
    double running;
    double waiting;
    double kvCache;
    double prefixQueries;
    double prefixHits;
    double preemptions;
    double promptTokens;
    double generationTokens;
    final double[] success = new double[3];
    final Hist ttft = new Hist(TTFT);
    final Hist itl = new Hist(ITL);
    final Hist e2e = new Hist(REQUEST);
    final Hist queue = new Hist(REQUEST);

    Rank(String engine, double created) {
      this.engine = engine;
      this.created = created;
    }
  }

  private static final String[] REASONS = {"stop", "length", "abort"};

  private final Random random;
  private final List<Rank> ranks = new ArrayList<>();
  private final double startTime;
  private double cpuSeconds;
  private long ticks;

  MovingVllmExposition(long seed) {
    this.random = new Random(seed);
    this.startTime = 1.7537953269352946e9;
    ranks.add(new Rank("0", startTime + 0.0123));
    ranks.add(new Rank("1", startTime + 0.0177));
    for (int i = 0; i < 100; i++) {
      advance();
    }
  }

  /** Moves the server on by one interval: a few requests finish on each rank. */
  void advance() {
    ticks++;
    cpuSeconds += 0.8 + random.nextDouble();
    for (Rank r : ranks) {
      int finished = 3 + random.nextInt(6);
      for (int i = 0; i < finished; i++) {
        int prompt = 50 + random.nextInt(1500);
        int generated = 20 + random.nextInt(600);
        double queue = Math.abs(random.nextGaussian()) * 0.05;
        double ttft = queue + 0.02 + prompt / 20000.0 + random.nextDouble() * 0.05;
        double itl = 0.012 + random.nextDouble() * 0.02;
        r.queue.observe(queue);
        r.ttft.observe(ttft);
        for (int t = 0; t < Math.min(generated, 8); t++) {
          r.itl.observe(itl * (0.8 + random.nextDouble() * 0.4));
        }
        r.e2e.observe(ttft + itl * generated);
        r.promptTokens += prompt;
        r.generationTokens += generated;
        r.prefixQueries += prompt;
        r.prefixHits += prompt * random.nextDouble() * 0.5;
        r.success[random.nextInt(10) == 0 ? 1 : 0]++;
      }
      if (random.nextInt(20) == 0) {
        r.preemptions++;
      }
      r.running = random.nextInt(16);
      r.waiting = random.nextInt(4);
      r.kvCache = Math.round(random.nextDouble() * 1000) / 1000.0;
    }
  }

  /** The exposition as the server would answer now. */
  byte[] render() {
    StringBuilder b = new StringBuilder(32 << 10);
    header(b);
    gauge(b, "vllm:num_requests_running",
        "Number of requests in model execution batches.", r -> r.running);
    gauge(b, "vllm:num_requests_waiting", "Number of requests waiting to be processed.",
        r -> r.waiting);
    gauge(b, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.",
        r -> r.kvCache);
    counter(b, "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried"
        + " tokens.", r -> r.prefixQueries);
    counter(b, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
        r -> r.prefixHits);
    counter(b, "vllm:num_preemptions", "Cumulative number of preemption from the engine.",
        r -> r.preemptions);
    counter(b, "vllm:prompt_tokens", "Number of prefill tokens processed.", r -> r.promptTokens);
    counter(b, "vllm:generation_tokens", "Number of generation tokens processed.",
        r -> r.generationTokens);
    String success = "vllm:request_success";
    b.append("# HELP ").append(success).append("_total Count of successfully processed requests.\n");
    b.append("# TYPE ").append(success).append("_total counter\n");
    for (Rank r : ranks) {
      for (int i = 0; i < REASONS.length; i++) {
        b.append(success).append("_total{engine=\"").append(r.engine)
            .append("\",finished_reason=\"").append(REASONS[i]).append("\",model_name=\"")
            .append(MODEL).append("\"} ").append(num(r.success[i])).append('\n');
      }
    }
    histogram(b, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
        r -> r.ttft);
    histogram(b, "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
        r -> r.itl);
    histogram(b, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
        r -> r.e2e);
    histogram(b, "vllm:request_queue_time_seconds",
        "Histogram of time spent in WAITING phase for request.", r -> r.queue);
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private interface Value {
    double of(Rank r);
  }

  private interface HistOf {
    Hist of(Rank r);
  }

  private void header(StringBuilder b) {
    b.append("# HELP python_gc_objects_collected_total Objects collected during gc\n")
        .append("# TYPE python_gc_objects_collected_total counter\n");
    for (int g = 0; g < 3; g++) {
      b.append("python_gc_objects_collected_total{generation=\"").append(g).append("\"} ")
          .append(num(1000 * (3 - g) + ticks * (g + 1))).append('\n');
    }
    b.append("# HELP python_gc_collections_total Number of times this generation was collected\n")
        .append("# TYPE python_gc_collections_total counter\n");
    for (int g = 0; g < 3; g++) {
      b.append("python_gc_collections_total{generation=\"").append(g).append("\"} ")
          .append(num(100 * (3 - g) + ticks / (g + 1))).append('\n');
    }
    b.append("# HELP python_info Python platform information\n# TYPE python_info gauge\n")
        .append("python_info{implementation=\"CPython\",major=\"3\",minor=\"12\",patchlevel=\"11\","
            + "version=\"3.12.11\"} 1.0\n");
    b.append("# HELP process_resident_memory_bytes Resident memory size in bytes.\n")
        .append("# TYPE process_resident_memory_bytes gauge\n")
        .append("process_resident_memory_bytes ").append(num(3.571828736e9 + ticks % 7 * 4096))
        .append('\n');
    b.append("# HELP process_start_time_seconds Start time of the process since unix epoch in"
        + " seconds.\n# TYPE process_start_time_seconds gauge\n")
        .append("process_start_time_seconds ").append(num(startTime - 30.5)).append('\n');
    b.append("# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n")
        .append("# TYPE process_cpu_seconds_total counter\n")
        .append("process_cpu_seconds_total ").append(num(Math.round(cpuSeconds * 100) / 100.0))
        .append('\n');
    b.append("# HELP process_open_fds Number of open file descriptors.\n"
        + "# TYPE process_open_fds gauge\nprocess_open_fds 67.0\n");
  }

  private void gauge(StringBuilder b, String name, String help, Value v) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" gauge\n");
    for (Rank r : ranks) {
      series(b, name, r, null).append(num(v.of(r))).append('\n');
    }
  }

  private void counter(StringBuilder b, String name, String help, Value v) {
    b.append("# HELP ").append(name).append("_total ").append(help).append('\n');
    b.append("# TYPE ").append(name).append("_total counter\n");
    for (Rank r : ranks) {
      series(b, name + "_total", r, null).append(num(v.of(r))).append('\n');
    }
    b.append("# HELP ").append(name).append("_created ").append(help).append('\n');
    b.append("# TYPE ").append(name).append("_created gauge\n");
    for (Rank r : ranks) {
      series(b, name + "_created", r, null).append(num(r.created)).append('\n');
    }
  }

  private void histogram(StringBuilder b, String name, String help, HistOf h) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" histogram\n");
    for (Rank r : ranks) {
      Hist x = h.of(r);
      double cumulative = 0;
      for (int i = 0; i <= x.bounds.length; i++) {
        cumulative += x.counts[i];
        String le = i < x.bounds.length ? num(x.bounds[i]) : "+Inf";
        b.append(name).append("_bucket{engine=\"").append(r.engine).append("\",le=\"").append(le)
            .append("\",model_name=\"").append(MODEL).append("\"} ").append(num(cumulative))
            .append('\n');
      }
      series(b, name + "_count", r, null).append(num(x.count)).append('\n');
      series(b, name + "_sum", r, null).append(num(x.sum)).append('\n');
    }
    b.append("# HELP ").append(name).append("_created ").append(help).append('\n');
    b.append("# TYPE ").append(name).append("_created gauge\n");
    for (Rank r : ranks) {
      series(b, name + "_created", r, null).append(num(r.created)).append('\n');
    }
  }

  private static StringBuilder series(StringBuilder b, String name, Rank r, String extra) {
    return b.append(name).append("{engine=\"").append(r.engine).append("\",model_name=\"")
        .append(MODEL).append("\"} ");
  }

  /** prometheus_client's floatToGoString: Python's repr, with an exponent past 6 digits. */
  static String num(double d) {
    if (Double.isInfinite(d)) {
      return d > 0 ? "+Inf" : "-Inf";
    }
    if (Double.isNaN(d)) {
      return "NaN";
    }
    String s = new BigDecimal(Double.toString(d)).toPlainString();
    if (s.indexOf('.') < 0) {
      s = s + ".0";
    }
    int dot = s.indexOf('.');
    if (d > 0 && dot > 6) {
      String digits = (s.substring(1, dot) + s.substring(dot + 1)).replaceAll("0+$", "");
      String mantissa = s.charAt(0) + (digits.isEmpty() ? "" : "." + digits);
      return mantissa + "e+0" + (dot - 1);
    }
    return s;
  }
}
