package dev.gputop.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dashboard and the alert rules against a real Prometheus scraping a real agent.
 *
 * <p>What runs, all on loopback and all stopped at the end:
 *
 * <ul>
 *   <li>the agent's demo replicas (vLLM, SGLang, TGI, llama.cpp) in a process whose command line
 *       is {@code vllm serve --port P}, so the agent's discovery recognizes it as a vLLM server on
 *       port P, where the vLLM replica listens;
 *   <li>the fake libnvidia-ml of the nvml module, compiled with gcc, with two GPUs and that
 *       process on both (and one process that is no server), so the GPU panels and the
 *       GPU-to-server join have data;
 *   <li>the shaded agent jar, {@code run} with discovery on, the other three replicas as
 *       configured endpoints, and one configured endpoint where nothing listens (so
 *       GputopInferenceEndpointUnhealthy really fires);
 *   <li>Debian's {@code prometheus}, scraping the agent every second, plus a second target in
 *       the agent's job where nothing listens (so GputopAgentDown really fires), with the alert
 *       rules loaded.
 * </ul>
 *
 * <p>Then every dashboard expression (variables set from the data as Grafana would) and every
 * alert expression must return data. GputopKvCacheFull and GputopGpuFailed only return data when
 * a KV cache is full or a GPU is lost, which the demo doesn't do; for them the same expression
 * with its thresholds relaxed must return data, which proves the metric names, labels and the
 * {@code on (...)} join against real series (their firing logic is covered by alerts.test.yml).
 */
class PrometheusEndToEndIT {

  private static final Duration READY_WITHIN = Duration.ofSeconds(100);
  private static final Pattern REGEX_META = Pattern.compile("[.*+?^${}()|\\[\\]\\\\]");

  /**
   * Alert expressions that only return data while firing, and the threshold replacements that
   * make them return data on a healthy demo.
   */
  private static final Map<String, List<Relax>> RELAXED = Map.of(
      "GputopKvCacheFull", List.of(new Relax(">= 0.95", ">= 0"), new Relax("> 0", ">= 0")),
      "GputopGpuFailed", List.of(new Relax("== 1", ">= 0")));

  /** One threshold replacement: {@code from} must occur exactly once in the expression. */
  private record Relax(String from, String to) {}

  private static Path work;
  private static final List<Background> processes = new ArrayList<>();
  private static PrometheusApi prometheus;
  private static String agentInstance;
  private static Map<String, String> variables = Map.of();
  private static Map<String, List<JsonNode>> lastResults = Map.of();

  /** Why the stack can't start here (a missing prerequisite), or null; each test reports it as its skip reason. */
  private static String missing;

