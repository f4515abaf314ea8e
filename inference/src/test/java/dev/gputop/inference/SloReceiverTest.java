package dev.gputop.inference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.config.Endpoint;
import dev.gputop.config.InferenceConfig;
import dev.gputop.config.SloConfig;
import dev.gputop.config.SloOverride;
import dev.gputop.config.SloTargets;
import dev.gputop.config.TlsConfig;
import dev.gputop.inference.export.ServerEntry;
import dev.gputop.inference.stats.SloStats;
import dev.gputop.receiver.Alert;
import dev.gputop.testing.ManualClock;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SLOs through the receiver: targets resolved per server (inference.slo, overrides, endpoint),
 * attainment and burn rate in the entries, the gauges, the overview and the slo_breach alert.
 */
class SloReceiverTest {

  private final ManualClock clock = new ManualClock();
  private final InferenceReceiverTest.FakeScraper scraper = new InferenceReceiverTest.FakeScraper(clock);
  private final InMemoryMetricReader reader = InMemoryMetricReader.create();
  private final SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();

  @AfterEach
  void close() {
    provider.close();
  }

  /** A vLLM TTFT histogram (le 0.5, 1, +Inf) and queue histogram of one model. */
  private static String vllm(String model, double le05, double le1, double total) {
    String l = "{model_name=\"" + model + "\"";
    return "# TYPE vllm:time_to_first_token_seconds histogram\n"
        + "vllm:time_to_first_token_seconds_bucket" + l + ",le=\"0.5\"} " + le05 + "\n"
        + "vllm:time_to_first_token_seconds_bucket" + l + ",le=\"1.0\"} " + le1 + "\n"
        + "vllm:time_to_first_token_seconds_bucket" + l + ",le=\"+Inf\"} " + total + "\n"
        + "vllm:time_to_first_token_seconds_count" + l + "} " + total + "\n"
        + "vllm:time_to_first_token_seconds_sum" + l + "} " + total * 0.4 + "\n";
  }

  private InferenceReceiver receiver(SloConfig slo, Endpoint... endpoints) {
    InferenceConfig config = InferenceConfig.builder().window(Duration.ofMinutes(1)).endpoints(List.of(endpoints))
        .slo(slo).build();
    return new InferenceReceiver(config, Duration.ofSeconds(3), scraper, null, clock,
        OpenTelemetrySdk.builder().setMeterProvider(provider).build());
  }

  private static Endpoint endpoint(String name, SloTargets slo) {
    return new Endpoint(name, URI.create("http://10.0.0.1/" + name), Map.of(), null, TlsConfig.defaults(), slo);
  }

  private static ServerEntry server(InferenceReceiver r, String name) {
    return r.snapshot().servers().stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow();
  }

  /**
   * Two scrapes 10 s apart (the window's range is exactly those 10 s, no extrapolation): per
   * server Δ(le 0.5), Δ(le 1), Δcount. "busy": 50, 80, 100; "quiet": 5, 5, 10; "llama": 90, 99, 100.
   */
  private InferenceReceiver twoScrapes(SloConfig slo, Endpoint... endpoints) {
    InferenceReceiver r = receiver(slo, endpoints);
    scraper.bodies.put("http://10.0.0.1/busy", vllm("qwen-7b", 100, 180, 200));
    scraper.bodies.put("http://10.0.0.1/quiet", vllm("qwen-7b", 10, 10, 10));
    scraper.bodies.put("http://10.0.0.1/llama", vllm("llama-3-8b", 100, 150, 200));
    r.refresh();
    clock.advanceSeconds(10);
    scraper.bodies.put("http://10.0.0.1/busy", vllm("qwen-7b", 150, 260, 300));
    scraper.bodies.put("http://10.0.0.1/quiet", vllm("qwen-7b", 15, 15, 20));
    scraper.bodies.put("http://10.0.0.1/llama", vllm("llama-3-8b", 190, 249, 300));
    r.refresh();
    return r;
  }

  private static final SloConfig ONE_SECOND = new SloConfig(
      new SloTargets(Duration.ofSeconds(1), null, Duration.ofSeconds(20), null, 0.99, 20), List.of());

  @Test
  void refresh_attainmentAndBurnRateAreInTheEntryWithTheirTargets() throws Exception {
    try (InferenceReceiver r = twoScrapes(ONE_SECOND, endpoint("busy", SloTargets.NONE))) {
      SloStats slo = server(r, "busy").stats().slo();
      // rate(le 1)/rate(count) = (80/10)/(100/10); burn (1 − 0.8)/(1 − 0.99) = 20.
      assertThat(slo.ttft().target()).isEqualTo(1.0);
      assertThat(slo.ttft().objective()).isEqualTo(0.99);
      assertThat(slo.ttft().attainment()).isCloseTo(0.8, within(1e-12));
      assertThat(slo.ttft().burnRate()).isCloseTo(20.0, within(1e-9));
      assertThat(slo.itl()).as("no ITL target").isNull();
      assertThat(slo.e2e()).as("a target, but this vLLM exports no E2E histogram").isNull();
      JsonNode json = new ObjectMapper().valueToTree(r.contribution().servers()).get(0).get("slo");
      assertThat(json.get("ttft").get("target").asDouble()).isEqualTo(1.0);
      assertThat(json.get("ttft").get("attainment").asDouble()).isCloseTo(0.8, within(1e-12));
      assertThat(json.get("ttft").get("burnRate").asDouble()).isCloseTo(20.0, within(1e-9));
      assertThat(json.get("itl").isNull()).isTrue();
      assertThat(json.has("minRequests")).isFalse();
    }
  }

