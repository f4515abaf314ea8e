package dev.gputop.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.MetricFamily;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.parse.Sample;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * SLO attainment and burn rate live in every output of the shaded agent, equal to the PromQL
 * expression {@code sum(rate(x_bucket{le="T"}[w])) / sum(rate(x_count[w]))} (interpolated for a
 * T between bounds) over the scrapes the agent took.
 *
 * <p>The two vLLM servers here (one handler, two URLs, each with its own request counter k) serve
 * histograms whose every bucket and count grow by a fixed amount per scrape: cumulative = k × the
 * step below, k = 10, 11, 12, ... Every series is then proportional to every other, so PromQL's
 * extrapolation factor (which depends on the sample times and on first/increase) is the same for
 * all of them and the expression equals the ratio of the steps for whichever scrapes fall in the
 * window. Per step: TTFT le 0.25: 40, 0.5: 70, 1: 80, 2.5: 95, +Inf (= count): 100; ITL le 0.05:
 * 300, 0.1: 900, +Inf: 1000; E2E le 1: 60, 2.5: 90, +Inf: 100.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SloIT {

  private static final double EPS = 1e-9;

  /** The agent's working directory for the class: its config and logs; JUnit removes it after. */
  @TempDir static Path dir;
  private HttpServer servers;
  private final Map<String, AtomicLong> steps = new ConcurrentHashMap<>();
  private OtlpHttpReceiver otlp;
  private AgentProcess agent;
  private String url;
  private JsonNode snapshot;
  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  private static String histogram(String name, String model, long k, String[] le, long[] step) {
    StringBuilder b = new StringBuilder("# TYPE " + name + " histogram\n");
    for (int i = 0; i < le.length; i++) {
      b.append(name).append("_bucket{model_name=\"").append(model).append("\",le=\"").append(le[i]).append("\"} ")
          .append(k * step[i]).append('\n');
    }
    long total = k * step[step.length - 1];
    b.append(name).append("_count{model_name=\"").append(model).append("\"} ").append(total).append('\n');
    b.append(name).append("_sum{model_name=\"").append(model).append("\"} ").append(total * 0.5).append('\n');
    return b.toString();
  }

  private String exposition(String query) {
    String model = "a".equals(query) ? "qwen-7b" : "llama-3-8b";
    long k = steps.computeIfAbsent(query, q -> new AtomicLong(9)).incrementAndGet();
    return histogram("vllm:time_to_first_token_seconds", model, k,
            new String[] {"0.25", "0.5", "1.0", "2.5", "+Inf"}, new long[] {40, 70, 80, 95, 100})
        + histogram("vllm:inter_token_latency_seconds", model, k,
            new String[] {"0.05", "0.1", "+Inf"}, new long[] {300, 900, 1000})
        + histogram("vllm:e2e_request_latency_seconds", model, k,
            new String[] {"1.0", "2.5", "+Inf"}, new long[] {60, 90, 100})
        + "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"" + model + "\"} 4\n";
  }

  @BeforeAll
  void start() throws Exception {
    servers = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    servers.createContext("/metrics", ex -> {
      byte[] body = exposition(ex.getRequestURI().getQuery()).getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    servers.start();
    String base = "http://127.0.0.1:" + servers.getAddress().getPort() + "/metrics";
    otlp = new OtlpHttpReceiver();
    Path config = dir.resolve("agent.yaml");
    Files.writeString(config, String.join("\n",
        "listen: 127.0.0.1:0",
        "refresh:",
        "  normal: 500ms",
        "nvml:",
        "  enabled: false",
        "inference:",
        "  window: 10s",
        "  discovery:",
        "    enabled: false",
        "  slo:",
        "    ttft: 1s",
        "    itl: 100ms",
        "    objective: 0.99",
        "    minRequests: 20",
        "    overrides:",
        "      - match: {engine: vllm, model: \"llama-*\"}",
        "        ttft: 750ms",
        "  endpoints:",
        "    - name: slo-a",
        "      url: " + base + "?a",
        "    - name: slo-b",
        "      url: " + base + "?b",
        "      slo:",
        "        e2e: 5s",
        ""));
    agent = AgentProcess.start(dir, Map.of(
            "OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint(),
            "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
            "OTEL_METRIC_EXPORT_INTERVAL", "500"),
        "run", "--config", config.toString());
    url = agent.awaitListener(Duration.ofSeconds(60));
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      snapshot = json.readTree(AgentProcess.get(http, url + "/api/snapshot").body());
      if (everySloKnown(snapshot) && otlpValues("gputop.inference.slo.burn_rate").size() == 5) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("SLOs never all known; last snapshot " + snapshot + "\nstderr:\n" + agent.err());
  }

  private static boolean everySloKnown(JsonNode doc) {
    int known = 0;
    for (JsonNode s : doc.path("inference")) {
      for (String kind : new String[] {"ttft", "itl", "e2e"}) {
        if (s.path("slo").path(kind).hasNonNull("attainment")) {
          known++;
        }
      }
    }
    return known == 5;
  }

  @AfterAll
  void stop() {
    if (agent != null) {
      agent.close();
    }
    if (otlp != null) {
      otlp.close();
    }
    if (servers != null) {
      servers.stop(0);
    }
  }

  /** server + slo → expected attainment: the PromQL expression over proportional series. */
  private static Map<String, Double> expected() {
    Map<String, Double> e = new TreeMap<>();
    e.put("slo-a ttft", 80.0 / 100); // T = 1 s, a bound
    e.put("slo-a itl", 900.0 / 1000); // T = 0.1 s, a bound
    e.put("slo-b ttft", (70 + (80 - 70) * (0.75 - 0.5) / (1 - 0.5)) / 100); // 750 ms inside (0.5, 1]
    e.put("slo-b itl", 900.0 / 1000);
    e.put("slo-b e2e", 90.0 / 100); // T = 5 s above the highest finite bound 2.5: only ≤ 2.5 counts
    return e;
  }

  private static double burn(double attainment) {
    return (1 - attainment) / (1 - 0.99);
  }

  @Test
  void json_sloPerEntryMatchesThePromqlExpression() {
    Map<String, Double> got = new TreeMap<>();
    for (JsonNode s : snapshot.get("inference")) {
      JsonNode slo = s.get("slo");
      assertThat(slo.get("queue").isNull()).as("no queue target and no queue histogram").isTrue();
      for (String kind : new String[] {"ttft", "itl", "e2e"}) {
        JsonNode v = slo.get(kind);
        if (v.isNull()) {
          continue;
        }
        got.put(s.get("name").asText() + " " + kind, v.get("attainment").asDouble());
        assertThat(v.get("objective").asDouble()).isEqualTo(0.99);
        assertThat(v.get("burnRate").asDouble()).isCloseTo(burn(v.get("attainment").asDouble()), within(EPS));
      }
    }
    assertThat(got.keySet()).isEqualTo(expected().keySet());
    expected().forEach((k, v) -> assertThat(got.get(k)).as(k).isCloseTo(v, within(EPS)));
    JsonNode a = snapshot.get("inference").get(0).get("slo");
    assertThat(a.get("ttft").get("target").asDouble()).isEqualTo(1.0);
    assertThat(a.get("e2e").isNull()).as("slo-a has no e2e target").isTrue();
    assertThat(snapshot.get("inference").get(1).get("slo").get("ttft").get("target").asDouble())
        .as("the llama-* override").isEqualTo(0.75);
    assertThat(snapshot.get("inference").get(1).get("slo").get("e2e").get("target").asDouble())
        .as("the endpoint's own slo").isEqualTo(5.0);
  }

  @Test
  void json_overviewAlertsAndSchema() {
    assertThat(snapshot.get("overview").get("serving").get("worstSloAttainment").asDouble())
        .isCloseTo(0.75, within(EPS));
    Map<String, String> breaches = new TreeMap<>();
    for (JsonNode alert : snapshot.get("alerts")) {
      if (alert.get("name").asText().equals("slo_breach")) {
        breaches.put(alert.get("server").asText(), alert.get("message").asText());
      }
    }
    assertThat(breaches.keySet()).containsExactly("slo-a", "slo-b");
    assertThat(breaches.get("slo-a")).startsWith("SLO breached: ttft: 80.0% of ").contains("itl: 90.0% of ");
    assertThat(breaches.get("slo-b")).contains("within 750 ms", "e2e: 90.0% of ", "within 5.00 s");
    assertThat(SnapshotSchema.errors(snapshot)).isEmpty();
  }

  private Map<String, Double> otlpValues(String name) {
    Map<String, Double> out = new TreeMap<>();
    for (OtlpHttpReceiver.Found f : otlp.latest(name)) {
      for (NumberDataPoint p : f.metric().getGauge().getDataPointsList()) {
        Map<String, String> a = OtlpHttpReceiver.attributes(p.getAttributesList());
        out.put(a.get("server") + " " + a.get("slo"), p.getAsDouble());
      }
    }
    return out;
  }

  @Test
  void otlp_attainmentAndBurnRateBySlo() {
    Map<String, Double> attainment = otlpValues("gputop.inference.slo.attainment_ratio");
    Map<String, Double> burn = otlpValues("gputop.inference.slo.burn_rate");
    assertThat(attainment.keySet()).isEqualTo(expected().keySet());
    assertThat(burn.keySet()).isEqualTo(expected().keySet());
    expected().forEach((k, v) -> {
      assertThat(attainment.get(k)).as(k).isCloseTo(v, within(EPS));
      assertThat(burn.get(k)).as(k).isCloseTo(burn(v), within(1e-6));
    });
    assertThat(otlp.latest("gputop.inference.slo.attainment_ratio").get(0).metric().getUnit()).isEqualTo("1");
  }

  /** Every sample of /metrics as "name{labels}" → value. */
  private Map<String, Double> metrics() throws Exception {
    HttpResponse<String> r = AgentProcess.get(http, url + "/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    Exposition e = new ExpositionParser(ParserLimits.defaults()).parse(r.body());
    Map<String, Double> out = new TreeMap<>();
    for (MetricFamily f : e.families()) {
      for (Sample s : f.samples()) {
        Map<String, String> labels = new TreeMap<>();
        for (int i = 0; i < s.labels().size(); i++) {
          labels.put(s.labels().name(i), s.labels().value(i));
        }
        out.put(s.name() + labels, s.value());
      }
    }
    return out;
  }

  @Test
  void prometheus_gaugesEqualTheRatioOfTheReexportedHistogramsRates() throws Exception {
    // Two reads of /metrics: the re-exported TTFT histogram of slo-a between them gives PromQL's
    // sum(rate(gen_ai_server_time_to_first_token_seconds_bucket{le="1.0"}[w])) /
    // sum(rate(..._count[w])) over those two samples, the Prometheus view of the same scrapes.
    String bucket = "gen_ai_server_time_to_first_token_seconds_bucket{engine=vllm, gen_ai_provider_name=vllm, "
        + "gen_ai_request_model=qwen-7b, le=1.0, server=slo-a}";
    String count = "gen_ai_server_time_to_first_token_seconds_count{engine=vllm, gen_ai_provider_name=vllm, "
        + "gen_ai_request_model=qwen-7b, server=slo-a}";
    Map<String, Double> first = metrics();
    Map<String, Double> second = first;
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (second.get(count).equals(first.get(count)) && System.nanoTime() < deadline) {
      Thread.sleep(300);
      second = metrics();
    }
    assertThat(first).containsKeys(bucket, count);
    double promql = (second.get(bucket) - first.get(bucket)) / (second.get(count) - first.get(count));
    assertThat(promql).isCloseTo(0.8, within(EPS));
    assertThat(second.get("gputop_inference_slo_attainment_ratio{engine=vllm, server=slo-a, slo=ttft}"))
        .isCloseTo(promql, within(EPS));
    assertThat(second.get("gputop_inference_slo_burn_rate{engine=vllm, server=slo-a, slo=ttft}"))
        .isCloseTo(burn(promql), within(1e-6));
    assertThat(second.get("gputop_inference_slo_attainment_ratio{engine=vllm, server=slo-b, slo=e2e}"))
        .isCloseTo(0.9, within(EPS));
  }
}
