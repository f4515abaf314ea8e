package dev.gputop.benchmarks.scale;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * What gputop-agent costs when it scrapes N inference servers, beside what Prometheus costs for
 * the same servers in the same run (docs/PERFORMANCE.md, "Cost at scale").
 *
 * <p>It starts N endpoints on 127.0.0.1, each on its own port, serving a moving vLLM V1 DP2
 * exposition ({@link MovingVllmExposition}, ~27 KB, advanced every interval); writes an
 * {@code agent.yaml} with them as {@code inference.endpoints} (discovery off, NVML off unless
 * {@code --nvml-lib}); starts the shipped agent jar as its own JVM with the shipped JVM options
 * ({@code JAVA_OPTS} of examples/systemd/gputop-agent.env unless {@code --jvm-opts}) and
 * {@code OTEL_METRICS_EXPORTER=none} as shipped; reads the agent's {@code /metrics} every 15 s as a
 * Prometheus server would; and, when {@code prometheus} is on the PATH, runs it on the same
 * targets at the same interval. After a warm-up it measures, over a fixed window: CPU seconds of
 * each process (every thread, JIT and GC included) from {@code /proc}, scrapes answered by the
 * endpoints per client, bytes allocated by the agent's threads ({@code jcmd Thread.print -e}),
 * RSS, and at the end the agent's live heap after a full GC.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.gputop.benchmarks.scale.ScaleHarness \
 *   --endpoints 500 --warmup 60s --duration 120s
 * </pre>
 *
 * Options: {@code --endpoints N}, {@code --interval 3s}, {@code --warmup 60s}, {@code --duration
 * 120s}, {@code --jar agent/target/gputop-agent.jar}, {@code --jvm-opts "..."}, {@code
 * --extra-jvm-opts "..."} (added to the shipped ones, e.g. a profiler), {@code --prometheus
 * auto|off|PATH}, {@code --nvml-lib PATH --gpus 8} (the fake libnvidia-ml), {@code --concurrency
 * K}, {@code --workdir DIR} (kept; default a temporary directory).
 */
public final class ScaleHarness {