  @BeforeAll
  static void startAgentAndPrometheus() throws Exception {
    Path jar = Path.of(System.getProperty("gputop.agent.jar", "../agent/target/gputop-agent.jar"));
    Path fakeNvmlSource = Path.of(System.getProperty("gputop.fake.nvml.source", "../nvml/src/test/c/fake_nvml.c"));
    Path gcc = Examples.onPath("gcc").orElse(null);
    Path prometheusBinary = Examples.onPath("prometheus").orElse(null);
    if (!Files.isRegularFile(jar)) {
      missing = "the shaded agent jar " + jar + " is not built (the agent module builds it before examples in the reactor)";
    } else if (!Files.isRegularFile(fakeNvmlSource)) {
      missing = "the fake NVML library source " + fakeNvmlSource + " is missing";
    } else if (gcc == null) {
      missing = "gcc is not installed (.ci/run installs it); it compiles the fake NVML library";
    } else if (prometheusBinary == null) {
      missing = "prometheus " + Promtool.INSTALL_HINT;
    }
    if (missing != null) {
      System.err.println("PrometheusEndToEndIT skipped: " + missing);
      return;
    }

    work = Files.createTempDirectory("gputop-e2e-");
    Path fakeNvml = work.resolve("libnvidia-ml.so.1");
    Examples.Run cc = Examples.run(work, 120, gcc.toString(), "-shared", "-fPIC", "-O2", "-o", fakeNvml.toString(),
        fakeNvmlSource.toAbsolutePath().toString());
    assertThat(cc.exitCode()).as("gcc: " + cc.output()).isZero();

    // The demo replicas, in a process that looks like `vllm serve --port P` to discovery.
    int basePort = freePortBlock(4);
    Path classes = Files.createDirectories(work.resolve("classes"));
    compileServeClass(classes, jar);
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder fleet = new ProcessBuilder("bash", "-c", "exec -a vllm \"$0\" serve --port " + basePort, javaBin)
        .directory(work.toFile());
    fleet.environment().put("CLASSPATH", classes + java.io.File.pathSeparator + jar.toAbsolutePath());
    Background replicas = start("replicas", fleet);
    replicas.awaitOutput("llamacpp ", Duration.ofSeconds(30));

    // The agent.
    int agentPort = freePortBlock(1);
    int nobodyListens = freePortBlock(1);
    int noAgentThere = freePortBlock(1);
    Path agentYaml = work.resolve("agent.yaml");
    Files.writeString(agentYaml, String.join("\n",
        "listen: 127.0.0.1:" + agentPort,
        "refresh:",
        "  normal: 1s",
        "inference:",
        "  window: 15s",
        "  discovery:",
        "    enabled: true",
        "    scope: gpu",
        "  endpoints:",
        "    - name: sglang-tp2",
        "      url: http://127.0.0.1:" + (basePort + 1) + "/metrics",
        "    - name: tgi",
        "      url: http://127.0.0.1:" + (basePort + 2) + "/metrics",
        "    - name: llamacpp",
        "      url: http://127.0.0.1:" + (basePort + 3) + "/metrics",
        "    - name: unreachable",
        "      url: http://127.0.0.1:" + nobodyListens + "/metrics",
        "nvml:",
        "  enabled: true",
        "  library: " + fakeNvml,
        "kubernetes:",
        "  enabled: false",
        ""), StandardCharsets.UTF_8);
    ProcessBuilder agent = new ProcessBuilder(javaBin, "-jar", jar.toAbsolutePath().toString(), "run", "--config", agentYaml.toString())
        .directory(work.toFile());
    long vllmPid = replicas.process.pid();
    agent.environment().put("FAKE_NVML_DEVICE_COUNT", "2");
    agent.environment().put("FAKE_NVML_PROCESSES",
        vllmPid + ":0:17179869184," + vllmPid + ":1:17179869184," + ProcessHandle.current().pid() + ":1:1073741824");
    agent.environment().put("OTEL_METRICS_EXPORTER", "none");
    start("agent", agent);
    agentInstance = "127.0.0.1:" + agentPort;

    // Prometheus.
    int prometheusPort = freePortBlock(1);
    Path config = work.resolve("prometheus.yml");
    Files.writeString(config, String.join("\n",
        "global:",
        "  scrape_interval: 1s",
        "  scrape_timeout: 1s",
        "  evaluation_interval: 1s",
        "rule_files:",
        "  - " + Examples.file("prometheus/alerts.yml").toAbsolutePath(),
        "scrape_configs:",
        "  - job_name: " + Examples.AGENT_JOB,
        "    static_configs:",
        "      - targets: ['" + agentInstance + "', '127.0.0.1:" + noAgentThere + "']",
        ""), StandardCharsets.UTF_8);
    start("prometheus", new ProcessBuilder(prometheusBinary.toString(), "--config.file=" + config,
        "--storage.tsdb.path=" + work.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + prometheusPort,
        "--log.level=warn").directory(work.toFile()));
    prometheus = new PrometheusApi("http://127.0.0.1:" + prometheusPort);

    awaitEveryQueryHasData();
  }

  @BeforeEach
  void stackIsRunning() {
    assumeTrue(missing == null, () -> missing);
  }

