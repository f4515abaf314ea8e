package dev.gputop.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.tools.attach.VirtualMachine;
import com.sun.net.httpserver.HttpServer;
import dev.gputop.agent.demo.DemoReplicas;
import dev.gputop.agent.demo.Replica;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three ways into a host JVM (docs/attach.md), each with a real host application ({@link
 * HostApp}) in its own JVM, the five demo replicas as inference servers and an in-test OTLP/HTTP
 * receiver: {@code -javaagent:gputop-agent.jar}, dynamic attach of the same jar, and the real
 * OpenTelemetry Java agent with gputop's extension jar.
 */
class AttachIT {

  private static final Pattern ENTRY = Pattern.compile("(premain|agentmain) took (\\d+\\.\\d+) ms");
  private static final Pattern STARTED =
      Pattern.compile("premain took (\\d+\\.\\d+) ms; the start took (\\d+\\.\\d+) ms on its own thread");
  private static final Pattern LISTENER = Pattern.compile("listener (http://[0-9.:]+)");
  private static final String CUSTOMIZER_SPI =
      "io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider";
  private static final Duration METRICS_WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  private final ObjectMapper json = new ObjectMapper();
  private DemoReplicas replicas;
  private OtlpHttpReceiver otlp;
  private TraceReceiver traces;
  private Path config;
  private Path stop;
  private Host host;

  @BeforeEach
  void startServers() throws Exception {
    replicas = DemoReplicas.builder().seed(7).restarts(false).start();
    otlp = new OtlpHttpReceiver();
    traces = new TraceReceiver();
    StringBuilder yaml = new StringBuilder(
        // NVML through the fake libnvidia-ml (two GPUs): JNA must work inside the host's class loaders too.
        "listen: 127.0.0.1:0\nrefresh:\n  normal: 500ms\nnvml:\n  library: " + FakeNvmlLibrary.path() + "\n"
            + "inference:\n  window: 30s\n  discovery:\n    enabled: false\n  endpoints:\n");
    for (Replica r : replicas.replicas()) {
      yaml.append("    - name: ").append(r.name()).append("\n      url: ").append(r.url()).append('\n');
    }
    config = dir.resolve("agent.yaml");
    Files.writeString(config, yaml);
    stop = dir.resolve("stop");
  }

  @AfterEach
  void stopEverything() {
    if (host != null) {
      host.close();
    }
    otlp.close();
    traces.close();
    replicas.close();
  }

  @Test
  void javaagent_exportsWithTheHostsOtelSettingsAndLeavesStdoutAlone() throws Exception {
    host = Host.start(dir, otelEnv(), List.of("-javaagent:" + AgentProcess.jar() + "=config=" + config), stop);

    awaitMetrics();
    Map<String, String> resource = otlp.latest("gputop.inference.up").get(0).resource();
    assertThat(resource).containsEntry("service.name", "gateway").containsEntry("team", "infra");
    assertServerAndEngineAttributes();

    Matcher entry = ENTRY.matcher(host.err());
    assertThat(entry.find()).as(host.err()).isTrue();
    assertThat(entry.group(1)).isEqualTo("premain");
    Matcher started = STARTED.matcher(host.err());
    assertThat(started.find()).as(host.err()).isTrue();
    double premainMs = Double.parseDouble(started.group(1));
    double startMs = Double.parseDouble(started.group(2));
    System.out.println("[AttachIT] premain kept the application's main thread " + premainMs
        + " ms; the start took " + startMs + " ms on its own thread");
    // premain must hand the start (configuration, SDK, receivers) to its thread, not do it on the
    // application's: both are timed in the same JVM at the same moment, so however loaded the
    // machine is, doing the start in premain would make premain at least as long as the start.
    assertThat(premainMs).as("premain, ms, vs the start on its own thread").isLessThan(startMs);

    // The listener runs inside the host too.
    Matcher listener = LISTENER.matcher(host.err());
    assertThat(listener.find()).as(host.err()).isTrue();
    HttpResponse<String> snapshot = AgentProcess.get(HttpClient.newHttpClient(), listener.group(1) + "/api/snapshot");
    assertThat(snapshot.statusCode()).isEqualTo(200);
    JsonNode doc = json.readTree(snapshot.body());
    assertThat(doc.get("inference")).hasSize(DemoReplicas.NAMES.size());

    host.stopAndAssertCleanExit();
  }