  @Test
  void refresh_sloBreachNeedsMinRequestsAndTheOverviewHasTheWorstAttainment() {
    try (InferenceReceiver r = twoScrapes(ONE_SECOND, endpoint("busy", SloTargets.NONE), endpoint("quiet", SloTargets.NONE))) {
      // quiet: 5 of 10 requests within 1 s (0.5) but only 10 requests, fewer than minRequests 20.
      assertThat(server(r, "quiet").stats().slo().ttft().attainment()).isCloseTo(0.5, within(1e-12));
      assertThat(r.snapshot().alerts()).extracting(Alert::name, Alert::server)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("slo_breach", "busy"));
      assertThat(r.snapshot().alerts().get(0).message())
          .isEqualTo("SLO breached: ttft: 80.0% of 100 requests within 1.00 s, objective 99% (burn rate 20.0x)");
      assertThat(r.snapshot().overview().worstSloAttainment()).isCloseTo(0.5, within(1e-12));
    }
  }

  @Test
  void refresh_overridesByModelAndTheEndpointsOwnSloApply() {
    SloConfig slo = new SloConfig(ONE_SECOND.base(), List.of(
        new SloOverride(null, "vllm", "llama-*", new SloTargets(Duration.ofMillis(500), null, null, null, 0.9, null))));
    try (InferenceReceiver r = twoScrapes(slo, endpoint("busy", new SloTargets(Duration.ofMillis(750), null, null, null, null, 1000)),
        endpoint("llama", SloTargets.NONE))) {
      // llama (model llama-3-8b): 500 ms, objective 0.9: 90/100 = 0.9 → burn 1.0, not under the objective.
      SloStats.Value llama = server(r, "llama").stats().slo().ttft();
      assertThat(llama.target()).isEqualTo(0.5);
      assertThat(llama.attainment()).isCloseTo(0.9, within(1e-12));
      assertThat(llama.burnRate()).isCloseTo(1.0, within(1e-9));
      // busy: its own 750 ms, inside (0.5, 1]: 50 + (80 − 50) × 0.5 = 65 of 100; its minRequests
      // 1000 keeps the alert silent.
      assertThat(server(r, "busy").stats().slo().ttft().attainment()).isCloseTo(0.65, within(1e-12));
      assertThat(r.snapshot().alerts()).isEmpty();
    }
  }

  @Test
  void collect_gaugesCarryTheSloAttribute() {
    try (InferenceReceiver r = twoScrapes(ONE_SECOND, endpoint("busy", SloTargets.NONE))) {
      Map<String, Double> values = new TreeMap<>();
      for (MetricData m : reader.collectAllMetrics()) {
        if (m.getName().startsWith("gputop.inference.slo.")) {
          for (DoublePointData p : m.getDoubleGaugeData().getPoints()) {
            values.put(m.getName() + " " + p.getAttributes().get(AttributeKey.stringKey("server"))
                + " " + p.getAttributes().get(AttributeKey.stringKey("slo")), p.getValue());
          }
        }
      }
      assertThat(values.keySet()).containsExactly(
          "gputop.inference.slo.attainment_ratio busy ttft", "gputop.inference.slo.burn_rate busy ttft");
      assertThat(values.get("gputop.inference.slo.attainment_ratio busy ttft")).isCloseTo(0.8, within(1e-12));
      assertThat(values.get("gputop.inference.slo.burn_rate busy ttft")).isCloseTo(20.0, within(1e-9));
    }
  }

  @Test
  void refresh_serverWithSeveralModelsHasSlosPerModelWithTheirOwnOverrides() {
    SloConfig slo = new SloConfig(ONE_SECOND.base(), List.of(
        new SloOverride(null, null, "llama-*", new SloTargets(Duration.ofMillis(500), null, null, null, null, null))));
    try (InferenceReceiver r = receiver(slo, endpoint("mixed", SloTargets.NONE))) {
      // One server, two models: qwen Δ(le 0.5, le 1, count) = 50, 80, 100; llama 90, 99, 100.
      scraper.bodies.put("http://10.0.0.1/mixed", vllm("qwen-7b", 100, 180, 200)
          + vllm("llama-3-8b", 100, 150, 200).replace("# TYPE vllm:time_to_first_token_seconds histogram\n", ""));
      r.refresh();
      clock.advanceSeconds(10);
      scraper.bodies.put("http://10.0.0.1/mixed", vllm("qwen-7b", 150, 260, 300)
          + vllm("llama-3-8b", 190, 249, 300).replace("# TYPE vllm:time_to_first_token_seconds histogram\n", ""));
      r.refresh();
      ServerEntry e = server(r, "mixed");
      Map<String, SloStats.Value> byModel = new TreeMap<>();
      e.models().forEach(m -> byModel.put(m.name(), m.stats().slo().ttft()));
      // llama-3-8b matches the override: 500 ms → 90/100; qwen keeps 1 s → 80/100.
      assertThat(byModel.get("llama-3-8b").target()).isEqualTo(0.5);
      assertThat(byModel.get("llama-3-8b").attainment()).isCloseTo(0.9, within(1e-12));
      assertThat(byModel.get("qwen-7b").target()).isEqualTo(1.0);
      assertThat(byModel.get("qwen-7b").attainment()).isCloseTo(0.8, within(1e-12));
      // The total serves two models, so the model override does not apply: 1 s over both,
      // (80 + 99) / 200.
      assertThat(e.stats().slo().ttft().target()).isEqualTo(1.0);
      assertThat(e.stats().slo().ttft().attainment()).isCloseTo(179.0 / 200, within(1e-12));
    }
  }
}