  private ScaleHarness() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = options(args);
    int n = Integer.parseInt(o.getOrDefault("endpoints", "500"));
    Duration interval = duration(o.getOrDefault("interval", "3s"));
    Duration warmup = duration(o.getOrDefault("warmup", "60s"));
    Duration window = duration(o.getOrDefault("duration", "120s"));
    Path jar = Path.of(o.getOrDefault("jar", "agent/target/gputop-agent.jar"));
    String jvmOpts = o.containsKey("jvm-opts") ? o.get("jvm-opts") : shippedJavaOpts();
    String extra = o.getOrDefault("extra-jvm-opts", "");
    String prometheus = o.getOrDefault("prometheus", "auto");
    Path work = o.containsKey("workdir") ? Files.createDirectories(Path.of(o.get("workdir")))
        : Files.createTempDirectory("gputop-scale-");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalArgumentException(jar + " not found: ./mvnw -B -q package -DskipTests");
    }

    MovingVllmExposition server = new MovingVllmExposition(42);
    List<Process> children = new ArrayList<>();
    ScheduledExecutorService ticker = Executors.newScheduledThreadPool(1, r -> {
      Thread t = new Thread(r, "harness-ticker");
      t.setDaemon(true);
      return t;
    });
    try (LoopbackEndpoints endpoints = new LoopbackEndpoints(n)) {
      byte[] body = server.render();
      String contentType = "text/plain; version=0.0.4; charset=utf-8";
      endpoints.publish(body, contentType);
      endpoints.start();
      ticker.scheduleAtFixedRate(() -> {
        server.advance();
        endpoints.publish(server.render(), contentType);
      }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);

      int listen = freePort();
      Path yaml = work.resolve("agent.yaml");
      Files.writeString(yaml, agentYaml(endpoints.ports(), interval, listen, o));
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(split(jvmOpts));
      cmd.addAll(split(extra));
      cmd.addAll(List.of("-jar", jar.toAbsolutePath().toString(), "run", "--config",
          yaml.toString()));
      ProcessBuilder pb = new ProcessBuilder(cmd)
          .redirectOutput(work.resolve("agent.out").toFile())
          .redirectError(work.resolve("agent.err").toFile());
      pb.environment().put("OTEL_METRICS_EXPORTER", "none");
      pb.environment().put("OTEL_TRACES_EXPORTER", "none");
      if (o.containsKey("nvml-lib")) {
        pb.environment().put("FAKE_NVML_DEVICE_COUNT", o.getOrDefault("gpus", "8"));
      }
      Process agent = pb.start();
      children.add(agent);

      Process prom = null;
      String promBinary = prometheusBinary(prometheus);
      if (promBinary != null) {
        Path promYaml = work.resolve("prometheus.yml");
        Files.writeString(promYaml, prometheusYaml(endpoints.ports(), interval));
        // Always an empty TSDB: one left by an earlier run in the same work directory would be
        // replayed and kept in the head block beside this run's series, which costs Prometheus
        // CPU and memory that the comparison must not count.
        Path tsdb = work.resolve("tsdb");
        deleteTree(tsdb);
        Files.createDirectories(tsdb);
        prom = new ProcessBuilder(promBinary, "--config.file=" + promYaml,
            "--storage.tsdb.path=" + tsdb, "--web.listen-address=127.0.0.1:" + freePort(),
            "--log.level=warn")
            .redirectErrorStream(true).redirectOutput(work.resolve("prometheus.log").toFile())
            .start();
        children.add(prom);
      }

      System.out.printf(Locale.ROOT, "%d endpoints on 127.0.0.1, body %,d bytes, interval %s;"
              + " agent pid %d (%s)%s; warm-up %s, then %s; files in %s%n", n, body.length,
          interval, agent.pid(), String.join(" ", split(jvmOpts + " " + extra)),
          prom == null ? ", no prometheus" : ", prometheus pid " + prom.pid(), warmup, window, work);

      AtomicLong exportBytes = new AtomicLong();
      // Held by a /metrics read, so that the class histogram at the end is never taken while a
      // read is in flight (its snapshot would be counted as live heap).
      ReentrantLock reading = new ReentrantLock();
      ScheduledFuture<?> reads = ticker.scheduleAtFixedRate(() -> {
        reading.lock();
        try {
          exportBytes.addAndGet(get(listen, "/metrics"));
        } finally {
          reading.unlock();
        }
      }, 15, 15, TimeUnit.SECONDS);

      sleep(warmup, agent);
      Map<String, ProcessProbe.ThreadUse> threads0 = ProcessProbe.threads(agent.pid());
      double agentCpu0 = ProcessProbe.cpuSeconds(agent.pid());
      double promCpu0 = prom == null ? 0 : ProcessProbe.cpuSeconds(prom.pid());
      long agentReq0 = endpoints.agentRequests();
      long promReq0 = endpoints.prometheusRequests();
      long t0 = System.nanoTime();

      sleep(window, agent);
      double agentCpu1 = ProcessProbe.cpuSeconds(agent.pid());
      double promCpu1 = prom == null ? 0 : ProcessProbe.cpuSeconds(prom.pid());
      long agentReq1 = endpoints.agentRequests();
      long promReq1 = endpoints.prometheusRequests();
      double seconds = (System.nanoTime() - t0) / 1e9;
      long agentRss = ProcessProbe.statusBytes(agent.pid(), "VmRSS");
      long agentHwm = ProcessProbe.statusBytes(agent.pid(), "VmHWM");
      long promRss = prom == null ? 0 : ProcessProbe.statusBytes(prom.pid(), "VmRSS");
      Map<String, ProcessProbe.ThreadUse> threads1 = ProcessProbe.threads(agent.pid());
      reads.cancel(false);
      reading.lock();
      long live = ProcessProbe.liveHeapBytes(agent.pid(), work.resolve("heap-histogram.txt"));
      String heapInfo = ProcessProbe.jcmd(agent.pid(), "GC.heap_info");
      Files.writeString(work.resolve("heap-info.txt"), heapInfo);

      long allocated = 0;
      int gone = 0;
      Map<String, double[]> byThread = new HashMap<>();
      for (Map.Entry<String, ProcessProbe.ThreadUse> e : threads1.entrySet()) {
        ProcessProbe.ThreadUse before = threads0.get(e.getKey());
        long a = e.getValue().allocatedBytes() - (before == null ? 0 : before.allocatedBytes());
        double c = e.getValue().cpuMillis() - (before == null ? 0 : before.cpuMillis());
        allocated += a;
        String group = e.getValue().name().replaceAll("[-# ]?\\d+$", "");
        double[] g = byThread.computeIfAbsent(group, k -> new double[2]);
        g[0] += c;
        g[1] += a;
      }
      for (String tid : threads0.keySet()) {
        if (!threads1.containsKey(tid)) {
          gone++;
        }
      }

      long agentScrapes = agentReq1 - agentReq0;
      long promScrapes = promReq1 - promReq0;
      double expected = n * seconds / (interval.toNanos() / 1e9);
      double agentCpu = agentCpu1 - agentCpu0;
      double promCpu = promCpu1 - promCpu0;
      System.out.printf(Locale.ROOT, "window %.1f s, expected %.0f scrapes per client%n", seconds,
          expected);
      System.out.printf(Locale.ROOT,
          "agent:      %,d scrapes, CPU %.2f s = %.2f %% of one core, %.3f ms CPU per scrape,"
              + " %,.0f B allocated per scrape (%d threads ended in the window, not counted),"
              + " live heap after full GC %.1f MB, RSS %.1f MB (peak %.1f MB), /metrics read"
              + " %,d bytes in total%n",
          agentScrapes, agentCpu, 100 * agentCpu / seconds, 1000 * agentCpu / agentScrapes,
          (double) allocated / agentScrapes, gone, live / 1e6, agentRss / 1e6, agentHwm / 1e6,
          exportBytes.get());
      if (prom != null) {
        System.out.printf(Locale.ROOT,
            "prometheus: %,d scrapes, CPU %.2f s = %.2f %% of one core, %.3f ms CPU per scrape,"
                + " RSS %.1f MB%n",
            promScrapes, promCpu, 100 * promCpu / seconds, 1000 * promCpu / promScrapes,
            promRss / 1e6);
        System.out.printf(Locale.ROOT, "agent / prometheus CPU: %.2f%n", agentCpu / promCpu);
      }
      for (String line : heapInfo.split("\n")) {
        if (line.contains("Metaspace") || line.contains("class space")) {
          System.out.println("agent " + line.trim());
        }
      }
      System.out.println("agent threads in the window (CPU ms, allocated MB):");
      byThread.entrySet().stream()
          .sorted(Comparator.comparingDouble((Map.Entry<String, double[]> e) -> -e.getValue()[0]))
          .limit(12)
          .forEach(e -> System.out.printf(Locale.ROOT, "  %-40s %9.0f ms %9.1f MB%n", e.getKey(),
              e.getValue()[0], e.getValue()[1] / 1e6));
      System.out.printf(Locale.ROOT, "| %d | %.2f %% | %.3f ms | %,.0f B | %.1f MB | %.1f MB | %s |"
              + " %s |%n", n, 100 * agentCpu / seconds, 1000 * agentCpu / agentScrapes,
          (double) allocated / agentScrapes, live / 1e6, agentRss / 1e6,
          prom == null ? "-" : String.format(Locale.ROOT, "%.2f %% (%.3f ms)",
              100 * promCpu / seconds, 1000 * promCpu / promScrapes),
          prom == null ? "-" : String.format(Locale.ROOT, "%.2f", agentCpu / promCpu));
    } finally {
      ticker.shutdownNow();
      for (Process p : children) {
        p.destroy();
      }
      for (Process p : children) {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  private static String agentYaml(List<Integer> ports, Duration interval, int listen,
      Map<String, String> o) {
    StringBuilder y = new StringBuilder();
    y.append("listen: 127.0.0.1:").append(listen).append('\n');
    y.append("refresh:\n  normal: ").append(interval.toMillis()).append("ms\n");
    if (o.containsKey("nvml-lib")) {
      y.append("nvml:\n  library: ").append(o.get("nvml-lib")).append('\n');
    } else {
      y.append("nvml:\n  enabled: false\n");
    }
    y.append("inference:\n  discovery:\n    enabled: false\n");
    if (o.containsKey("concurrency")) {
      y.append("  scrape:\n    concurrency: ").append(o.get("concurrency")).append('\n');
    }
    y.append("  endpoints:\n");
    for (int i = 0; i < ports.size(); i++) {
      y.append(String.format(Locale.ROOT,
          "    - name: vllm-%04d%n      url: http://127.0.0.1:%d/metrics%n", i, ports.get(i)));
    }
    return y.toString();
  }

  private static String prometheusYaml(List<Integer> ports, Duration interval) {
    StringBuilder y = new StringBuilder();
    long ms = interval.toMillis();
    y.append("global:\n  scrape_interval: ").append(ms).append("ms\n  scrape_timeout: ")
        .append(Math.min(ms, 2000)).append("ms\n");
    y.append("scrape_configs:\n  - job_name: vllm\n    static_configs:\n      - targets:\n");
    for (int p : ports) {
      y.append("          - 127.0.0.1:").append(p).append('\n');
    }
    return y.toString();
  }

  /** JAVA_OPTS of examples/systemd/gputop-agent.env: the JVM options the project ships. */
  static String shippedJavaOpts() throws IOException {
    Path env = Path.of("examples/systemd/gputop-agent.env");
    if (!Files.isRegularFile(env)) {
      throw new IllegalArgumentException(
          "run from the repository root (reads examples/systemd/gputop-agent.env), or pass --jvm-opts");
    }
    for (String line : Files.readAllLines(env)) {
      if (line.startsWith("JAVA_OPTS=")) {
        String v = line.substring("JAVA_OPTS=".length()).trim();
        return v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
      }
    }
    return "";
  }

  private static String prometheusBinary(String option) {
    if (option.equals("off")) {
      return null;
    }
    if (!option.equals("auto")) {
      return option;
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir, "prometheus");
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    return null;
  }

  private static long get(int port, String path) {
    try {
      HttpURLConnection c =
          (HttpURLConnection) new URL("http://127.0.0.1:" + port + path).openConnection();
      c.setConnectTimeout(2000);
      c.setReadTimeout(5000);
      try (InputStream in = c.getInputStream()) {
        return in.readAllBytes().length;
      }
    } catch (IOException e) {
      return 0;
    }
  }

  private static void sleep(Duration d, Process agent) throws InterruptedException {
    if (agent.waitFor(d.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("the agent exited with " + agent.exitValue()
          + " (see agent.err in the work directory)");
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static List<String> split(String s) {
    List<String> out = new ArrayList<>();
    for (String p : s.trim().split("\\s+")) {
      if (!p.isEmpty()) {
        out.add(p);
      }
    }
    return out;
  }

  static Duration duration(String s) {
    String v = s.trim().toLowerCase(Locale.ROOT);
    if (v.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
    }
    if (v.endsWith("s")) {
      return Duration.ofMillis((long) (Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
    }
    if (v.endsWith("m")) {
      return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)) * 60);
    }
    return Duration.ofSeconds(Long.parseLong(v));
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("usage: --name value ... (bad: " + args[i] + ")");
      }
      o.put(args[i].substring(2), args[++i]);
    }
    return o;
  }

  static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  /** Deletes {@code dir} and everything under it; nothing when it is not there. */
  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }
}
