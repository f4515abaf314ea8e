package dev.gputop.examples;

import dev.gputop.testing.Ci;
import dev.gputop.testing.FakeNvmlLibrary;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 *   <li>the nvml module's fake libnvidia-ml, compiled with gcc together with
 *       src/test/c/fake_nvml_scenario.c: three GPUs, that process on GPUs 0 and 1 (and one process
 *       that is no server), GPU 2 fallen off the bus;
 *   <li>a vLLM endpoint served by this test whose KV cache is 97% full with requests waiting;
 *   <li>the shaded agent jar, {@code run} with discovery on, the other three replicas, the full
 *       vLLM and one endpoint where nothing listens as configured endpoints;
 *   <li>Debian's {@code prometheus}, scraping the agent every two seconds and a second target in the
 *       agent's job where nothing listens, with the alert rules loaded.
 * </ul>
 *
 * <p>So every alert has a real cause: a full KV cache with a queue, an endpoint that can't be
 * scraped, a lost GPU, an agent that doesn't answer. Then every dashboard expression (variables
 * set from the data as Grafana would) and every alert expression must return data, the rules must
 * evaluate without errors, and each alert must be pending or firing for the right series.
 */
class PrometheusEndToEndIT {

  private static final Duration READY_WITHIN = Duration.ofSeconds(100);
  private static final Pattern REGEX_META = Pattern.compile("[.*+?^${}()|\\[\\]\\\\]");

  /** A vLLM /metrics (V1 names) with 97% of the KV cache used and 17 requests queued. */
  private static final String FULL_KV_CACHE_VLLM = String.join("\n",
      "# HELP vllm:num_requests_running Number of requests in model execution batches.",
      "# TYPE vllm:num_requests_running gauge",
      "vllm:num_requests_running{engine=\"0\",model_name=\"meta-llama/Llama-3.1-70B-Instruct\"} 48.0",
      "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.",
      "# TYPE vllm:num_requests_waiting gauge",
      "vllm:num_requests_waiting{engine=\"0\",model_name=\"meta-llama/Llama-3.1-70B-Instruct\"} 17.0",
      "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.",
      "# TYPE vllm:kv_cache_usage_perc gauge",
      "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"meta-llama/Llama-3.1-70B-Instruct\"} 0.97",
      "");

  private static Path work;
  private static com.sun.net.httpserver.HttpServer fullKvCache;
  /** A vLLM that misses its SLOs: 80% of requests within the TTFT target, 90% within the ITL target. */
  private static com.sun.net.httpserver.HttpServer sloBreach;
  private static final java.util.concurrent.atomic.AtomicLong sloSteps = new java.util.concurrent.atomic.AtomicLong(9);
  /** A vLLM serving two models: 9 and 4 requests running, 10 and 3 more finished per scrape. */
  private static com.sun.net.httpserver.HttpServer twoModels;
  private static final java.util.concurrent.atomic.AtomicLong twoModelScrapes = new java.util.concurrent.atomic.AtomicLong();
  /**
   * A vLLM that finishes 10 requests between any two scrapes and restarts at scrape {@value
   * #RESTART_AT}: its counter goes from 1000 + 10 n down to 10 and grows by 10 again. So after the
   * agent's k-th scrape its total is exactly 10 (k - 1), the restart included.
   */
  private static com.sun.net.httpserver.HttpServer restarting;
  private static com.sun.net.httpserver.HttpServer efficient;
  private static final long EFFICIENT_ORIGIN = System.nanoTime();
  private static final double EFFICIENT_TOKENS_PER_SECOND = 1000;
  /** GPU 3's power in the fake: 100 + 10 x 3 W. */
  private static final double GPU3_WATTS = 130;
  private static final java.util.concurrent.atomic.AtomicLong restartingScrapes = new java.util.concurrent.atomic.AtomicLong();
  private static final int RESTART_AT = 8;
  /** The Prometheus job that scrapes slo-breach itself (its raw vLLM histograms). */
  private static final String ENGINE_JOB = "slo-breach-engine";
  private static final List<Background> processes = new ArrayList<>();
  private static PrometheusApi prometheus;
  private static String agentInstance;
  private static JsonNode firstSnapshot;
  private static String discoveredName;
  /** The fake NVML library reads Xid events appended to this file (FAKE_NVML_XID_FILE). */
  private static Path xidFile;
  private static boolean xidFired;
  private static Map<String, String> variables = Map.of();
  private static Map<String, List<JsonNode>> lastResults = Map.of();

  /** Why the stack can't start here (a missing prerequisite), or null; each test reports it as its skip reason. */
  private static String missing;

