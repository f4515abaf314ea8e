package dev.gputop.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.agent.demo.DemoReplicas;
import dev.gputop.agent.demo.Kind;
import dev.gputop.agent.demo.Replica;
import dev.gputop.agent.demo.Truth;
import dev.gputop.agent.demo.Truths;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.MetricFamily;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.parse.Sample;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar, as a separate process, scraping the five demo replicas (started here, so the
 * test knows the true latencies they drew) and pushing OTLP/HTTP to an in-test receiver. One agent
 * run serves every assertion; each test reads what it needs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DemoReplicasIT {

  private static final Pattern FIRST_REFRESH =
      Pattern.compile("first refresh of every receiver done (\\d+) ms after start \\((\\d+) ms after the JVM started\\)");

  /** The agent's working directory for the class: its config and logs; JUnit removes it after. */
  @TempDir static Path dir;

  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  private final List<JsonNode> snapshots = new ArrayList<>();
  private DemoReplicas replicas;
  private OtlpHttpReceiver otlp;
  private AgentProcess agent;
  private String url;
  private JsonNode lastSnapshot;

  @BeforeAll
  void startEverything() throws Exception {
    replicas = Truths.recorded(DemoReplicas.builder().seed(11).restarts(false).start());
    otlp = new OtlpHttpReceiver();
    StringBuilder yaml = new StringBuilder(
        "listen: 127.0.0.1:0\nrefresh:\n  normal: 500ms\nnvml:\n  enabled: false\n"
            + "inference:\n  window: 30s\n  discovery:\n    enabled: false\n  endpoints:\n");
    for (Replica r : replicas.replicas()) {
      yaml.append("    - name: ").append(r.name()).append("\n      url: ").append(r.url()).append('\n');
    }
    Path config = dir.resolve("agent.yaml");
    Files.writeString(config, yaml);
    agent = AgentProcess.start(dir, Map.of(
            "OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint(),
            "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
            "OTEL_METRIC_EXPORT_INTERVAL", "1000",
            "OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=it"),
        "run", "--config", config.toString());
    url = agent.awaitListener(Duration.ofSeconds(60));

    // Until every server is up with rates, and OTLP carried latency quantiles of the latest state.
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < deadline) {
      lastSnapshot = snapshot();
      if (allUpWithRates(lastSnapshot) && otlp.latest("gputop.inference.ttft").size() > 0
          && otlp.latest("gen_ai.server.time_to_first_token").size() > 0
          && ttftPoints().size() >= 6) {
        return;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("agent never reported all five servers up with rates; last snapshot:\n"
        + lastSnapshot + "\nstderr:\n" + agent.err());
  }

  @AfterAll
  void stopEverything() {
    if (agent != null) {
      agent.close();
    }
    if (otlp != null) {
      otlp.close();
    }
    if (replicas != null) {
      replicas.close();
    }
  }

  private JsonNode snapshot() throws Exception {
    HttpResponse<String> r = AgentProcess.get(http, url + "/api/snapshot");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode doc = json.readTree(r.body());
    snapshots.add(doc);
    return doc;
  }

  private static boolean allUpWithRates(JsonNode doc) {
    JsonNode servers = doc.get("inference");
    if (servers.size() != 5) {
      return false;
    }
    for (JsonNode s : servers) {
      // llama.cpp exports no request counter: its request rate stays null (N/A), by design;
      // TensorRT-LLM exports no generation counter (N/A) but prompt tokens.
      String rateOf = s.get("name").asText().equals("trtllm") ? "promptTokensPerSecond" : "generationTokensPerSecond";
      if (!s.get("state").asText().equals("up") || s.get(rateOf).isNull()) {
        return false;
      }
      // SGLang and TGI count a request when it finishes; until the first one finishes inside
      // the window (seconds on a loaded machine) their request rate is a true 0, not yet useful.
      if (!s.get("name").asText().equals("llamacpp")
          && !(s.get("requestsPerSecond").asDouble() > 0)) {
        return false;
      }
    }
    return true;
  }

  private List<NumberDataPoint> ttftPoints() {
    List<NumberDataPoint> out = new ArrayList<>();
    for (OtlpHttpReceiver.Found f : otlp.latest("gputop.inference.ttft")) {
      out.addAll(f.metric().getGauge().getDataPointsList());
    }
    return out;
  }

  @Test
  void snapshot_everyDocumentValidatesAgainstTheSchema() throws Exception {
    snapshot();
    assertThat(snapshots).hasSizeGreaterThan(1);
    for (JsonNode doc : snapshots) {
      assertThat(SnapshotSchema.errors(doc)).as(doc.toString()).isEmpty();
    }
    Map<String, String> engines = new HashMap<>();
    for (JsonNode s : lastSnapshot.get("inference")) {
      engines.put(s.get("name").asText(), s.get("engine").asText());
      assertThat(s.get("source").asText()).isEqualTo("configured");
      if (!s.get("name").asText().equals("llamacpp")) {
        assertThat(s.get("requestsPerSecond").asDouble()).as(s.get("name").asText()).isPositive();
      }
    }
    // Every engine but TensorRT-LLM exports a generation counter. llama.cpp counts a request's
    // tokens when it finishes, and finishes few, so its rate may be 0 early in the window; the
    // others can't be. TensorRT-LLM's is N/A (null), not 0.
    for (JsonNode s : lastSnapshot.get("inference")) {
      JsonNode gen = s.get("generationTokensPerSecond");
      if (s.get("name").asText().equals("trtllm")) {
        assertThat(gen.isNull()).as("trtllm generation tokens/s is N/A").isTrue();
        assertThat(s.get("engine").asText()).isEqualTo("trtllm");
        assertThat(s.get("promptTokensPerSecond").asDouble()).isPositive();
        assertThat(s.get("kvCacheUsage").isNumber()).isTrue();
        assertThat(s.get("ttft").get("p50").isNumber()).isTrue();
        continue;
      }
      assertThat(gen.isNumber()).as(s.get("name").asText()).isTrue();
      if (s.get("name").asText().equals("llamacpp")) {
        assertThat(gen.asDouble()).isGreaterThanOrEqualTo(0);
      } else {
        assertThat(gen.asDouble()).as(s.get("name").asText()).isPositive();
      }
    }
    for (Replica r : replicas.replicas()) {
      assertThat(engines).containsEntry(r.name(), r.engine());
    }
  }

  @Test
  void otlp_carriesTheInstrumentsWithServerEngineAndQuantile() {
    Map<String, String> resource = otlp.latest("gputop.inference.up").get(0).resource();
    assertThat(resource).containsEntry("service.name", "gputop-agent")
        .containsEntry("deployment.environment", "it").containsKey("host.name").containsKey("service.version");

    for (String name : List.of("gputop.inference.up", "gputop.inference.requests.running",
        "gputop.inference.requests.waiting", "gputop.inference.kv_cache.usage_ratio", "gputop.inference.request.rate",
        "gputop.inference.generation_tokens.rate", "gputop.inference.ttft", "gputop.inference.itl",
        "gputop.inference.e2e")) {
      assertThat(otlp.latest(name)).as(name).isNotEmpty();
    }
    Set<String> ttftServers = new HashSet<>();
    Set<String> quantiles = new HashSet<>();
    for (NumberDataPoint p : ttftPoints()) {
      Map<String, String> a = OtlpHttpReceiver.attributes(p.getAttributesList());
      assertThat(a).containsKeys("server", "engine", "quantile");
      assertThat(replicas.replica(a.get("server")).engine()).isEqualTo(a.get("engine"));
      ttftServers.add(a.get("server"));
      quantiles.add(a.get("quantile"));
    }
    // TGI and llama.cpp export no TTFT: no data point, never 0.
    assertThat(ttftServers).contains("vllm-dp2", "sglang-tp2", "trtllm").doesNotContain("tgi", "llamacpp");
    assertThat(quantiles).containsExactlyInAnyOrder("0.5", "0.9", "0.99");

    Metric hist = otlp.latest("gen_ai.server.time_to_first_token").get(0).metric();
    assertThat(hist.hasHistogram()).isTrue();
    assertThat(hist.getUnit()).isEqualTo("s");
    assertThat(hist.getHistogram().getDataPointsList()).isNotEmpty();
  }

  @Test
  void otlp_latencyQuantilesLieInTheBucketsOfTheTrueLatencies() {
    for (String server : List.of("vllm-dp2", "sglang-tp2")) {
      HistogramDataPoint hist = histogram("gen_ai.server.time_to_first_token", server);
      List<Double> bounds = hist.getExplicitBoundsList();
      Truth truth = Truths.of(replicas.replica(server));
      double[] all = truth.values(Kind.TTFT, Long.MIN_VALUE, truth.nowNanos());
      assertThat(all).isNotEmpty();
      double min = Double.MAX_VALUE;
      double max = 0;
      for (double v : all) {
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      double lo = 0;
      for (double b : bounds) {
        if (b < min) {
          lo = b;
        }
      }
      double hi = bounds.get(bounds.size() - 1);
      for (double b : bounds) {
        if (b >= max) {
          hi = b;
          break;
        }
      }
      Map<String, Double> q = new HashMap<>();
      for (NumberDataPoint p : ttftPoints()) {
        Map<String, String> a = OtlpHttpReceiver.attributes(p.getAttributesList());
        if (a.get("server").equals(server) && !a.containsKey("model")) {
          q.put(a.get("quantile"), p.getAsDouble());
        }
      }
      assertThat(q).as(server).containsKeys("0.5", "0.99");
      assertThat(q.get("0.5")).as(server + " p50").isBetween(lo, hi);
      assertThat(q.get("0.99")).as(server + " p99").isBetween(q.get("0.5"), hi);
    }
  }

  @Test
  void otlp_reexportedHistogramCountsMatchTheServersTotals() {
    HistogramDataPoint hist = histogram("gen_ai.server.time_to_first_token", "vllm-dp2");
    long sumOfBuckets = hist.getBucketCountsList().stream().mapToLong(Long::longValue).sum();
    assertThat(hist.getCount()).isEqualTo(sumOfBuckets);
    // The exported count is the server's count at some scrape before now: at most the truth now.
    Truth truth = Truths.of(replicas.replica("vllm-dp2"));
    assertThat(hist.getCount()).isPositive().isLessThanOrEqualTo(truth.total(Kind.TTFT).count());
  }

  @Test
  void metrics_parsesBackWithTheSameNamesAndLabels() throws Exception {
    HttpResponse<String> r = AgentProcess.get(http, url + "/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    Exposition exposition = new ExpositionParser(ParserLimits.defaults()).parse(r.body());
    MetricFamily ttft = exposition.family("gputop_inference_ttft_seconds");
    assertThat(ttft).isNotNull();
    Set<String> servers = new HashSet<>();
    for (Sample s : ttft.samples()) {
      assertThat(s.labels().get("quantile")).isIn("0.5", "0.9", "0.99");
      assertThat(replicas.replica(s.labels().get("server")).engine()).isEqualTo(s.labels().get("engine"));
      assertThat(s.value()).isPositive();
      servers.add(s.labels().get("server"));
    }
    assertThat(servers).contains("vllm-dp2", "sglang-tp2", "trtllm");
    for (String family : List.of("gputop_inference_up", "gputop_inference_requests_waiting",
        "gputop_inference_request_rate_per_second", "gen_ai_server_time_to_first_token_seconds", "target_info")) {
      assertThat(exposition.family(family)).as(family).isNotNull();
    }
  }

  @Test
  void startup_firstScrapeIsLoggedWithTheTimeSinceTheJvmStarted() throws Exception {
    Matcher m = FIRST_REFRESH.matcher(agent.err());
    assertThat(m.find()).as(agent.err()).isTrue();
    long sinceJvm = Long.parseLong(m.group(2));
    System.out.println("[DemoReplicasIT] first refresh of every receiver " + sinceJvm + " ms after the JVM started");
    // The < 1 s target is measured on an idle machine (docs/PERFORMANCE.md); a shared CI box only
    // proves the line is there and sane.
    assertThat(sinceJvm).isPositive().isLessThan(120_000);
  }

  @Test
  void sigterm_flushesTheLatestValuesOverOtlpAndStopsWithinItsBudget() throws Exception {
    // A second agent whose periodic export would come only after 10 minutes: whatever reaches
    // this receiver was sent by the flush on SIGTERM.
    try (OtlpHttpReceiver flushed = new OtlpHttpReceiver()) {
      Path config = dir.resolve("agent.yaml");
      try (AgentProcess second = AgentProcess.start(dir, Map.of(
              "OTEL_EXPORTER_OTLP_ENDPOINT", flushed.endpoint(),
              "OTEL_METRIC_EXPORT_INTERVAL", "600000"),
          "run", "--config", config.toString())) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!FIRST_REFRESH.matcher(second.err()).find()) {
          assertThat(System.nanoTime()).as("first refresh; stderr:\n" + second.err()).isLessThan(deadline);
          assertThat(second.process.isAlive()).as(second.err()).isTrue();
          Thread.sleep(50);
        }
        assertThat(flushed.requests).isEmpty();

        long idleMs = AgentProcess.idleJvmExitMillis(dir);
        long exitMs = second.terminate();
        System.out.println("[DemoReplicasIT] exit " + exitMs + " ms after SIGTERM; an idle JVM's " + idleMs + " ms");
        assertThat(exitMs).as("exit after SIGTERM, ms (an idle JVM: " + idleMs + " ms); stderr:\n" + second.err())
            .isLessThanOrEqualTo(AgentProcess.maxExitMillis(idleMs));
      }
      assertThat(flushed.latest("gputop.inference.up")).as("flushed on SIGTERM").isNotEmpty();
    }
  }

  private HistogramDataPoint histogram(String name, String server) {
    for (OtlpHttpReceiver.Found f : otlp.latest(name)) {
      for (HistogramDataPoint p : f.metric().getHistogram().getDataPointsList()) {
        Map<String, String> a = OtlpHttpReceiver.attributes(p.getAttributesList());
        if (server.equals(a.get("server")) && !a.containsKey("gen_ai.request.model")) {
          return p;
        }
      }
    }
    // Servers that name their model put gen_ai.request.model on every point: take any of theirs.
    for (OtlpHttpReceiver.Found f : otlp.latest(name)) {
      for (HistogramDataPoint p : f.metric().getHistogram().getDataPointsList()) {
        if (server.equals(OtlpHttpReceiver.attributes(p.getAttributesList()).get("server"))) {
          return p;
        }
      }
    }
    throw new AssertionError("no " + name + " point for " + server);
  }
}
