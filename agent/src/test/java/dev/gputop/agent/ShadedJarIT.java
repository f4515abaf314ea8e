package dev.gputop.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.agent.cli.ExitCodes;
import dev.gputop.agent.http.WebAssets;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shaded jar as a user runs it: a separate process. */
class ShadedJarIT {

  @TempDir Path dir;

  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void jar_bundlesOnlyRelocatedPackagesBesidesJna() throws Exception {
    List<String> stray = new ArrayList<>();
    try (JarFile jar = new JarFile(AgentProcess.jar().toFile())) {
      for (String name : Collections.list(jar.entries()).stream().map(e -> e.getName()).toList()) {
        boolean topLevelResource = !name.contains("/") && !name.endsWith(".class");
        if (!(name.startsWith("dev/gputop/") || name.startsWith("com/sun/jna/") || name.startsWith("META-INF/")
            || name.equals("dev/") || name.equals("com/") || name.equals("com/sun/") || topLevelResource)) {
          stray.add(name);
        }
      }
      assertThat(stray).isEmpty();
      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class")).isEqualTo("dev.gputop.agent.cli.Main");
      // ServiceLoader files are merged and relocated with the classes they name.
      assertThat(jar.getEntry("META-INF/services/dev.gputop.shaded.io.opentelemetry.sdk.autoconfigure.spi.metrics.ConfigurableMetricExporterProvider")).isNotNull();
      // The two receivers' provider files (named after dev.gputop.receiver.ReceiverProvider) merged into one.
      try (var in = jar.getInputStream(jar.getEntry("META-INF/services/dev.gputop.receiver.ReceiverProvider"))) {
        assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().map(String::strip))
            .contains("dev.gputop.nvml.NvmlReceiverProvider", "dev.gputop.inference.InferenceReceiverProvider");
      }
      assertThat(jar.getEntry("snapshot.schema.json")).isNotNull();
      assertThat(jar.getEntry("history.schema.json")).isNotNull();
      // The web page and its chart library are served from the jar (no CDN).
      assertThat(jar.getEntry("dev/gputop/agent/web/index.html")).isNotNull();
      assertThat(jar.getEntry("META-INF/resources/webjars/uplot/" + WebAssets.uplotVersion() + "/dist/uPlot.iife.min.js")).isNotNull();
      assertThat(jar.getEntry("META-INF/resources/webjars/uplot/" + WebAssets.uplotVersion() + "/dist/uPlot.min.css")).isNotNull();
    }
  }

  @Test
  void version_exits0() throws Exception {
    try (AgentProcess p = AgentProcess.start(dir, Map.of(), "version")) {
      assertThat(p.waitFor(Duration.ofSeconds(30))).isEqualTo(ExitCodes.OK);
      assertThat(p.out()).startsWith("gputop-agent ").doesNotContain("dev\n");
    }
  }

  @Test
  void checkConfig_unknownKeyExits1NamingKeyAndLine() throws Exception {
    Path f = dir.resolve("bad.yaml");
    Files.writeString(f, "refresh:\n  normal: 3s\nnvml:\n  enabled: true\n  libary: /opt/libnvidia-ml.so.1\n");
    try (AgentProcess p = AgentProcess.start(dir, Map.of(), "check-config", "--config", f.toString())) {
      assertThat(p.waitFor(Duration.ofSeconds(30))).isEqualTo(ExitCodes.CONFIG);
      assertThat(p.err()).contains("line 5").contains("nvml.libary").contains("unknown key");
    }
  }

  @Test
  void run_badValueExits1NamingKeyAndLine() throws Exception {
    Path f = dir.resolve("bad.yaml");
    Files.writeString(f, "inference:\n  endpoints:\n    - name: chat\n      url: ftp://10.0.0.5/metrics\n");
    try (AgentProcess p = AgentProcess.start(dir, Map.of(), "run", "--config", f.toString())) {
      assertThat(p.waitFor(Duration.ofSeconds(30))).isEqualTo(ExitCodes.CONFIG);
      assertThat(p.err()).contains("line 4").contains("inference.endpoints[0].url");
    }
  }

  /**
   * The time to the first scrape is a target (docs/PERFORMANCE.md), and three costs of a cold JVM
   * are kept off its path: JSSE (a third of a second of CPU; an http:// endpoint and an http://
   * OTLP collector never need it), a JSON or YAML mapper (only /api/snapshot, /healthz and the
   * printing commands need one), and the platform MBean server, which Jetty would start to size a
   * padding (HttpClients).
   */
  @Test
  void run_toItsFirstRefresh_loadsNeitherTlsNorAJacksonMapperNorTheMBeanServer() throws Exception {
    Path f = dir.resolve("agent.yaml");
    Files.writeString(f, "listen: 127.0.0.1:0\nnvml:\n  enabled: false\ninference:\n  discovery:\n    enabled: false\n"
        + "  endpoints:\n    - name: nobody\n      url: http://127.0.0.1:1/metrics\n");
    Path classes = dir.resolve("classes.txt");
    List<String> jvm = List.of("-Xlog:class+load=info:file=" + classes);
    // An OTLP exporter to an http:// collector (none listens; the first export is a minute away).
    Map<String, String> env = Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1");
    try (AgentProcess p = AgentProcess.start(dir, env, jvm, "run", "--config", f.toString())) {
      p.awaitErr("first refresh of every receiver done", Duration.ofSeconds(60));
      String loaded = Files.readString(classes);
      // Proof that the log holds what was on the path, so the absences below mean something.
      assertThat(loaded)
          .contains("dev.gputop.shaded.com.fasterxml.jackson.core.JsonFactory ")
          .contains("dev.gputop.agent.runtime.LazyTlsHttpSenderProvider ")
          .contains("dev.gputop.shaded.io.opentelemetry.exporter.sender.jdk.internal.JdkHttpSender ")
          .contains("dev.gputop.inference.scrape.ScrapeCall ")
          .contains("dev.gputop.shaded.org.eclipse.jetty.util.MemoryUtils ");
      assertThat(loaded)
          .doesNotContain("sun.security.ssl.SSLContextImpl ")
          .doesNotContain("dev.gputop.shaded.com.fasterxml.jackson.databind.ObjectMapper ")
          .doesNotContain("com.sun.jmx.mbeanserver.JmxMBeanServer ");
    }
  }

  @Test
  void run_servesTheListenerAndStopsWithinItsBudgetOnSigterm() throws Exception {
    Path f = dir.resolve("agent.yaml");
    Files.writeString(f, "listen: 127.0.0.1:0\nrefresh:\n  normal: 500ms\nnvml:\n  enabled: false\n"
        + "inference:\n  discovery:\n    enabled: false\n");
    try (AgentProcess p = AgentProcess.start(dir, Map.of(), "run", "--config", f.toString())) {
      String url = p.awaitListener(Duration.ofSeconds(60));

      HttpResponse<String> snapshot = AgentProcess.get(http, url + "/api/snapshot");
      assertThat(snapshot.statusCode()).isEqualTo(200);
      JsonNode doc = json.readTree(snapshot.body());
      assertThat(SnapshotSchema.errors(doc)).isEmpty();
      assertThat(doc.get("health").get("nvml").get("state").asText()).isEqualTo("unavailable");
      assertThat(AgentProcess.get(http, url + "/metrics").statusCode()).isEqualTo(200);
      // 503 ("starting") until the inference receiver's first refresh, then 200: nothing is unhealthy.
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      HttpResponse<String> health = AgentProcess.get(http, url + "/healthz");
      while (health.statusCode() != 200 && System.nanoTime() < deadline) {
        assertThat(health.statusCode()).isEqualTo(503);
        Thread.sleep(100);
        health = AgentProcess.get(http, url + "/healthz");
      }
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
      assertThat(json.readTree(health.body()).get("status").asText()).isEqualTo("ok");

      long idleMs = AgentProcess.idleJvmExitMillis(dir);
      long exitMs = p.terminate();
      System.out.println("[ShadedJarIT] exit " + exitMs + " ms after SIGTERM; an idle JVM's " + idleMs + " ms");
      assertThat(exitMs).as("exit after SIGTERM, ms (an idle JVM: " + idleMs + " ms); stderr:\n" + p.err())
          .isLessThanOrEqualTo(AgentProcess.maxExitMillis(idleMs));
      assertStoppedCleanly(p, "SIGTERM");
    }
  }

  /** Ctrl-C in a terminal (SIGINT) is a stop asked for, as SIGTERM is. */
  @Test
  void run_stopsOnSigintWithExit0AndOneLine() throws Exception {
    Path f = dir.resolve("agent.yaml");
    Files.writeString(f, "listen: 127.0.0.1:0\nnvml:\n  enabled: false\ninference:\n  discovery:\n    enabled: false\n");
    try (AgentProcess p = AgentProcess.start(dir, Map.of(), "run", "--config", f.toString())) {
      p.awaitErr("first refresh of every receiver done", Duration.ofSeconds(60));
      long idleMs = AgentProcess.idleJvmExitMillis(dir);
      long exitMs = p.signal("INT");
      assertThat(exitMs).as("exit after SIGINT, ms (an idle JVM: " + idleMs + " ms); stderr:\n" + p.err())
          .isLessThanOrEqualTo(AgentProcess.maxExitMillis(idleMs));
      assertStoppedCleanly(p, "SIGINT");
    }
  }

  /** Ctrl-C ends the demo as a stop asked for too: exit 0, the replicas and the agent closed. */
  @Test
  void demo_stopsOnSigintWithExit0() throws Exception {
    Path f = dir.resolve("demo.yaml");
    Files.writeString(f, "listen: 127.0.0.1:0\nnvml:\n  enabled: false\n");
    try (AgentProcess p = AgentProcess.start(dir, Map.of(), "demo", "--plain", "--config", f.toString())) {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!p.out().contains("Alerts:") && System.nanoTime() < deadline && p.process.isAlive()) {
        Thread.sleep(50);
      }
      assertThat(p.out()).as(p.err()).contains("replicas (scrape these with run or Prometheus):").contains("Alerts:");
      p.signal("INT");
      assertThat(p.process.exitValue()).as(p.err()).isEqualTo(ExitCodes.OK);
      assertThat(p.err()).doesNotContain("Exception");
    }
  }

  /** Exit 0 (systemd and Kubernetes read a stop as a success) and one INFO line naming the signal. */
  private static void assertStoppedCleanly(AgentProcess p, String signal) throws Exception {
    assertThat(p.process.exitValue()).as(p.err()).isEqualTo(ExitCodes.OK);
    List<String> stopLines = p.err().lines().filter(l -> l.contains("stopped in")).toList();
    assertThat(stopLines).as(p.err()).hasSize(1);
    assertThat(stopLines.get(0)).matches(".* INFO .*: " + signal + ": stopped in \\d+ ms");
    assertThat(p.err()).doesNotContain("SEVERE").doesNotContain("Exception");
  }
}
