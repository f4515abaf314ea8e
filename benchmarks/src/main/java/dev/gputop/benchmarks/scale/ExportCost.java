package dev.gputop.benchmarks.scale;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the export path costs the agent at N servers: the agent jar as it ships, scraping N
 * loopback vLLM endpoints (the scale harness's {@link MovingVllmExposition}), then {@code
 * /metrics} read back to back and, with {@code --otlp}, OTLP pushed to a sink in this process.
 * Prints, per {@code /metrics} read, the bytes and the CPU and allocation of the agent's {@code
 * gputop-http} threads (which collect the SDK, convert and write the text), per OTLP export the
 * same for the SDK's periodic reader thread, and the OpenTelemetry SDK's and Prometheus model's
 * objects in the live heap after a full GC (docs/PERFORMANCE.md, "The export path"):
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.gputop.benchmarks.scale.ExportCost \
 *   --endpoints 500 --warmup 30s --reads 10 [--otlp] [--workdir DIR] [--agent-env K=V,K2=V2]
 * </pre>
 *
 * The last body read is saved as {@code metrics.txt} in the work directory.
 */
public final class ExportCost {

  private ExportCost() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = options(args);
    int n = Integer.parseInt(o.getOrDefault("endpoints", "500"));
    int reads = Integer.parseInt(o.getOrDefault("reads", "10"));
    Duration interval = Duration.ofMillis(Long.parseLong(o.getOrDefault("interval-ms", "3000")));
    Duration warmup = Duration.ofSeconds(Long.parseLong(o.getOrDefault("warmup", "30s")
        .replace("s", "")));
    boolean otlp = o.containsKey("otlp");
    Path jar = Path.of(o.getOrDefault("jar", "agent/target/gputop-agent.jar"));
    String jvmOpts = o.containsKey("jvm-opts") ? o.get("jvm-opts") : ScaleHarness.shippedJavaOpts();
    Path work = o.containsKey("workdir") ? Files.createDirectories(Path.of(o.get("workdir")))
        : Files.createTempDirectory("gputop-export-");