  @BeforeAll
  static void startAgentAndPrometheus() throws Exception {
    Path jar = Path.of(System.getProperty("gputop.agent.jar", "../agent/target/gputop-agent.jar"));
    Path prometheusBinary = Examples.onPath("prometheus").orElse(null);
    if (!Files.isRegularFile(jar)) {
      missing = "the shaded agent jar " + jar + " is not built (the agent module builds it before examples in the reactor)";
    } else if (prometheusBinary == null) {
      missing = "prometheus " + Promtool.INSTALL_HINT;
    }
    if (missing != null) {
      Ci.require(false, "PrometheusEndToEndIT: " + missing); // prints and skips; fails in CI
      return;
    }

    work = Files.createTempDirectory("gputop-e2e-");
    // gcc: skipped locally without it, a failure in CI (test-support's one builder decides).
    Path fakeNvml = FakeNvmlLibrary.build("e2e-scenario", List.of(),
        List.of(Examples.file("src/test/c/fake_nvml_scenario.c")));

    // The demo replicas, in a process that looks like `vllm serve --port P` to discovery.
    // One port per demo replica, counted where the replicas are declared (a fixed 4 let the
    // fifth replica's port be taken by another process).
    int basePort = freePortBlock(dev.gputop.agent.demo.DemoReplicas.NAMES.size());
    Path classes = Files.createDirectories(work.resolve("classes"));
    compileServeClass(classes, jar);
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder fleet = new ProcessBuilder("bash", "-c", "exec -a vllm \"$0\" serve --port " + basePort, javaBin)
        .directory(work.toFile());
    fleet.environment().put("CLASSPATH", classes + java.io.File.pathSeparator + jar.toAbsolutePath());
    Background replicas = start("replicas", fleet);
    replicas.awaitOutput("llamacpp ", Duration.ofSeconds(30));

    // A vLLM whose KV cache is full while requests wait.
    fullKvCache = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 4);
    fullKvCache.createContext("/metrics", exchange -> {
      byte[] body = FULL_KV_CACHE_VLLM.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    fullKvCache.start();

    // A vLLM that misses its SLOs, its histograms growing by the same step at every scrape.
    sloBreach = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 4);
    sloBreach.createContext("/metrics", exchange -> {
      byte[] body = sloBreachExposition(sloSteps.incrementAndGet()).getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    sloBreach.start();

    twoModels = serve(() -> twoModelsExposition(twoModelScrapes.incrementAndGet()));
    // A vLLM on GPU 3 generating EFFICIENT_TOKENS_PER_SECOND on the monotonic clock the fake's
    // energy counters grow on (CLOCK_MONOTONIC, System.nanoTime's): its joules per token are
    // GPU 3's 130 W over that rate, whatever the window.
    efficient = serve(() -> "# TYPE vllm:generation_tokens counter\n"
        + "vllm:generation_tokens_total{model_name=\"e\"} "
        + (System.nanoTime() - EFFICIENT_ORIGIN) / 1_000_000_000.0 * EFFICIENT_TOKENS_PER_SECOND + "\n");
    restarting = serve(() -> restartingExposition(restartingScrapes.incrementAndGet()));

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
        "    - name: full-kv-cache",
        "      url: http://127.0.0.1:" + fullKvCache.getAddress().getPort() + "/metrics",
        "    - name: unreachable",
        "      url: http://127.0.0.1:" + nobodyListens + "/metrics",
        "    - name: slo-breach",
        "      url: http://127.0.0.1:" + sloBreach.getAddress().getPort() + "/metrics",
        "    - name: two-models",
        "      url: http://127.0.0.1:" + twoModels.getAddress().getPort() + "/metrics",
        "    - name: restarting",
        "      url: http://127.0.0.1:" + restarting.getAddress().getPort() + "/metrics",
        "    - name: efficient",
        "      url: http://127.0.0.1:" + efficient.getAddress().getPort() + "/metrics",
        "      gpus: [3]",
        // The targets and objective slo.yml assumes, so the agent's attainment and the rules' agree.
        "  slo:",
        "    ttft: 1s",
        "    itl: 100ms",
        "    objective: 0.99",
        "nvml:",
        "  enabled: true",
        "  library: " + fakeNvml,
        "kubernetes:",
        "  enabled: false",
        ""), StandardCharsets.UTF_8);
    ProcessBuilder agent = new ProcessBuilder(javaBin, "-jar", jar.toAbsolutePath().toString(), "run", "--config", agentYaml.toString())
        .directory(work.toFile());
    long vllmPid = replicas.process.pid();
    agent.environment().put("FAKE_NVML_DEVICE_COUNT", "4");
    agent.environment().put("FAKE_NVML_ENERGY_GROWS", "1");
    agent.environment().put("FAKE_NVML_LOST", "2");
    // GPU 0 has memory and link faults (a failed and a pending row remap, rising PCIe replays and
    // NVLink errors), and gets an Xid 48 once Prometheus has its counter at 0.
    agent.environment().put("FAKE_NVML_FAULTY", "0");
    xidFile = Files.createFile(work.resolve("xid-events"));
    agent.environment().put("FAKE_NVML_XID_FILE", xidFile.toString());
    agent.environment().put("FAKE_NVML_PROCESSES",
        vllmPid + ":0:17179869184," + vllmPid + ":1:17179869184," + ProcessHandle.current().pid() + ":1:1073741824");
    agent.environment().put("OTEL_METRICS_EXPORTER", "none");
    Background agentProcess = start("agent", agent);
    agentInstance = "127.0.0.1:" + agentPort;
    // What the agent knew at the end of its first refresh: the inference receiver's first refresh
    // waits for NVML's first sample, so discovery's first pass already sees the vLLM's GPU PIDs.
    agentProcess.awaitOutput("first refresh of every receiver done", Duration.ofSeconds(60));
    HttpClient http = HttpClient.newHttpClient();
    firstSnapshot = Examples.JSON.readTree(http.send(
        HttpRequest.newBuilder(URI.create("http://" + agentInstance + "/api/snapshot")).build(),
        HttpResponse.BodyHandlers.ofString()).body());
    discoveredName = "vllm-" + basePort;

    // Prometheus.
    int prometheusPort = freePortBlock(1);
    Path config = work.resolve("prometheus.yml");
    Files.writeString(config, String.join("\n",
        "global:",
        "  scrape_interval: 2s",
        "  scrape_timeout: 2s",
        "  evaluation_interval: 1s",
        "rule_files:",
        "  - " + Examples.file("prometheus/alerts.yml").toAbsolutePath(),
        "  - " + Examples.file("prometheus/slo.yml").toAbsolutePath(),
        "  - " + Examples.file("prometheus/efficiency.yml").toAbsolutePath(),
        "scrape_configs:",
        "  - job_name: " + Examples.AGENT_JOB,
        "    static_configs:",
        "      - targets: ['" + agentInstance + "', '127.0.0.1:" + noAgentThere + "']",
        // slo-breach's own /metrics too, for the request lengths against PromQL on the raw histogram.
        "  - job_name: " + ENGINE_JOB,
        "    static_configs:",
        "      - targets: ['127.0.0.1:" + sloBreach.getAddress().getPort() + "']",
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
    if (fullKvCache != null) {
      fullKvCache.stop(0);
    }
    if (sloBreach != null) {
      sloBreach.stop(0);
    }
    if (twoModels != null) {
      twoModels.stop(0);
    }
    if (restarting != null) {
      restarting.stop(0);
    }
    if (efficient != null) {
      efficient.stop(0);
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
  void firstSnapshot_alreadyHasTheDiscoveredServerWithItsGpus() {
    JsonNode found = null;
    for (JsonNode server : firstSnapshot.get("inference")) {
      if (server.get("name").asText().equals(discoveredName)) {
        found = server;
      }
    }
    assertThat(found).as("%s in the first snapshot: %s", discoveredName, firstSnapshot.get("inference")).isNotNull();
    assertThat(found.get("source").asText()).isEqualTo("discovered");
    assertThat(found.get("gpus")).extracting(JsonNode::asInt).containsExactly(0, 1);
  }

  @Test
  void serverInfo_namesTheModelOfEveryServer_andTheDashboardsModelVariableNarrowsItsServers() {
    assertThat(prometheus.query("gputop_inference_served_model{server=\"two-models\"}"))
        .extracting(r -> r.path("metric").path("model").asText()).containsExactlyInAnyOrder("a", "b");
    assertThat(prometheus.query("gputop_inference_served_model{server=\"restarting\"}"))
        .extracting(r -> r.path("metric").path("model").asText()).containsExactly("m");
    Dashboard.Variable server = Dashboard.load(DashboardTest.DASHBOARD).variables().get("server");
    Dashboard.LabelValues lv = Dashboard.parseLabelValues(Dashboard.substitute(server.query(),
        Map.of("instance", variables.get("instance"), "model", "a")));
    assertThat(prometheus.labelValues(lv.label(), lv.selector())).containsExactly("two-models");
    // Joined through it: the servers of a model, and a single-model server's value with its model.
    assertThat(prometheus.query("gputop_inference_requests_running and on (instance, server) "
        + "gputop_inference_served_model{model=\"m\"}"))
        .singleElement().satisfies(r -> assertThat(r.path("metric").path("server").asText()).isEqualTo("restarting"));
    assertThat(prometheus.query("gputop_inference_requests_running{server=\"restarting\"} * on (instance, server) "
        + "group_left (model) gputop_inference_served_model{server=\"restarting\"}"))
        .singleElement().satisfies(r -> assertThat(r.path("metric").path("model").asText()).isEqualTo("m"));
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
  void everyAlertExpression_returnsData() {
    SoftAssertions soft = new SoftAssertions();
    for (JsonNode rule : AlertRulesTest.alertRules()) {
      String expr = rule.path("expr").asText();
      soft.assertThat(prometheus.query(expr)).as("%s: %s", rule.path("alert").asText(), expr).isNotEmpty();
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
  void eachAlert_isPendingOrFiring_forItsCause() {
    Map<String, Set<String>> states = new TreeMap<>();
    for (JsonNode a : prometheus.alerts()) {
      JsonNode l = a.path("labels");
      String subject = l.has("server") ? l.path("server").asText() : l.has("hw_name") ? l.path("hw_name").asText() : l.path("instance").asText();
      states.computeIfAbsent(l.path("alertname").asText(), k -> new TreeSet<>()).add(subject + "=" + a.path("state").asText());
    }
    states.keySet().removeAll(SloRulesTest.SLO_ALERTS); // sloBurnAlerts_fireForTheServerThatMissesItsSlos
    // Causes that last: the full KV cache, the endpoint nobody serves, the lost GPU, the agent
    // target nobody serves. (A demo server that misses a scrape on a loaded machine may add a
    // short-lived pending alert of its own, which is right, so only the causes are required.)
    assertThat(states.keySet()).as(states.toString()).containsExactlyInAnyOrderElementsOf(AlertRulesTest.REQUIRED_ALERTS);
    assertThat(states.get("GputopKvCacheFull")).as(states.toString()).anySatisfy(s -> assertThat(s).matches("full-kv-cache=(pending|firing)"));
    assertThat(states.get("GputopInferenceEndpointUnhealthy")).as(states.toString()).anySatisfy(s -> assertThat(s).matches("unreachable=(pending|firing)"));
    assertThat(states.get("GputopGpuFailed")).as("no `for`: fires at once, for the lost GPU only; " + states).containsExactly("GPU 2=firing");
    assertThat(states.get("GputopGpuXid")).as("the Xid 48 fired at GPU 0; " + states).containsExactly("GPU 0=firing");
    assertThat(states.get("GputopGpuRowRemapFailed")).as(states.toString()).containsExactly("GPU 0=firing");
    assertThat(states.get("GputopGpuMemoryRepairPending")).as(states.toString()).containsExactly("GPU 0=pending");
    assertThat(states.get("GputopGpuPcieReplaysRising")).as(states.toString()).containsExactly("GPU 0=pending");
    assertThat(states.get("GputopGpuNvLinkErrors")).as(states.toString())
        .allSatisfy(s -> assertThat(s).isEqualTo("GPU 0=pending")).isNotEmpty();
    assertThat(states.get("GputopAgentDown")).as(states.toString()).anySatisfy(s -> assertThat(s).matches("127\\.0\\.0\\.1:\\d+=(pending|firing)").doesNotStartWith(agentInstance + "="));
  }

  @Test
  void everySloRuleExpression_returnsData() {
    SoftAssertions soft = new SoftAssertions();
    for (JsonNode rule : SloRulesTest.rules()) {
      String expr = rule.path("expr").asText();
      String name = rule.has("alert") ? rule.path("alert").asText() : rule.path("record").asText() + " " + rule.path("labels").path("slo").asText();
      soft.assertThat(prometheus.query(expr)).as("%s: %s", name, expr).isNotEmpty();
    }
    soft.assertAll();
  }

  @Test
  void sloRecordingRules_equalTheAgentsOwnAttainment() {
    // Every bucket and count of slo-breach grows by the same step per scrape, so PromQL's rate
    // ratio is the step ratio for any window: the agent (over its scrapes) and Prometheus (over
    // its scrapes of the agent's re-exported histograms) must agree exactly.
    for (String[] c : new String[][] {{"ttft", "0.8"}, {"itl", "0.9"}}) {
      String sel = "{server=\"slo-breach\", slo=\"" + c[0] + "\"}";
      double recorded = value(prometheus.query("gputop:slo_attainment:ratio_rate5m" + sel));
      double agent = value(prometheus.query("gputop_inference_slo_attainment_ratio" + sel));
      assertThat(recorded).as("recorded " + c[0]).isCloseTo(Double.parseDouble(c[1]), org.assertj.core.api.Assertions.within(1e-9));
      assertThat(agent).as("agent " + c[0]).isCloseTo(recorded, org.assertj.core.api.Assertions.within(1e-9));
      double burn = value(prometheus.query("gputop_inference_slo_burn_rate" + sel));
      assertThat(burn).as("burn " + c[0]).isCloseTo((1 - recorded) / (1 - 0.99), org.assertj.core.api.Assertions.within(1e-6));
    }
  }

  @Test
  void requestLengths_areHistogramQuantileOverTheServersOwnHistogram() {
    // slo-breach's prompt-length buckets all grow by the same step per scrape (each scrape, the
    // agent's or Prometheus's, is a step), so the quantiles are the step's for any window: the
    // agent's over its window and PromQL's over Prometheus's own scrapes of the server agree (to
    // the rounding of two rate ratios: 1e-6 on values of about a thousand).
    String raw = "{job=\"" + ENGINE_JOB + "\"}";
    String agent = "{server=\"slo-breach\"";
    // p50: rank 5 of 10 in (128, 512], which holds 5: 128 + 384 × 2/5; p90: rank 9 in (512,
    // 2048], which holds 2: 512 + 1536 × 1/2; p99: 512 + 1536 × 1.9/2.
    for (String[] q : new String[][] {{"0.5", "281.6"}, {"0.9", "1280"}, {"0.99", "1971.2"}}) {
      double promql = value(prometheus.query("histogram_quantile(" + q[0]
          + ", sum by (le) (rate(vllm:request_prompt_tokens_bucket" + raw + "[1m])))"));
      double ours = value(prometheus.query("gputop_inference_prompt_tokens_per_request" + agent
          + ", quantile=\"" + q[0] + "\"}"));
      assertThat(promql).as("PromQL p" + q[0]).isCloseTo(Double.parseDouble(q[1]), org.assertj.core.api.Assertions.within(1e-6));
      assertThat(ours).as("agent p" + q[0]).isCloseTo(promql, org.assertj.core.api.Assertions.within(1e-6));
    }
    double mean = value(prometheus.query("rate(vllm:request_prompt_tokens_sum" + raw + "[1m])"
        + " / rate(vllm:request_prompt_tokens_count" + raw + "[1m])"));
    assertThat(mean).isCloseTo(300, org.assertj.core.api.Assertions.within(1e-9));
    assertThat(value(prometheus.query("gputop_inference_prompt_tokens_per_request_mean" + agent + "}")))
        .isCloseTo(mean, org.assertj.core.api.Assertions.within(1e-9));
    // slo-breach exports no generation histogram: no series (N/A), never a 0.
    assertThat(prometheus.query("gputop_inference_generation_tokens_per_request" + agent + "}")).isEmpty();
  }

  @Test
  void sloBurnAlerts_fireForTheServerThatMissesItsSlos() {
    Map<String, Set<String>> states = new TreeMap<>();
    for (JsonNode a : prometheus.alerts()) {
      JsonNode l = a.path("labels");
      if (SloRulesTest.SLO_ALERTS.contains(l.path("alertname").asText())) {
        states.computeIfAbsent(l.path("alertname").asText(), k -> new TreeSet<>())
            .add(l.path("server").asText() + " " + l.path("slo").asText() + "=" + a.path("state").asText());
      }
    }
    // TTFT burns at 20x (both pairs page), ITL at 10x (only the 6h/30m pair); no `for`: firing.
    assertThat(states.get("GputopSloFastBurn")).as(states.toString()).contains("slo-breach ttft=firing")
        .doesNotContain("slo-breach itl=firing");
    assertThat(states.get("GputopSloSlowBurn")).as(states.toString()).contains("slo-breach ttft=firing", "slo-breach itl=firing");
  }

  @Test
  void aTwoModelServer_isCountedOnce_sumByServerIsItsValue_itsModelsAddUpToIt() {
    assertThat(value(prometheus.query("sum by (server) (gputop_inference_requests_running{server=\"two-models\"})")))
        .as("the server family holds the server once").isEqualTo(13);
    assertThat(prometheus.query("gputop_inference_requests_running{server=\"two-models\"}"))
        .singleElement().satisfies(r -> assertThat(r.path("metric").has("model")).isFalse());
    Map<String, Double> perModel = new TreeMap<>();
    for (JsonNode r : prometheus.query("gputop_inference_model_requests_running{server=\"two-models\"}")) {
      perModel.put(r.path("metric").path("model").asText(), Double.parseDouble(r.path("value").get(1).asText()));
    }
    assertThat(perModel).containsExactly(Map.entry("a", 9.0), Map.entry("b", 4.0));
    // The queries below compare values that change from one scrape to the next (some servers'
    // running requests move), so they are all evaluated at the time of one scrape of the agent:
    // the samples of one scrape are stored together, and none of them is missing at its time.
    String oneScrape = lastScrapeOfTheAgent();
    // The fleet's requests running: every server once (the two models are not added on top).
    double fleet = value(prometheus.queryAt("sum(gputop_inference_requests_running{instance=\"" + agentInstance + "\"})", oneScrape));
    double perServer = 0;
    for (JsonNode r : prometheus.queryAt("gputop_inference_requests_running{instance=\"" + agentInstance + "\"}", oneScrape)) {
      perServer += Double.parseDouble(r.path("value").get(1).asText());
    }
    assertThat(fleet).isEqualTo(perServer);
    // The counters likewise: the models' success counts add up to the server's.
    double server = value(prometheus.queryAt("sum(gputop_inference_requests_total{server=\"two-models\", outcome=\"success\"})", oneScrape));
    double models = value(prometheus.queryAt("sum(gputop_inference_model_requests_total{server=\"two-models\", outcome=\"success\"})", oneScrape));
    assertThat(models).isEqualTo(server).isPositive();
    assertThat(server % 13).as("13 requests per scrape of the two models together").isZero();
  }

  @Test
  void energyPerToken_fromTheExportedCountersInPromql_isTheAgentsOwn() {
    String sel = "{server=\"efficient\"}";
    double expected = GPU3_WATTS / EFFICIENT_TOKENS_PER_SECOND;
    double agent = value(prometheus.query("gputop_inference_energy_per_generated_token_joules" + sel));
    // The agent's window is 15 s; Prometheus scrapes it every 2 s: the last 14 s of its samples.
    double promql = value(prometheus.query("increase(gputop_inference_energy_joules_total" + sel + "[15s])"
        + " / increase(gputop_inference_generation_tokens_total" + sel + "[15s])"));
    double recorded = value(prometheus.query("gputop:energy_per_generated_token:joules_increase1h" + sel));
    // Each scrape's energy is NVML's newest sample, taken on the NVML receiver's own 1 s refresh:
    // at most one refresh apart from the scrape at either end of a range of at least 13 s, so
    // the energy's span and the tokens' differ by at most 2 s of 13: 16%.
    org.assertj.core.data.Percentage bound = org.assertj.core.data.Percentage.withPercentage(16);
    System.out.printf("PrometheusEndToEndIT: joules per generated token of 'efficient': expected %.4f,"
        + " agent %.4f, PromQL increase()/increase() %.4f, efficiency.yml 1h %.4f%n", expected, agent, promql, recorded);
    assertThat(agent).as("the agent's live value").isCloseTo(expected, bound);
    assertThat(promql).as("PromQL from the exported counters").isCloseTo(expected, bound);
    assertThat(recorded).as("efficiency.yml's rule").isCloseTo(expected, bound);
    assertThat(value(prometheus.query("gputop_inference_power_watts" + sel))).isEqualTo(GPU3_WATTS);
    // The discovered vLLM runs on GPUs 0 and 1 (the test's JVM on GPU 1 is no server): both
    // GPUs' power, and an energy counter that grows.
    String vllm = "{server=\"" + discoveredName + "\"}";
    assertThat(value(prometheus.query("gputop_inference_power_watts" + vllm))).isEqualTo(210);
    assertThat(value(prometheus.query("increase(gputop_inference_energy_joules_total" + vllm + "[30s])"))).isPositive();
  }

  @Test
  void up_isOneSeriesPerServer_andTheStateSetHasOneStateAtOne() {
    String agent = "instance=\"" + agentInstance + "\"";
    List<JsonNode> up = prometheus.query("count by (server) (gputop_inference_up{" + agent + "})");
    assertThat(up).hasSizeGreaterThanOrEqualTo(8)
        .allSatisfy(r -> assertThat(r.path("value").get(1).asText()).as(r.toString()).isEqualTo("1"));
    // Over the whole run, too: a state change never made a second series.
    assertThat(prometheus.query("count by (server) (count_over_time(gputop_inference_up{" + agent + "}[10m]))"))
        .hasSameSizeAs(up)
        .allSatisfy(r -> assertThat(r.path("value").get(1).asText()).as("one series over the run: " + r).isEqualTo("1"));
    assertThat(prometheus.query("count by (server) (group by (server, engine) (gputop_inference_up{" + agent + "}))"))
        .allSatisfy(r -> assertThat(r.path("value").get(1).asText()).as("one engine per server: " + r).isEqualTo("1"));
    assertThat(prometheus.query("sum by (server) (gputop_inference_server_state{" + agent + "})"))
        .hasSameSizeAs(up).allSatisfy(r -> assertThat(r.path("value").get(1).asText()).as(r.toString()).isEqualTo("1"));
    assertThat(prometheus.query("count by (server) (gputop_inference_server_state{" + agent + "})"))
        .allSatisfy(r -> assertThat(r.path("value").get(1).asText()).as("every state present: " + r).isEqualTo("3"));
    assertThat(value(prometheus.query("gputop_inference_up{server=\"unreachable\"}"))).isZero();
    assertThat(value(prometheus.query("gputop_inference_server_state{server=\"unreachable\", state=\"down\"}"))).isEqualTo(1);
  }

  @Test
  void aRestartingServer_itsRequestsCounterNeverGoesBack_andCountsExactlyWhatItCompleted() throws Exception {
    String series = "gputop_inference_requests_total{server=\"restarting\", outcome=\"success\"}";
    // Wait (on the data, not the clock) until Prometheus holds a sample from after the restart.
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    while (prometheus.query(series + " >= " + 10 * (RESTART_AT + 2)).isEmpty()) {
      assertThat(System.nanoTime()).as(() -> "a sample after the restart; logs:\n" + logs()).isLessThan(deadline);
      Thread.sleep(500);
    }
    assertThat(restartingScrapes.get()).isGreaterThan(RESTART_AT);
    // The samples and increase() over them are read at one time, so a scrape between the two
    // queries can't add a sample to one of them only.
    String oneScrape = lastScrapeOfTheAgent();
    List<JsonNode> samples = prometheus.queryAt(series + "[10m]", oneScrape);
    assertThat(samples).hasSize(1);
    double previous = -1;
    for (JsonNode v : samples.get(0).path("values")) {
      double x = Double.parseDouble(v.get(1).asText());
      // 10 (k - 1) after the agent's k-th scrape: never the server's own 1000 + 10 n, never lower.
      assertThat(x % 10).as("sample %s", v).isZero();
      assertThat(x).as("sample %s", v).isGreaterThanOrEqualTo(previous).isLessThan(1000);
      previous = x;
    }
    assertThat(value(prometheus.query("resets(" + series + "[10m])"))).isZero();
    // increase() over a range that holds the restart: the samples' difference, never a negative
    // or the server's pre-restart total (Prometheus only extrapolates it to the range's edges).
    // Prometheus extrapolates at most half an average interval past the first sample and 1.1
    // past the last one (its extrapolatedRate), so the bound comes from the samples' own spacing.
    JsonNode values = samples.get(0).path("values");
    int n = values.size();
    double first = Double.parseDouble(values.get(0).get(1).asText());
    double last = Double.parseDouble(values.get(n - 1).get(1).asText());
    double sampled = values.get(n - 1).get(0).asDouble() - values.get(0).get(0).asDouble();
    double interval = sampled / (n - 1);
    double increase = value(prometheus.queryAt("increase(" + series + "[10m])", oneScrape));
    assertThat(increase).isGreaterThanOrEqualTo(last - first)
        .isLessThanOrEqualTo((last - first) * (1 + 1.6 * interval / sampled) + 1e-9);
  }

  /**
   * The time of Prometheus's newest scrape of the agent, as Prometheus wrote it: every sample of
   * that scrape is stored at it, so queries evaluated there all read that one scrape.
   */
  private static String lastScrapeOfTheAgent() {
    List<JsonNode> up = prometheus.query("timestamp(up{instance=\"" + agentInstance + "\"})");
    assertThat(up).hasSize(1);
    return up.get(0).path("value").get(1).asText();
  }

  private static double value(List<JsonNode> result) {
    assertThat(result).hasSize(1);
    return Double.parseDouble(result.get(0).path("value").get(1).asText());
  }

  /** A loopback vLLM-like /metrics whose body is made per request. */
  private static com.sun.net.httpserver.HttpServer serve(java.util.function.Supplier<String> body) throws IOException {
    com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 4);
    server.createContext("/metrics", exchange -> {
      byte[] b = body.get().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, b.length);
      exchange.getResponseBody().write(b);
      exchange.close();
    });
    server.start();
    return server;
  }

  /** two-models' /metrics at scrape k: models a and b, 9 and 4 running, 10 k and 3 k finished. */
  private static String twoModelsExposition(long k) {
    return "# TYPE vllm:num_requests_running gauge\n"
        + "vllm:num_requests_running{engine=\"0\",model_name=\"a\"} 9\n"
        + "vllm:num_requests_running{engine=\"0\",model_name=\"b\"} 4\n"
        + "# TYPE vllm:request_success counter\n"
        + "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\",model_name=\"a\"} " + 10 * k + "\n"
        + "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\",model_name=\"b\"} " + 3 * k + "\n";
  }

  /** restarting's /metrics at its n-th response: 1000 + 10 n before the restart, 10 (n - R + 1) after. */
  private static String restartingExposition(long n) {
    long finished = n < RESTART_AT ? 1000 + 10 * n : 10 * (n - RESTART_AT + 1);
    return "# TYPE vllm:num_requests_running gauge\n"
        + "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 2\n"
        + "# TYPE vllm:request_success counter\n"
        + "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\",model_name=\"m\"} " + finished + "\n";
  }

  /** slo-breach's /metrics at scrape k: per step TTFT le 1: 80 of 100, ITL le 0.1: 900 of 1000. */
  private static String sloBreachExposition(long k) {
    String m = "{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"";
    return "# TYPE vllm:time_to_first_token_seconds histogram\n"
        + "vllm:time_to_first_token_seconds_bucket" + m + ",le=\"0.5\"} " + 60 * k + "\n"
        + "vllm:time_to_first_token_seconds_bucket" + m + ",le=\"1.0\"} " + 80 * k + "\n"
        + "vllm:time_to_first_token_seconds_bucket" + m + ",le=\"+Inf\"} " + 100 * k + "\n"
        + "vllm:time_to_first_token_seconds_count" + m + "} " + 100 * k + "\n"
        + "vllm:time_to_first_token_seconds_sum" + m + "} " + 70 * k + "\n"
        + "# TYPE vllm:inter_token_latency_seconds histogram\n"
        + "vllm:inter_token_latency_seconds_bucket" + m + ",le=\"0.05\"} " + 500 * k + "\n"
        + "vllm:inter_token_latency_seconds_bucket" + m + ",le=\"0.1\"} " + 900 * k + "\n"
        + "vllm:inter_token_latency_seconds_bucket" + m + ",le=\"+Inf\"} " + 1000 * k + "\n"
        + "vllm:inter_token_latency_seconds_count" + m + "} " + 1000 * k + "\n"
        + "vllm:inter_token_latency_seconds_sum" + m + "} " + 80 * k + "\n"
        // Prompt lengths, per step: 3 requests of at most 128 tokens, 5 in (128, 512], 2 in
        // (512, 2048], 3000 tokens in all.
        + "# TYPE vllm:request_prompt_tokens histogram\n"
        + "vllm:request_prompt_tokens_bucket" + m + ",le=\"128.0\"} " + 3 * k + "\n"
        + "vllm:request_prompt_tokens_bucket" + m + ",le=\"512.0\"} " + 8 * k + "\n"
        + "vllm:request_prompt_tokens_bucket" + m + ",le=\"2048.0\"} " + 10 * k + "\n"
        + "vllm:request_prompt_tokens_bucket" + m + ",le=\"+Inf\"} " + 10 * k + "\n"
        + "vllm:request_prompt_tokens_count" + m + "} " + 10 * k + "\n"
        + "vllm:request_prompt_tokens_sum" + m + "} " + 3000 * k + "\n"
        + "# TYPE vllm:num_requests_running gauge\n"
        + "vllm:num_requests_running" + m + "} 8\n";
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
      assertThat(System.nanoTime()).as(() -> "Prometheus ready; logs:\n" + logs()).isLessThan(deadline);
      Thread.sleep(200);
    }
    Dashboard dashboard = Dashboard.load(DashboardTest.DASHBOARD);
    long started = System.nanoTime();
    while (System.nanoTime() < deadline) {
      for (Background p : processes) {
        assertThat(p.process.isAlive()).as(() -> p.name + " exited; logs:\n" + logs()).isTrue();
      }
      fireXidOnceItsCounterIsScraped();
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
        for (JsonNode rule : AlertRulesTest.alertRules()) {
          all &= !prometheus.query(rule.path("expr").asText()).isEmpty();
        }
        for (JsonNode rule : SloRulesTest.rules()) {
          all &= !prometheus.query(rule.path("expr").asText()).isEmpty();
        }
        Set<String> firing = new TreeSet<>();
        prometheus.alerts().forEach(a -> firing.add(a.path("labels").path("alertname").asText()));
        all &= firing.containsAll(AlertRulesTest.REQUIRED_ALERTS) && firing.containsAll(SloRulesTest.SLO_ALERTS);
        lastResults = results;
        if (all) {
          System.out.printf("PrometheusEndToEndIT: every query has data %d s after Prometheus was ready; variables %s%n",
              (System.nanoTime() - started) / 1_000_000_000L, variables);
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
   * Appends an Xid 48 (double-bit ECC) for GPU 0 to the fake library's event file once Prometheus
   * has scraped that counter at 0, so increase() in GputopGpuXid sees the event.
   */
  private static void fireXidOnceItsCounterIsScraped() {
    if (xidFired || prometheus.query("gputop_gpu_xid_total{hw_name=\"GPU 0\", xid=\"48\"} == 0").isEmpty()) {
      return;
    }
    try {
      Files.writeString(xidFile, "0 48\n", StandardCharsets.US_ASCII, java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    xidFired = true;
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
      if (v.name().equals("model")) {
        // Grafana's default for it, All: its allValue.
        assertThat(prometheus.labelValues("model", "gputop_inference_served_model")).contains("a", "b");
        values.put("model", ".*");
        continue;
      }
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
        assertThat(process.isAlive()).as(() -> name + " exited: " + output()).isTrue();
        assertThat(System.nanoTime()).as(() -> name + " printed '" + text + "': " + output()).isLessThan(deadline);
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
        "    // Runs until stopped, or until the test JVM is gone and with it the other end of stdin.",
        "    while (System.in.read() >= 0) {",
        "    }",
        "    demo.close();",
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
