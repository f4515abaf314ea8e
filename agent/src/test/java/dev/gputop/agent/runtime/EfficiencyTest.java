package dev.gputop.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.gputop.agent.FakeNvmlLibrary;
import dev.gputop.agent.OtlpHttpReceiver;
import dev.gputop.agent.SnapshotSchema;
import dev.gputop.agent.top.SnapshotView;
import dev.gputop.agent.top.TopScreen;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigLoader;
import dev.gputop.inference.InferenceReceiverProvider;
import dev.gputop.nvml.NvmlReceiverProvider;
import dev.gputop.receiver.Receiver;
import dev.gputop.testing.ManualClock;
import dev.gputop.testing.TestReceiverContext;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server's efficiency end to end (docs/inference.md, "Efficiency"): the NVML receiver over the
 * fake libnvidia-ml (through the real JNA binding), whose GPUs' energy counters the test moves,
 * and the inference receiver scraping vLLM expositions from a loopback HTTP server, both on one
 * manual clock, through the agent's own SDK: JSON from the snapshot sections, OTLP decoded on
 * the wire, Prometheus text from the {@code /metrics} reader.
 */
class EfficiencyTest {

  private static final Pattern SAMPLE = Pattern.compile("^(\\w+)\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);

  private FakeNvmlLibrary.Control fake;
  private Path nvml;
  private final ManualClock clock = new ManualClock();
  private final Map<String, long[]> tokens = new ConcurrentHashMap<>();
  private HttpServer vllm;
  private OtlpHttpReceiver otlp;
  private StandaloneSdk sdk;
  private Receiver gpus;
  private Receiver inference;

  @BeforeEach
  void start() throws IOException {
    FakeNvmlLibrary.Copy four = FakeNvmlLibrary.copy("libfake-nvml-efficiency.so", 4);
    fake = four.control();
    nvml = four.path();
    vllm = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    vllm.createContext("/", ex -> {
      long[] t = tokens.getOrDefault(ex.getRequestURI().getPath(), new long[2]);
      byte[] body = ("# TYPE vllm:num_requests_running gauge\n"
          + "vllm:num_requests_running{model_name=\"m\"} 3\n"
          + "# TYPE vllm:generation_tokens counter\n"
          + "vllm:generation_tokens_total{model_name=\"m\"} " + t[0] + "\n"
          + "# TYPE vllm:prompt_tokens counter\n"
          + "vllm:prompt_tokens_total{model_name=\"m\"} " + t[1] + "\n").getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    vllm.start();
    otlp = new OtlpHttpReceiver();
    sdk = StandaloneSdk.create(true, null, new ExportMonitor(dev.gputop.receiver.Clock.system(), Duration.ofMinutes(1)),
        Map.of("otel.metrics.exporter", "otlp", "otel.exporter.otlp.protocol", "http/protobuf",
            "otel.exporter.otlp.endpoint", otlp.endpoint(), "otel.metric.export.interval", "3600000",
            "otel.traces.exporter", "none", "otel.logs.exporter", "none"));
  }

  /** Starts both receivers with these endpoints (YAML list items) and {@code inference.window}. */
  private void receivers(String window, String... endpoints) {
    StringBuilder yaml = new StringBuilder("refresh:\n  normal: 5s\nlisten: 127.0.0.1:0\nnvml:\n  library: ")
        .append(nvml)
        .append("\ninference:\n  window: ").append(window).append("\n  costPerGpuHour: 3.6\n")
        .append("  discovery:\n    enabled: false\n  endpoints:\n");
    for (String e : endpoints) {
      yaml.append(e);
    }
    AgentConfig config = new ConfigLoader().parse(yaml.toString(), Map.of());
    TestReceiverContext context = new TestReceiverContext(config, sdk.openTelemetry(), clock);
    gpus = new NvmlReceiverProvider().create(context);
    inference = new InferenceReceiverProvider().create(context);
    sdk.histograms().bind(inference::exportedHistograms, inference::exportedCounters);
  }

  private String endpoint(String name, String gpus) {
    return "    - name: " + name + "\n      url: http://127.0.0.1:" + vllm.getAddress().getPort() + "/" + name
        + "\n" + (gpus == null ? "" : "      gpus: " + gpus + "\n");
  }

  @AfterEach
  void stop() throws Exception {
    sdk.histograms().unbind();
    if (inference != null) {
      inference.close();
    }
    if (gpus != null) {
      gpus.close();
    }
    sdk.close();
    otlp.close();
    vllm.stop(0);
  }

  /** One refresh of both receivers, NVML first as the runtime orders them, then 5 s pass. */
  private void refresh() {
    gpus.refresh();
    inference.refresh();
  }

  /** The server's GPUs run {@code millis} at their power while it generates and reads tokens. */
  private void run(String server, long millis, long generated, long prompt) {
    clock.advance(Duration.ofMillis(millis));
    fake.fake_nvml_run(-1, millis);
    tokens.merge("/" + server, new long[] {generated, prompt}, (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
  }

  /** The whole /api/snapshot document, checked against snapshot.schema.json. */
  private void assertSnapshotConforms() {
    JsonNode doc = new SnapshotAssembler(clock).assemble(List.of(gpus.contribution(), inference.contribution()),
        Map.of("inference", inference.health(), "nvml", gpus.health()));
    assertThat(SnapshotSchema.errors(doc)).as(doc.toString()).isEmpty();
  }

  /** The snapshot document of the inference receiver alone, as the agent writes it. */
  private com.fasterxml.jackson.databind.node.ObjectNode inferenceDocument() {
    return new SnapshotAssembler(clock).assemble(List.of(inference.contribution()), Map.of());
  }

  private JsonNode efficiency(String server) {
    JsonNode doc = inferenceDocument();
    for (JsonNode s : doc.get("inference")) {
      if (s.get("name").asText().equals(server)) {
        return s.get("efficiency");
      }
    }
    throw new AssertionError("no server " + server + " in " + doc);
  }

  /** The Prometheus text of /metrics: the samples of {@code family} by their labels. */
  private Map<String, Double> prometheus(String family) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    sdk.prometheus().write(false, out);
    Map<String, Double> found = new LinkedHashMap<>();
    Matcher m = SAMPLE.matcher(out.toString(StandardCharsets.UTF_8));
    while (m.find()) {
      if (m.group(1).equals(family)) {
        found.put(m.group(2), Double.parseDouble(m.group(3)));
      }
    }
    return found;
  }

  /** The gauge or sum points of {@code name} in the newest OTLP request that has it, by server. */
  private Map<String, Double> otlp(String name) {
    assertThat(sdk.flush(Duration.ofSeconds(10))).as("OTLP export").isTrue();
    Map<String, Double> out = new LinkedHashMap<>();
    for (OtlpHttpReceiver.Found f : otlp.latest(name)) {
      List<NumberDataPoint> points = f.metric().hasGauge()
          ? f.metric().getGauge().getDataPointsList() : f.metric().getSum().getDataPointsList();
      for (NumberDataPoint p : points) {
        out.put(OtlpHttpReceiver.attributes(p.getAttributesList()).get("server"), p.getAsDouble());
      }
    }
    return out;
  }

  @Test
  void tensorParallelServerOnTwoGpus_joulesPerTokenIsBothGpusEnergyOverItsTokens_inJsonOtlpAndPrometheus()
      throws IOException {
    fake.fake_nvml_set(0, "power", 300_000);
    fake.fake_nvml_set(1, "power", 310_000);
    receivers("1m", endpoint("tp2", "[0, 1]"));
    refresh();
    double[][] steps = {{5000, 1000, 4000}, {5000, 1250, 3000}, {5000, 900, 4100}};
    double energy = 0;
    double generated = 0;
    double prompt = 0;
    for (double[] s : steps) {
      run("tp2", (long) s[0], (long) s[1], (long) s[2]);
      refresh();
      energy += (300 + 310) * s[0] / 1000; // W x s: both GPUs' counters moved by this much
      generated += s[1];
      prompt += s[2];
    }
    double perToken = energy / generated;
    double spent = energy;

    JsonNode e = efficiency("tp2");
    assertThat(e.get("unavailable").isNull()).as(e.toString()).isTrue();
    assertThat(e.get("joulesPerGeneratedToken").asDouble()).isCloseTo(perToken, within(1e-9));
    assertThat(e.get("joulesPerPromptToken").asDouble()).isCloseTo(energy / prompt, within(1e-9));
    assertThat(e.get("estimated").asBoolean()).isFalse();
    assertThat(e.get("powerWatts").asDouble()).isCloseTo(610, within(1e-9));
    assertThat(e.get("gpus")).extracting(g -> g.get("index").asInt()).containsExactly(0, 1);
    assertThat(e.get("gpus").get(1).get("powerWatts").asDouble()).isCloseTo(310, within(1e-9));
    double rate = inferenceDocument().get("inference").get(0)
        .get("generationTokensPerSecond").asDouble();
    assertThat(e.get("generationTokensPerSecondPerGpu").asDouble()).isCloseTo(rate / 2, within(1e-9));
    // 3.6 per GPU hour: 2 GPUs cost 0.002 per second; a million tokens take 1e6 / rate seconds.
    assertThat(e.get("costPerMillionGeneratedTokens").asDouble()).isCloseTo(0.002 * 1e6 / rate, within(1e-6));
    assertSnapshotConforms();

    assertThat(otlp("gputop.inference.energy_per_generated_token")).containsOnlyKeys("tp2")
        .hasEntrySatisfying("tp2", v -> assertThat(v).isCloseTo(perToken, within(1e-9)));
    assertThat(otlp("gputop.inference.energy")).hasEntrySatisfying("tp2", v -> assertThat(v).isCloseTo(spent, within(1e-6)));
    assertThat(otlp("gputop.inference.power")).hasEntrySatisfying("tp2", v -> assertThat(v).isCloseTo(610, within(1e-9)));

    String labels = "engine=\"vllm\",server=\"tp2\"";
    assertThat(prometheus("gputop_inference_energy_per_generated_token_joules"))
        .hasEntrySatisfying(labels, v -> assertThat(v).isCloseTo(perToken, within(1e-9)));
    assertThat(prometheus("gputop_inference_power_watts")).containsEntry(labels, 610.0);
    assertThat(prometheus("gputop_inference_generation_tokens_per_gpu_rate_per_second"))
        .hasEntrySatisfying(labels, v -> assertThat(v).isCloseTo(rate / 2, within(1e-9)));
    // The counters: their increases over the same range give the same joules per token.
    double joules = prometheus("gputop_inference_energy_joules_total").get(labels);
    double tokensTotal = prometheus("gputop_inference_generation_tokens_total").get(labels);
    assertThat(joules).isCloseTo(energy, within(1e-6));
    assertThat(joules / tokensTotal).isCloseTo(perToken, within(1e-9));
  }

  @Test
  void aGpuOfTwoServers_makesBothShared_andAServerWithoutGpusHasNone() throws IOException {
    receivers("1m", endpoint("a", "[2]"), endpoint("b", "[2, 3]"), endpoint("c", null));
    refresh();
    for (int i = 0; i < 2; i++) {
      run("a", 5000, 100, 100);
      run("b", 0, 100, 100);
      run("c", 0, 100, 100);
      refresh();
    }
    for (String s : List.of("a", "b")) {
      JsonNode e = efficiency(s);
      assertThat(e.get("unavailable").asText()).as(s).isEqualTo("shared");
      assertThat(e.get("joulesPerGeneratedToken").isNull()).isTrue();
      assertThat(e.get("powerWatts").isNull()).isTrue();
      assertThat(e.get("generationTokensPerSecondPerGpu").isNull()).isTrue();
    }
    // The GPUs are still shown: the row says which GPUs it shares.
    assertThat(efficiency("b").get("gpus")).extracting(g -> g.get("index").asInt()).containsExactly(2, 3);
    assertThat(efficiency("c").get("unavailable").asText()).isEqualTo("no_gpus");
    assertThat(efficiency("c").get("gpus")).isEmpty();
    assertSnapshotConforms();
    // No guess leaves the agent: neither a gauge nor an energy counter for any of them.
    assertThat(prometheus("gputop_inference_power_watts")).isEmpty();
    assertThat(prometheus("gputop_inference_energy_joules_total")).isEmpty();
    assertThat(prometheus("gputop_inference_generation_tokens_total")).hasSize(3);
  }

  @Test
  void aGpuThatFallsOffTheBus_makesItsServersWindowNa_andItsCounterNeverJumps() throws IOException {
    fake.fake_nvml_set(0, "power", 200_000);
    fake.fake_nvml_set(1, "power", 200_000);
    receivers("1m", endpoint("tp2", "[0, 1]"));
    refresh();
    run("tp2", 5000, 1000, 0);
    refresh();
    assertThat(efficiency("tp2").get("joulesPerGeneratedToken").asDouble()).isCloseTo(2.0, within(1e-9));
    double before = prometheus("gputop_inference_energy_joules_total").values().iterator().next();
    assertThat(before).isCloseTo(2000, within(1e-6));

    fake.fake_nvml_set(1, "lost", 1);
    run("tp2", 5000, 1000, 0);
    refresh();
    JsonNode e = efficiency("tp2");
    assertThat(e.get("unavailable").asText()).isEqualTo("gpu_lost");
    assertThat(e.get("joulesPerGeneratedToken").isNull()).isTrue();
    assertThat(e.get("gpus").get(1).get("lost").asBoolean()).isTrue();
    assertSnapshotConforms();
    assertThat(prometheus("gputop_inference_energy_per_generated_token_joules")).isEmpty();
    // GPU 0's 1000 J only: what GPU 1 spent unseen is not guessed, now or when it is read again.
    assertThat(prometheus("gputop_inference_energy_joules_total").values())
        .singleElement().satisfies(v -> assertThat(v).isCloseTo(before + 1000, within(1e-6)));
  }

  @Test
  void aDriverReload_resetsNvmlsCounter_whichCountsAsPrometheusCountsAReset() throws IOException {
    fake.fake_nvml_set(0, "power", 100_000);
    receivers("1m", endpoint("one", "[0]"));
    refresh();
    run("one", 5000, 500, 0);
    refresh();
    double before = prometheus("gputop_inference_energy_joules_total").values().iterator().next();
    assertThat(before).isCloseTo(500, within(1e-6));
    // The driver reloads: the counter starts again from 0 and has counted 750 J since.
    fake.fake_nvml_set(0, "energy", 750_000);
    run("one", 0, 500, 0);
    clock.advance(Duration.ofSeconds(5));
    refresh();
    assertThat(prometheus("gputop_inference_energy_joules_total").values())
        .singleElement().satisfies(v -> assertThat(v).isCloseTo(before + 750, within(1e-6)));
    assertThat(efficiency("one").get("joulesPerGeneratedToken").asDouble()).isCloseTo(1250.0 / 1000, within(1e-9));
  }

  @Test
  void aGpuWithoutTheEnergyCounter_integratesItsPowerOverTheSamples_markedEstimated() throws IOException {
    fake.fake_nvml_set(3, "energy.none", 1);
    fake.fake_nvml_set(3, "power", 200_000);
    receivers("1m", endpoint("old", "[3]"));
    refresh();
    run("old", 5000, 400, 0);
    fake.fake_nvml_set(3, "power", 300_000);
    refresh();
    run("old", 5000, 600, 0);
    refresh();
    // Trapezoids: (200 + 300) / 2 W x 5 s + 300 W x 5 s = 2750 J for 1000 tokens.
    JsonNode e = efficiency("old");
    assertThat(e.get("estimated").asBoolean()).isTrue();
    assertThat(e.get("joulesPerGeneratedToken").asDouble()).isCloseTo(2.75, within(1e-9));
    assertThat(prometheus("gputop_inference_energy_joules_total").values())
        .singleElement().satisfies(v -> assertThat(v).isCloseTo(2750, within(1e-6)));
  }

  @Test
  void top_showsEachServersGpusAndJoulesPerToken_orWhyNot() throws IOException {
    fake.fake_nvml_set(0, "power", 300_000);
    fake.fake_nvml_set(1, "power", 310_000);
    receivers("1m", endpoint("tp2", "[0, 1]"), endpoint("nogpu", null));
    refresh();
    run("tp2", 5000, 1000, 4000);
    run("nogpu", 0, 10, 10);
    refresh();
    com.fasterxml.jackson.databind.node.ObjectNode snap = inferenceDocument();
    snap.put("timestamp", "2026-12-01T00:00:00Z");
    // top reads the document's text, as it reads /api/snapshot
    SnapshotView view = SnapshotView.parse(snap.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    String table = String.join("\n", TopScreen.render(new TopScreen.View(view, null, 0, true, "test", null), 200)
        .stream().map(Object::toString).toList());
    // 610 W x 5 s over 1000 tokens: 3.05 J per token, both GPUs in the row and the detail.
    // The fleet: 1000 tokens for 3050 J (nogpu's tokens don't count), no SLO configured.
    assertThat(table).contains("· 0.328 tok/J · good req/s N/A");
    assertThat(table).contains("GPUS", "J/TOK").containsPattern("tp2 .* 0,1 +3\\.05")
        .containsPattern("nogpu .* N/A +N/A");
    assertThat(table).contains("Efficiency: 610 W · 3.05 J/gen tok · 0.763 J/prompt tok · 100 tok/s per GPU")
        .contains("  GPU 0 · util ").contains("· 300 W").contains("· 310 W");
    String other = String.join("\n", TopScreen.render(new TopScreen.View(view, null, 1, true, "test", null), 200)
        .stream().map(Object::toString).toList());
    assertThat(other).contains("Efficiency (no_gpus): N/A W · N/A J/gen tok");
  }
}