    MovingVllmExposition server = new MovingVllmExposition(42);
    ScheduledExecutorService ticker = Executors.newScheduledThreadPool(1, r -> {
      Thread t = new Thread(r, "export-cost-ticker");
      t.setDaemon(true);
      return t;
    });
    AtomicLong otlpBytes = new AtomicLong();
    AtomicLong otlpPosts = new AtomicLong();
    HttpServer sink = null;
    Process agent = null;
    try (LoopbackEndpoints endpoints = new LoopbackEndpoints(n)) {
      String contentType = "text/plain; version=0.0.4; charset=utf-8";
      endpoints.publish(server.render(), contentType);
      endpoints.start();
      ticker.scheduleAtFixedRate(() -> {
        server.advance();
        endpoints.publish(server.render(), contentType);
      }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);

      int listen = freePort();
      StringBuilder y = new StringBuilder();
      y.append("listen: 127.0.0.1:").append(listen).append('\n');
      y.append("refresh:\n  normal: ").append(interval.toMillis()).append("ms\n");
      y.append("nvml:\n  enabled: false\n");
      y.append("inference:\n  discovery:\n    enabled: false\n  endpoints:\n");
      List<Integer> ports = endpoints.ports();
      for (int i = 0; i < ports.size(); i++) {
        y.append(String.format(Locale.ROOT,
            "    - name: vllm-%04d%n      url: http://127.0.0.1:%d/metrics%n", i, ports.get(i)));
      }
      Path yaml = work.resolve("agent.yaml");
      Files.writeString(yaml, y.toString());

      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(List.of(jvmOpts.trim().split("\\s+")));
      cmd.addAll(List.of("-jar", jar.toAbsolutePath().toString(), "run", "--config",
          yaml.toString()));
      ProcessBuilder pb = new ProcessBuilder(cmd)
          .redirectOutput(work.resolve("agent.out").toFile())
          .redirectError(work.resolve("agent.err").toFile());
      pb.environment().put("OTEL_TRACES_EXPORTER", "none");
      if (otlp) {
        sink = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        sink.createContext("/v1/metrics", x -> {
          try (x; InputStream in = x.getRequestBody()) {
            otlpBytes.addAndGet(in.readAllBytes().length);
            otlpPosts.incrementAndGet();
            x.sendResponseHeaders(200, -1);
          }
        });
        sink.start();
        pb.environment().put("OTEL_METRICS_EXPORTER", "otlp");
        pb.environment().put("OTEL_EXPORTER_OTLP_ENDPOINT",
            "http://127.0.0.1:" + sink.getAddress().getPort());
        pb.environment().put("OTEL_METRIC_EXPORT_INTERVAL", "10000");
      } else {
        pb.environment().put("OTEL_METRICS_EXPORTER", "none");
      }
      if (o.containsKey("agent-env")) {
        for (String kv : o.get("agent-env").split(",")) {
          int eq = kv.indexOf('=');
          pb.environment().put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
      }
      agent = pb.start();
      System.out.printf(Locale.ROOT, "%d endpoints, agent pid %d (%s), warm-up %s, %d reads%s;"
          + " files in %s%n", n, agent.pid(), jvmOpts, warmup, reads, otlp ? ", OTLP every 10 s"
          : "", work);
      Thread.sleep(warmup.toMillis());
      if (!agent.isAlive()) {
        throw new IllegalStateException("the agent exited: see " + work.resolve("agent.err"));
      }
      for (int i = 0; i < 2; i++) {
        read(listen, null);
      }
      Map<String, ProcessProbe.ThreadUse> t0 = ProcessProbe.threads(agent.pid());
      long total = 0;
      double[] cpu = new double[reads];
      double[] bytes = new double[reads];
      Map<String, ProcessProbe.ThreadUse> before = t0;
      for (int i = 0; i < reads; i++) {
        total += read(listen, i == reads - 1 ? work.resolve("metrics.txt") : null);
        Map<String, ProcessProbe.ThreadUse> after = ProcessProbe.threads(agent.pid());
        double[] one = use(before, after, "gputop-http");
        cpu[i] = one[0];
        bytes[i] = one[1];
        before = after;
      }
      java.util.Arrays.sort(cpu);
      java.util.Arrays.sort(bytes);
      System.out.printf(Locale.ROOT, "/metrics reads one by one: CPU least %.1f ms, median %.1f ms;"
          + " allocated least %.1f MB, median %.1f MB%n", cpu[0], cpu[reads / 2], bytes[0] / 1e6,
          bytes[reads / 2] / 1e6);
      Map<String, ProcessProbe.ThreadUse> t1 = ProcessProbe.threads(agent.pid());
      double[] http = use(t0, t1, "gputop-http");
      System.out.printf(Locale.ROOT, "/metrics: %,d bytes per read; gputop-http threads per read:"
              + " %.1f ms CPU, %.1f MB allocated (%.1f x the text)%n", total / reads,
          http[0] / reads, http[1] / reads / 1e6, http[1] / total);
      if (otlp) {
        // A window without /metrics reads: what the OTLP exports cost on their own.
        long posts0 = otlpPosts.get();
        long bytes0 = otlpBytes.get();
        Thread.sleep(31_000);
        Map<String, ProcessProbe.ThreadUse> t2 = ProcessProbe.threads(agent.pid());
        long posts = otlpPosts.get() - posts0;
        System.out.printf(Locale.ROOT, "OTLP: %d exports in 31 s, %,d bytes each; threads in that"
            + " window (CPU ms, MB allocated):%n", posts, posts == 0 ? 0
            : (otlpBytes.get() - bytes0) / posts);
        Map<String, double[]> byGroup = new TreeMap<>();
        for (Map.Entry<String, ProcessProbe.ThreadUse> e : t2.entrySet()) {
          ProcessProbe.ThreadUse was = t1.get(e.getKey());
          double[] g = byGroup.computeIfAbsent(
              e.getValue().name().replaceAll("[-# ]?\\d+$", ""), k -> new double[2]);
          g[0] += e.getValue().cpuMillis() - (was == null ? 0 : was.cpuMillis());
          g[1] += e.getValue().allocatedBytes() - (was == null ? 0 : was.allocatedBytes());
        }
        byGroup.entrySet().stream().filter(e -> e.getValue()[0] > 0 || e.getValue()[1] > 0)
            .forEach(e -> System.out.printf(Locale.ROOT, "  %-40s %8.0f ms %8.1f MB%n", e.getKey(),
                e.getValue()[0], e.getValue()[1] / 1e6));
      }
      long live = ProcessProbe.liveHeapBytes(agent.pid(), work.resolve("heap-histogram.txt"));
      System.out.printf(Locale.ROOT, "live heap after full GC %.1f MB; of it:%n", live / 1e6);
      sdkObjects(Files.readString(work.resolve("heap-histogram.txt")), n);
    } finally {
      ticker.shutdownNow();
      if (sink != null) {
        sink.stop(0);
      }
      if (agent != null) {
        agent.destroy();
        if (!agent.waitFor(10, TimeUnit.SECONDS)) {
          agent.destroyForcibly();
        }
      }
    }
  }