  @AfterAll
  static void stopEverything() throws IOException {
    for (int i = processes.size() - 1; i >= 0; i--) {
      processes.get(i).stop();
    }
    if (work != null) {
      try (var files = Files.walk(work)) {
        for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  @Test
  void dashboardVariables_resolveToValuesFromTheAgent() {
    assertThat(variables.get("instance")).isEqualTo(REGEX_META.matcher(agentInstance).replaceAll("\\\\\\\\$0"));
    assertThat(variables.get("server")).isNotBlank();
  }

  @Test
  void everyDashboardQuery_returnsData() {
    assertThat(variables).as("dashboard variables resolved from the data; logs:\n" + logs()).containsKeys("instance", "server");
    SoftAssertions soft = new SoftAssertions();
    for (Dashboard.Query q : Dashboard.load(DashboardTest.DASHBOARD).queries()) {
      String expr = Dashboard.substitute(q.expr(), variables);
      List<JsonNode> result = lastResults.containsKey(expr) ? lastResults.get(expr) : prometheus.query(expr);
      soft.assertThat(result).as("panel '%s' query %s: %s", q.panelTitle(), q.refId(), expr).isNotEmpty();
      soft.assertThat(result.stream().anyMatch(PrometheusEndToEndIT::finite))
          .as("panel '%s' query %s has a number, not only NaN: %s", q.panelTitle(), q.refId(), expr).isTrue();
    }
    soft.assertAll();
  }

  @Test
  void everyAlertExpression_returnsData_relaxedWhereItOnlyDoesWhileFiring() {
    SoftAssertions soft = new SoftAssertions();
    for (JsonNode rule : AlertRulesTest.alertRules()) {
      String name = rule.path("alert").asText();
      String expr = alertExpression(rule);
      soft.assertThat(prometheus.query(expr)).as("%s: %s", name, expr).isNotEmpty();
    }
    soft.assertAll();
  }

  @Test
  void alertRules_loadAndEvaluateWithoutErrors() {
    Map<String, String> health = new TreeMap<>();
    for (JsonNode group : prometheus.rules().path("groups")) {
      for (JsonNode r : group.path("rules")) {
        health.put(r.path("name").asText(), r.path("health").asText() + " " + r.path("lastError").asText(""));
      }
    }
    assertThat(health.keySet()).containsAll(AlertRulesTest.REQUIRED_ALERTS);
    assertThat(health).allSatisfy((name, h) -> assertThat(h.trim()).as(name).isEqualTo("ok"));
  }

  @Test
  void unreachableEndpointAndMissingAgent_makeTheirAlertsPendingOrFiring() {
    Map<String, Set<String>> states = new TreeMap<>();
    for (JsonNode a : prometheus.alerts()) {
      states.computeIfAbsent(a.path("labels").path("alertname").asText(), k -> new TreeSet<>())
          .add(a.path("labels").path("server").asText(a.path("labels").path("instance").asText()) + "=" + a.path("state").asText());
    }
    assertThat(states.get("GputopInferenceEndpointUnhealthy")).as(states.toString())
        .anySatisfy(s -> assertThat(s).matches("unreachable=(pending|firing)"));
    assertThat(states.get("GputopAgentDown")).as(states.toString()).hasSize(1)
        .allSatisfy(s -> assertThat(s).matches("127\\.0\\.0\\.1:\\d+=(pending|firing)").doesNotStartWith(agentInstance + "="));
  }

  // ------------------------------------------------------------------ waiting for data

  /**
   * Polls until every dashboard expression returns a number, resolving the variables each round
   * as Grafana would; returns when all do or when {@link #READY_WITHIN} has passed (the tests then
   * report what is missing).
   */
  private static void awaitEveryQueryHasData() throws InterruptedException {
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    while (!prometheus.ready()) {
      assertThat(System.nanoTime()).as("Prometheus ready; logs:\n" + logs()).isLessThan(deadline);
      Thread.sleep(200);
    }
    Dashboard dashboard = Dashboard.load(DashboardTest.DASHBOARD);
    while (System.nanoTime() < deadline) {
      for (Background p : processes) {
        assertThat(p.process.isAlive()).as(p.name + " exited; logs:\n" + logs()).isTrue();
      }
      variables = resolveVariables(dashboard);
      if (variables != null) {
        Map<String, List<JsonNode>> results = new LinkedHashMap<>();
        boolean all = true;
        for (Dashboard.Query q : dashboard.queries()) {
          String expr = Dashboard.substitute(q.expr(), variables);
          List<JsonNode> r = prometheus.query(expr);
          results.put(expr, r);
          all &= r.stream().anyMatch(PrometheusEndToEndIT::finite);
        }
        lastResults = results;
        if (all) {
          return;
        }
      } else {
        variables = Map.of();
      }
      Thread.sleep(1000);
    }
    System.err.println("not every dashboard query has data after " + READY_WITHIN + "; logs:\n" + logs());
  }

  /**
   * The dashboard's variables as Grafana would set them from this Prometheus: $instance the
   * agent's instance (regex-escaped, as Grafana escapes a single value for =~), $server a server
   * that runs on GPUs, so the panels for one server all apply; null while there is no such data.
   */
  private static Map<String, String> resolveVariables(Dashboard dashboard) {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("__rate_interval", "30s");
    for (Dashboard.Variable v : dashboard.variables().values()) {
      Dashboard.LabelValues lv = Dashboard.parseLabelValues(Dashboard.substitute(v.query(), values));
      List<String> options = prometheus.labelValues(lv.label(), lv.selector());
      String chosen;
      if (v.name().equals("instance")) {
        chosen = options.contains(agentInstance) ? agentInstance : null;
      } else if (v.name().equals("server")) {
        List<String> onGpus = prometheus.labelValues("server", "gputop_gpu_process_memory_usage_bytes{server!=\"\"}");
        chosen = options.stream().filter(onGpus::contains).findFirst().orElse(null);
      } else {
        chosen = options.isEmpty() ? null : options.get(0);
      }
      if (chosen == null) {
        return null;
      }
      values.put(v.name(), REGEX_META.matcher(chosen).replaceAll("\\\\\\\\$0"));
      if (v.name().equals("server")) {
        values.put(v.name(), chosen); // used with =, not =~
      }
    }
    return values;
  }

  private static String alertExpression(JsonNode rule) {
    String expr = rule.path("expr").asText();
    for (Relax r : RELAXED.getOrDefault(rule.path("alert").asText(), List.of())) {
      assertThat(expr.split(Pattern.quote(r.from()), -1)).as(rule.path("alert").asText() + " has '" + r.from() + "' once").hasSize(2);
      expr = expr.replace(r.from(), r.to());
    }
    return expr;
  }

  private static boolean finite(JsonNode sample) {
    JsonNode value = sample.path("value");
    if (!value.isArray() || value.size() != 2) {
      return false;
    }
    try {
      return Double.isFinite(Double.parseDouble(value.get(1).asText()));
    } catch (NumberFormatException e) {
      return false;
    }
  }

  // ------------------------------------------------------------------ processes

  /** A child process whose output goes to a file, stopped (TERM, then KILL) at the end. */
  private static final class Background {
    final String name;
    final Process process;
    final Path log;

    Background(String name, Process process, Path log) {
      this.name = name;
      this.process = process;
      this.log = log;
    }

    String output() {
      try {
        return Files.readString(log, StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "(no log: " + e + ")";
      }
    }

    void awaitOutput(String text, Duration within) throws InterruptedException {
      long deadline = System.nanoTime() + within.toNanos();
      while (!output().contains(text)) {
        assertThat(process.isAlive()).as(name + " exited: " + output()).isTrue();
        assertThat(System.nanoTime()).as(name + " printed '" + text + "': " + output()).isLessThan(deadline);
        Thread.sleep(100);
      }
    }

    void stop() {
      process.destroy();
      try {
        if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  private static Background start(String name, ProcessBuilder pb) throws IOException {
    Path log = work.resolve(name + ".log");
    Background b = new Background(name, pb.redirectErrorStream(true).redirectOutput(log.toFile()).start(), log);
    processes.add(b);
    return b;
  }

  private static String logs() {
    return processes.stream().map(p -> "---- " + p.name + " ----\n" + tail(p.output(), 4000)).collect(Collectors.joining("\n"));
  }

  private static String tail(String s, int n) {
    return s.length() <= n ? s : s.substring(s.length() - n);
  }

  /** The first of {@code count} consecutive free loopback ports. */
  private static int freePortBlock(int count) throws IOException {
    for (int attempt = 0; attempt < 50; attempt++) {
      int first;
      try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        first = s.getLocalPort();
      }
      if (first + count > 65535) {
        continue;
      }
      boolean free = true;
      for (int p = first; p < first + count && free; p++) {
        try (ServerSocket s = new ServerSocket(p, 1, java.net.InetAddress.getLoopbackAddress())) {
          // bound: free
        } catch (IOException e) {
          free = false;
        }
      }
      if (free) {
        return first;
      }
    }
    throw new IOException("no block of " + count + " free ports");
  }

  /**
   * Compiles the main class of the replica process. Its name is {@code serve}, so that with
   * {@code argv[0] = vllm} the process's command line reads {@code vllm serve --port P}: the
   * JVM takes "serve" for the main class, discovery takes it for vLLM's subcommand.
   */
  private static void compileServeClass(Path classes, Path jar) throws IOException {
    Path source = classes.resolve("serve.java");
    Files.writeString(source, String.join("\n",
        "public class serve {",
        "  public static void main(String[] args) throws Exception {",
        "    int port = Integer.parseInt(args[args.length - 1]);",
        "    var demo = dev.gputop.agent.demo.DemoReplicas.builder().seed(7).restarts(false).basePort(port).start();",
        "    for (var r : demo.replicas()) {",
        "      System.out.println(r.name() + \" \" + r.engine() + \" \" + r.url());",
        "    }",
        "    System.out.flush();",
        "    Thread.sleep(Long.MAX_VALUE);",
        "  }",
        "}",
        ""), StandardCharsets.UTF_8);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertThat(javac).as("a JDK (javax.tools) to compile the replica launcher").isNotNull();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int rc = javac.run(null, err, err, "-classpath", jar.toAbsolutePath().toString(), "-d", classes.toString(), source.toString());
    assertThat(rc).as("compiling the replica launcher against " + jar + ": " + err).isZero();
  }
}