  @Test
  void dynamicAttach_startsTheReceiversInARunningJvm() throws Exception {
    host = Host.start(dir, otelEnv(), List.of(), stop);
    host.awaitStdout(HostApp.SERVING);
    assertThat(otlp.requests).isEmpty();

    VirtualMachine vm = VirtualMachine.attach(Long.toString(host.process.pid()));
    try {
      vm.loadAgent(AgentProcess.jar().toString(), "config=" + config);
    } finally {
      vm.detach();
    }

    awaitMetrics();
    assertThat(otlp.latest("gputop.inference.up").get(0).resource()).containsEntry("service.name", "gateway");
    assertServerAndEngineAttributes();
    Matcher entry = ENTRY.matcher(host.err());
    assertThat(entry.find()).as(host.err()).isTrue();
    assertThat(entry.group(1)).isEqualTo("agentmain");

    host.stopAndAssertCleanExit();
  }

  @Test
  void otelJavaagentExtension_exportsThroughTheAgentsSdkWithItsResource() throws Exception {
    Path otelAgent = Path.of(System.getProperty("otel.javaagent.jar"));
    Path extension = Path.of(System.getProperty("gputop.extension.jar"));
    assertThat(otelAgent).isRegularFile();
    assertThat(extension).isRegularFile();
    // The application fetches one URL itself: its span proves the trace pipeline works, and no
    // span of gputop's scrapes may sit beside it.
    String appUrl = replicas.replica("tgi").url() + "?from=app";
    host = Host.start(dir, Map.of(), List.of(
        "-javaagent:" + otelAgent,
        // Also the -javaagent form of gputop: it must see the extension and stand down.
        "-javaagent:" + AgentProcess.jar() + "=config=" + config,
        "-Dotel.javaagent.extensions=" + extension,
        "-Dotel.exporter.otlp.protocol=http/protobuf",
        "-Dotel.exporter.otlp.endpoint=" + otlp.endpoint(),
        "-Dotel.service.name=gateway",
        "-Dotel.resource.attributes=team=infra",
        "-Dotel.metric.export.interval=1000",
        "-Dotel.traces.exporter=otlp",
        "-Dotel.exporter.otlp.traces.endpoint=" + traces.endpoint(),
        "-Dotel.bsp.schedule.delay=200",
        "-Dotel.logs.exporter=none",
        // gputop's settings through the agent's configuration: the file, and one key on top of it
        "-Dotel.gputop.config=" + config,
        "-Dotel.gputop.listen=off"), stop, List.of(appUrl));

    awaitMetrics();
    assertServerAndEngineAttributes();
    // One resource carries the agent's own JVM metrics and ours: the same SDK exported both.
    ResourceMetrics shared = await(() -> sharedResource("gputop.inference.up"), "a resource with both jvm.* and gputop.* metrics");
    Map<String, String> resource = OtlpHttpReceiver.attributes(shared.getResource().getAttributesList());
    assertThat(resource).containsEntry("service.name", "gateway").containsEntry("team", "infra")
        .containsEntry("telemetry.distro.name", "opentelemetry-java-instrumentation")
        .containsKey("telemetry.distro.version");
    assertThat(metricNames(shared)).contains("gputop.inference.up", "gen_ai.server.time_to_first_token");
    // JNA and the fake libnvidia-ml work inside the OpenTelemetry Java agent's extension class loader.
    ResourceMetrics withGpus = await(() -> sharedResource("hw.gpu.utilization"), "hw.gpu.utilization in the agent's resource");
    assertThat(OtlpHttpReceiver.attributes(withGpus.getResource().getAttributesList()))
        .containsEntry("telemetry.distro.name", "opentelemetry-java-instrumentation");
    // listen=off came through the agent's configuration: no listener was started.
    assertThat(host.err()).contains("gputop-agent extension running").doesNotContain("listening on");
    // Scrapes ran with the agent's instrumentation suppressed: the application's request is the
    // only HTTP client span, though every server was scraped many times by now.
    await(() -> traces.urls().contains(appUrl), "the application's own client span");
    assertThat(traces.urls()).containsOnly(appUrl);
    // Exported once: the -javaagent copy stood down, so every resource with gputop's metrics is the agent's.
    await(() -> host.err().contains("stands down"), "-javaagent:gputop-agent.jar standing down");
    for (ExportMetricsServiceRequest req : otlp.requests) {
      for (ResourceMetrics rm : req.getResourceMetricsList()) {
        if (metricNames(rm).contains("gputop.inference.up")) {
          assertThat(OtlpHttpReceiver.attributes(rm.getResource().getAttributesList())).containsKey("telemetry.distro.name");
        }
      }
    }

    host.stopAndAssertCleanExit();
  }