  /** CPU ms and bytes allocated between two probes by the threads whose name starts so. */
  private static double[] use(Map<String, ProcessProbe.ThreadUse> t0,
      Map<String, ProcessProbe.ThreadUse> t1, String prefix) {
    double[] out = new double[2];
    for (Map.Entry<String, ProcessProbe.ThreadUse> e : t1.entrySet()) {
      if (!e.getValue().name().startsWith(prefix)) {
        continue;
      }
      ProcessProbe.ThreadUse before = t0.get(e.getKey());
      out[0] += e.getValue().cpuMillis() - (before == null ? 0 : before.cpuMillis());
      out[1] += e.getValue().allocatedBytes() - (before == null ? 0 : before.allocatedBytes());
    }
    return out;
  }

  /** The SDK's and the Prometheus model's classes in a class histogram, summed and the largest. */
  private static void sdkObjects(String histogram, int servers) {
    Map<String, long[]> byLibrary = new TreeMap<>();
    List<String> rows = new ArrayList<>();
    for (String line : histogram.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length < 4 || !f[0].endsWith(":")) {
        continue;
      }
      String cls = f[3];
      String library = cls.contains("opentelemetry.sdk") ? "OpenTelemetry SDK"
          : cls.contains("opentelemetry.api") ? "OpenTelemetry API"
          : cls.contains("prometheus.metrics") ? "Prometheus model and writer"
          : cls.endsWith("LongAdder") ? "java.util.concurrent LongAdder" : null;
      if (library == null) {
        continue;
      }
      long[] sum = byLibrary.computeIfAbsent(library, k -> new long[2]);
      sum[0] += Long.parseLong(f[1]);
      sum[1] += Long.parseLong(f[2]);
      if (rows.size() < 12) {
        rows.add(String.format(Locale.ROOT, "    %,9d  %,11d B  %s", Long.parseLong(f[1]),
            Long.parseLong(f[2]), cls.replace("dev.gputop.shaded.", "")));
      }
    }
    byLibrary.forEach((k, v) -> System.out.printf(Locale.ROOT,
        "  %-32s %,9d objects %,11d B (%.1f objects, %.0f B per server)%n", k, v[0], v[1],
        (double) v[0] / servers, (double) v[1] / servers));
    System.out.println("  largest:");
    rows.forEach(System.out::println);
  }

  private static long read(int port, Path save) throws IOException {
    HttpURLConnection c =
        (HttpURLConnection) new URL("http://127.0.0.1:" + port + "/metrics").openConnection();
    c.setConnectTimeout(2000);
    c.setReadTimeout(30000);
    try (InputStream in = c.getInputStream()) {
      byte[] body = in.readAllBytes();
      if (save != null) {
        Files.write(save, body);
      }
      return body.length;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> o = new TreeMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("unexpected " + args[i]);
      }
      String k = args[i].substring(2);
      if (k.equals("otlp")) {
        o.put(k, "true");
      } else {
        o.put(k, args[++i]);
      }
    }
    return o;
  }
}