  @Test
  void jars_mainJarIsAnAgentAndTheExtensionJarLeavesOpenTelemetryToTheJavaagent() throws Exception {
    try (JarFile main = new JarFile(AgentProcess.jar().toFile())) {
      var attrs = main.getManifest().getMainAttributes();
      assertThat(attrs.getValue("Premain-Class")).isEqualTo("dev.gputop.agent.attach.AttachAgent");
      assertThat(attrs.getValue("Agent-Class")).isEqualTo("dev.gputop.agent.attach.AttachAgent");
      assertThat(attrs.getValue("Can-Retransform-Classes")).isEqualTo("false");
      assertThat(main.getEntry("dev/gputop/agent/extension/GputopExtension.class")).isNull();
      assertThat(main.getEntry("META-INF/services/" + CUSTOMIZER_SPI)).isNull();
    }
    try (JarFile ext = new JarFile(System.getProperty("gputop.extension.jar"))) {
      List<String> names = Collections.list(ext.entries()).stream().map(JarEntry::getName).toList();
      assertThat(names).noneMatch(n -> n.startsWith("io/opentelemetry/") || n.startsWith("io/prometheus/"))
          .contains("dev/gputop/agent/extension/GputopExtension.class", "dev/gputop/inference/InferenceReceiverProvider.class")
          .anyMatch(n -> n.startsWith("dev/gputop/shaded/com/fasterxml/jackson/"))
          // The standalone agent's OTLP sender must not be offered to the Java agent's exporters.
          .doesNotContain("META-INF/services/io.opentelemetry.sdk.common.export.HttpSenderProvider");
      try (var in = ext.getInputStream(ext.getEntry("META-INF/services/" + CUSTOMIZER_SPI))) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).trim())
            .isEqualTo("dev.gputop.agent.extension.GputopExtension");
      }
    }
  }

  // ------------------------------------------------------------------ helpers

  private Map<String, String> otelEnv() {
    return Map.of(
        "OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint(),
        "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
        "OTEL_METRIC_EXPORT_INTERVAL", "1000",
        "OTEL_SERVICE_NAME", "gateway",
        "OTEL_RESOURCE_ATTRIBUTES", "team=infra");
  }

  /** Until every server is up in OTLP, the re-exported histograms arrived and both fake GPUs. */
  private void awaitMetrics() throws Exception {
    await(() -> upServers().size() == DemoReplicas.NAMES.size() && !otlp.latest("gen_ai.server.time_to_first_token").isEmpty()
            && gpus().size() == 2,
        "gputop.inference.up = 1 for every demo server, gen_ai.server.time_to_first_token and hw.gpu.utilization of two GPUs");
  }

  private Set<String> gpus() {
    Set<String> ids = new HashSet<>();
    for (OtlpHttpReceiver.Found f : otlp.latest("hw.gpu.utilization")) {
      for (NumberDataPoint p : f.metric().getGauge().getDataPointsList()) {
        ids.add(OtlpHttpReceiver.attributes(p.getAttributesList()).get("hw.id"));
      }
    }
    ids.remove(null);
    return ids;
  }

  private Set<String> upServers() {
    Set<String> up = new HashSet<>();
    for (OtlpHttpReceiver.Found f : otlp.latest("gputop.inference.up")) {
      for (NumberDataPoint p : f.metric().getGauge().getDataPointsList()) {
        if (p.getAsInt() == 1 || p.getAsDouble() == 1.0) {
          up.add(OtlpHttpReceiver.attributes(p.getAttributesList()).get("server"));
        }
      }
    }
    return up;
  }

  private void assertServerAndEngineAttributes() {
    Map<String, String> engines = new HashMap<>();
    for (OtlpHttpReceiver.Found f : otlp.latest("gputop.inference.up")) {
      for (NumberDataPoint p : f.metric().getGauge().getDataPointsList()) {
        Map<String, String> a = OtlpHttpReceiver.attributes(p.getAttributesList());
        engines.put(a.get("server"), a.get("engine"));
      }
    }
    for (Replica r : replicas.replicas()) {
      assertThat(engines).containsEntry(r.name(), r.engine());
    }
    Metric hist = otlp.latest("gen_ai.server.time_to_first_token").get(0).metric();
    assertThat(hist.getHistogram().getDataPointsList()).isNotEmpty();
    assertThat(hist.getUnit()).isEqualTo("s");
  }

  /** A resource that carries {@code ours}, the re-exported TTFT histogram and the agent's jvm.* metrics. */
  private ResourceMetrics sharedResource(String ours) {
    for (ExportMetricsServiceRequest req : otlp.requests) {
      for (ResourceMetrics rm : req.getResourceMetricsList()) {
        Set<String> names = metricNames(rm);
        if (names.contains(ours) && names.contains("gen_ai.server.time_to_first_token")
            && names.stream().anyMatch(n -> n.startsWith("jvm."))) {
          return rm;
        }
      }
    }
    return null;
  }

  private static Set<String> metricNames(ResourceMetrics rm) {
    Set<String> names = new HashSet<>();
    for (ScopeMetrics sm : rm.getScopeMetricsList()) {
      for (Metric m : sm.getMetricsList()) {
        names.add(m.getName());
      }
    }
    return names;
  }

  private void await(BooleanSupplier condition, String what) throws Exception {
    await(() -> condition.getAsBoolean() ? Boolean.TRUE : null, what);
  }

  private <T> T await(java.util.function.Supplier<T> value, String what) throws Exception {
    long deadline = System.nanoTime() + METRICS_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      T v = value.get();
      if (v != null) {
        return v;
      }
      if (!host.process.isAlive()) {
        throw new AssertionError("host exited with " + host.process.exitValue() + "; stderr:\n" + host.err());
      }
      Thread.sleep(200);
    }
    throw new AssertionError("not within " + METRICS_WAIT + ": " + what + "; " + otlp.requests.size()
        + " OTLP requests; up: " + upServers() + "; stderr:\n" + host.err());
  }

  /** OTLP/HTTP traces on 127.0.0.1: the {@code url.full} of every span received. Thread-safe. */
  static final class TraceReceiver implements AutoCloseable {
    private final HttpServer server;
    private final List<String> urls = new CopyOnWriteArrayList<>();

    TraceReceiver() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
      server.createContext("/v1/traces", ex -> {
        try (ex) {
          InputStream in = ex.getRequestBody();
          if ("gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
            in = new GZIPInputStream(in);
          }
          ExportTraceServiceRequest req = ExportTraceServiceRequest.parseFrom(in.readAllBytes());
          req.getResourceSpansList().forEach(rs -> rs.getScopeSpansList().forEach(ss -> ss.getSpansList().forEach(
              span -> urls.add(OtlpHttpReceiver.attributes(span.getAttributesList()).getOrDefault("url.full", span.getName())))));
          ex.sendResponseHeaders(200, -1);
        }
      });
      server.start();
    }

    String endpoint() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces";
    }

    Set<String> urls() {
      return new HashSet<>(urls);
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  /** A host application JVM with its output captured to files. */
  static final class Host implements AutoCloseable {
    final Process process;
    final Path stdout;
    final Path stderr;
    final Path stop;

    private Host(Process process, Path stdout, Path stderr, Path stop) {
      this.process = process;
      this.stdout = stdout;
      this.stderr = stderr;
      this.stop = stop;
    }

    static Host start(Path dir, Map<String, String> env, List<String> jvmArgs, Path stop) throws Exception {
      return start(dir, env, jvmArgs, stop, List.of());
    }

    static Host start(Path dir, Map<String, String> env, List<String> jvmArgs, Path stop, List<String> appArgs)
        throws Exception {
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(jvmArgs);
      // Only the application on its class path, as in production (not the test classes and their services).
      Path classes = Path.of(HostApp.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path app = dir.resolve("app");
      Path cls = Path.of(HostApp.class.getName().replace('.', '/') + ".class");
      Files.createDirectories(app.resolve(cls).getParent());
      Files.copy(classes.resolve(cls), app.resolve(cls), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      cmd.add("-cp");
      cmd.add(app.toString());
      cmd.add(HostApp.class.getName());
      cmd.add(stop.toString());
      cmd.addAll(appArgs);
      ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
      pb.environment().keySet().removeIf(k -> k.startsWith("OTEL_") || k.startsWith("JAVA_TOOL"));
      pb.environment().putAll(env);
      Path out = Files.createTempFile(dir, "host", ".out");
      Path err = Files.createTempFile(dir, "host", ".err");
      pb.redirectOutput(out.toFile());
      pb.redirectError(err.toFile());
      return new Host(pb.start(), out, err, stop);
    }

    String out() throws IOException {
      return Files.readString(stdout, StandardCharsets.UTF_8);
    }

    String err() {
      try {
        return Files.readString(stderr, StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "(stderr unreadable: " + e + ")";
      }
    }

    void awaitStdout(String line) throws Exception {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!out().contains(line)) {
        if (System.nanoTime() > deadline || !process.isAlive()) {
          throw new AssertionError("host never printed '" + line + "'; stderr:\n" + err());
        }
        Thread.sleep(20);
      }
    }

    /**
     * Lets the application's main return and expects the JVM to exit by itself (no non-daemon
     * thread left behind), with status 0 and exactly the application's own stdout.
     */
    void stopAndAssertCleanExit() throws Exception {
      Files.writeString(stop, "");
      long t0 = System.nanoTime();
      boolean exited = process.waitFor(20, TimeUnit.SECONDS);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertThat(exited).as("host exited after main returned; stderr:\n" + err()).isTrue();
      assertThat(process.exitValue()).isZero();
      assertThat(out()).isEqualTo(HostApp.SERVING + System.lineSeparator() + HostApp.DONE + System.lineSeparator());
      assertThat(err()).doesNotContain("SEVERE").doesNotContain("Exception");
      System.out.println("[AttachIT] host exited " + ms + " ms after main returned");
    }

    @Override
    public void close() {
      if (process.isAlive()) {
        process.destroyForcibly();
      }
    }
  }
}
