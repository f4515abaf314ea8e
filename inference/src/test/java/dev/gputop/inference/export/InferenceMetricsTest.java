package dev.gputop.inference.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.inference.stats.LatencyStats;
import dev.gputop.inference.stats.RequestLengths;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.receiver.HealthStatus;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The gauges as the SDK collects them: names, units, attributes, and no point for N/A. */
class InferenceMetricsTest {

  private final InMemoryMetricReader reader = InMemoryMetricReader.create();
  private final SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
  private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setMeterProvider(provider).build();
  private final AtomicReference<InferenceSnapshot> snapshot = new AtomicReference<>(InferenceSnapshot.empty());

  @AfterEach
  void close() {
    provider.close();
  }

  private static InferenceSnapshot snapshotOf(List<StatsPoint> points, Map<Attributes, Long> up) {
    return snapshotOf(points, up, Map.of());
  }

  private static InferenceSnapshot snapshotOf(
      List<StatsPoint> points, Map<Attributes, Long> up, Map<Attributes, Long> states) {
    return snapshotOf(points, up, Map.of(), states);
  }

  /** A healthy snapshot of these points, {@code up}, served-model and state-set points only. */
  private static InferenceSnapshot snapshotOf(List<StatsPoint> points, Map<Attributes, Long> up,
      Map<Attributes, Long> info, Map<Attributes, Long> states) {
    InferenceSnapshot e = InferenceSnapshot.empty();
    return new InferenceSnapshot(List.of(), e.overview(), List.of(), e.discovery(), HealthStatus.healthy(),
        points, up, info, states, List.of(), List.of(), Map.of(), Map.of(), List.of());
  }

  private MetricData metric(Collection<MetricData> all, String name) {
    return all.stream().filter(m -> m.getName().equals(name)).findFirst().orElse(null);
  }

  private static List<? extends PointData> points(MetricData m) {
    return List.copyOf(m.getData().getPoints());
  }

  @Test
  void collect_failedAndAbortedAreTwoGauges() {
    ServerStats s = ServerStats.builder().running(1).waiting(0).requestsPerSecond(2.0)
        .failedRequestsPerSecond(0.3).abortedRequestsPerSecond(0.2).build();
    snapshot.set(snapshotOf(List.of(StatsPoint.of("chat", "vllm", null, s)), Map.of()));
    try (InferenceMetrics m = new InferenceMetrics(sdk, snapshot::get)) {
      Collection<MetricData> all = reader.collectAllMetrics();
      MetricData failed = metric(all, "gputop.inference.failed_request.rate");
      MetricData aborted = metric(all, "gputop.inference.aborted_request.rate");
      assertThat(failed.getUnit()).isEqualTo("{request}/s");
      assertThat(aborted.getUnit()).isEqualTo("{request}/s");
      assertThat(failed.getDoubleGaugeData().getPoints()).singleElement().satisfies(p -> assertThat(p.getValue()).isEqualTo(0.3));
      assertThat(aborted.getDoubleGaugeData().getPoints()).singleElement().satisfies(p -> assertThat(p.getValue()).isEqualTo(0.2));
      assertThat(aborted.getDescription()).contains("client aborted or cancelled");
    }
    // N/A (an engine that doesn't tell aborts apart): no point.
    ServerStats none = ServerStats.builder().running(1).waiting(0).requestsPerSecond(2.0)
        .failedRequestsPerSecond(0.3).build();
    snapshot.set(snapshotOf(List.of(StatsPoint.of("chat", "sglang", null, none)), Map.of()));
    try (InferenceMetrics m = new InferenceMetrics(sdk, snapshot::get)) {
      assertThat(metric(reader.collectAllMetrics(), "gputop.inference.aborted_request.rate")).isNull();
    }
  }

  @Test
  void collect_latencyAtConfiguredQuantiles_hasOnePointPerQuantile() {
    LatencyStats l = new LatencyStats(0.3, dev.gputop.inference.stats.Quantiles.of(
        List.of(0.5, 0.95, 0.999)), List.of(0.25, 0.7, 1.2), 40L);
    ServerStats s = ServerStats.builder().running(5).waiting(1).kvCacheUsage(0.61)
        .prefixHitRatio(0.55).requestsPerSecond(4.0).promptTokensPerSecond(900.0)
        .generationTokensPerSecond(1100.0).preemptionsPerSecond(0.3).ttft(l).itl(l).e2e(l).queue(l)
        .ttftApproxMean(0.35).build();
    snapshot.set(snapshotOf(List.of(StatsPoint.of("chat", "vllm", null, s)), Map.of()));
    try (InferenceMetrics m = new InferenceMetrics(sdk, snapshot::get)) {
      assertThat(metric(reader.collectAllMetrics(), "gputop.inference.ttft").getDoubleGaugeData()
              .getPoints())
          .extracting(p -> p.getAttributes().get(AttributeKey.stringKey("quantile")) + "=" + p.getValue()
              + " " + p.getAttributes().get(AttributeKey.stringKey("server")))
          .containsExactlyInAnyOrder("0.5=0.25 chat", "0.95=0.7 chat", "0.999=1.2 chat");
    }
  }

  @Test
  void collect_exportsEveryDocumentedGaugeWithServerAndEngine() {
    LatencyStats l = new LatencyStats(0.3, 0.25, 0.6, 0.9, 40L);
    ServerStats s = ServerStats.builder().running(5).waiting(1).kvCacheUsage(0.61)
        .prefixHitRatio(0.55).requestsPerSecond(4.0).promptTokensPerSecond(900.0)
        .generationTokensPerSecond(1100.0).preemptionsPerSecond(0.3).ttft(l).itl(l).e2e(l).queue(l)
        .ttftApproxMean(0.35).build();
    snapshot.set(snapshotOf(List.of(StatsPoint.of("chat", "vllm", null, s)),
        Map.of(StatsPoint.upAttributes("chat", "vllm"), 1L)));
    try (InferenceMetrics m = new InferenceMetrics(sdk, snapshot::get)) {
      Collection<MetricData> all = reader.collectAllMetrics();
      Set<String> names = all.stream().map(MetricData::getName).collect(Collectors.toCollection(TreeSet::new));
      assertThat(names).containsExactlyInAnyOrder(
          "gputop.inference.up", "gputop.inference.requests.running", "gputop.inference.requests.waiting",
          "gputop.inference.kv_cache.usage_ratio", "gputop.inference.prefix_cache.hit_ratio",
          "gputop.inference.request.rate", "gputop.inference.prompt_tokens.rate",
          "gputop.inference.generation_tokens.rate", "gputop.inference.preemption.rate",
          "gputop.inference.ttft", "gputop.inference.itl", "gputop.inference.e2e", "gputop.inference.queue",
          "gputop.inference.ttft.mean", "gputop.inference.itl.mean", "gputop.inference.e2e.mean",
          "gputop.inference.queue.mean", "gputop.inference.ttft.observations", "gputop.inference.itl.observations",
          "gputop.inference.e2e.observations", "gputop.inference.queue.observations",
          "gputop.inference.ttft_approx.mean");
      MetricData running = metric(all, "gputop.inference.requests.running");
      assertThat(running.getUnit()).isEqualTo("{request}");
      assertThat(running.getLongGaugeData().getPoints()).singleElement().satisfies(p -> {
        assertThat(p.getValue()).isEqualTo(5);
        assertThat(p.getAttributes()).isEqualTo(Attributes.of(
            AttributeKey.stringKey("server"), "chat", AttributeKey.stringKey("engine"), "vllm"));
      });
      assertThat(metric(all, "gputop.inference.kv_cache.usage_ratio").getDoubleGaugeData().getPoints())
          .singleElement().satisfies(p -> assertThat(p.getValue()).isEqualTo(0.61));
      MetricData ttft = metric(all, "gputop.inference.ttft");
      assertThat(ttft.getUnit()).isEqualTo("s");
      assertThat(ttft.getDoubleGaugeData().getPoints())
          .extracting(p -> p.getAttributes().get(AttributeKey.stringKey("quantile")) + "=" + p.getValue())
          .containsExactlyInAnyOrder("0.5=0.25", "0.9=0.6", "0.99=0.9");
      assertThat(metric(all, "gputop.inference.ttft.observations").getLongGaugeData().getPoints())
          .singleElement().satisfies(p -> assertThat(p.getValue()).isEqualTo(40));
      assertThat(metric(all, "gputop.inference.up").getLongGaugeData().getPoints())
          .singleElement().satisfies(p -> {
            assertThat(p.getValue()).isEqualTo(1);
            assertThat(p.getAttributes()).isEqualTo(Attributes.of(
                AttributeKey.stringKey("server"), "chat", AttributeKey.stringKey("engine"), "vllm"));
          });
    }
  }

  @Test
  void collect_notApplicableValuesHaveNoDataPoint() {
    // TGI: no KV cache, no TTFT; a latency with no request in the window has only its count.
    LatencyStats empty = new LatencyStats(null, null, null, null, 0L);
    ServerStats s = ServerStats.builder().running(8).waiting(3).requestsPerSecond(5.0)
        .promptTokensPerSecond(1000.0).generationTokensPerSecond(1200.0).itl(empty).e2e(empty)
        .queue(empty).ttftApproxMean(0.2).build();
    snapshot.set(snapshotOf(List.of(StatsPoint.of("tgi", "tgi", null, s)), Map.of()));
    try (InferenceMetrics m = new InferenceMetrics(sdk, snapshot::get)) {
      Collection<MetricData> all = reader.collectAllMetrics();
      assertThat(metric(all, "gputop.inference.kv_cache.usage_ratio")).isNull();
      assertThat(metric(all, "gputop.inference.ttft")).isNull();
      assertThat(metric(all, "gputop.inference.preemption.rate")).isNull();
      assertThat(metric(all, "gputop.inference.itl")).isNull();
      assertThat(points(metric(all, "gputop.inference.itl.observations"))).hasSize(1);
      assertThat(points(metric(all, "gputop.inference.request.rate"))).hasSize(1);
      // The approximation has its own name; it never fills the TTFT gauges.
      assertThat(metric(all, "gputop.inference.ttft_approx.mean").getDoubleGaugeData().getPoints())
          .singleElement().satisfies(p -> assertThat(p.getValue()).isEqualTo(0.2));
    }
  }

  /** The request lengths: tokens, one point per quantile plus the mean, server and model apart. */
  @Test
  void collect_requestLengthsAreTokenGaugesByQuantileWithTheirMeans() {
    LatencyStats prompt = new LatencyStats(400.0, 450.0, 875.0, 987.5, 20L);
    LatencyStats gen = new LatencyStats(200.0, 100.0, 440.0, 494.0, 20L);
    ServerStats server = ServerStats.builder().running(1).requestLengths(new RequestLengths(prompt, gen)).build();
    // One model without a generation histogram: no point there, never a 0.
    ServerStats model = ServerStats.builder().running(1).requestLengths(new RequestLengths(prompt, null)).build();
    snapshot.set(snapshotOf(List.of(StatsPoint.of("chat", "vllm", null, server),
        StatsPoint.of("chat", "vllm", "m", model)), Map.of()));
    try (InferenceMetrics m = new InferenceMetrics(sdk, snapshot::get)) {
      Collection<MetricData> all = reader.collectAllMetrics();
      MetricData p = metric(all, "gputop.inference.prompt_tokens_per_request");
      assertThat(p.getUnit()).isEqualTo("{token}");
      assertThat(p.getDoubleGaugeData().getPoints())
          .extracting(x -> x.getAttributes().get(AttributeKey.stringKey("quantile")) + "=" + x.getValue()
              + " " + x.getAttributes().get(AttributeKey.stringKey("model")))
          .containsExactlyInAnyOrder("0.5=450.0 null", "0.9=875.0 null", "0.99=987.5 null");
      assertThat(metric(all, "gputop.inference.generation_tokens_per_request.mean").getDoubleGaugeData()
          .getPoints()).singleElement().satisfies(x -> assertThat(x.getValue()).isEqualTo(200.0));
      assertThat(metric(all, "gputop.inference.model.prompt_tokens_per_request.mean").getDoubleGaugeData()
          .getPoints()).singleElement().satisfies(x -> {
            assertThat(x.getValue()).isEqualTo(400.0);
            assertThat(x.getAttributes().get(AttributeKey.stringKey("model"))).isEqualTo("m");
          });
      assertThat(metric(all, "gputop.inference.model.generation_tokens_per_request")).isNull();
      // The requests counters count the requests: no observations gauge for lengths.
      assertThat(metric(all, "gputop.inference.prompt_tokens_per_request.observations")).isNull();
    }
  }

  @Test
  void collect_perModelPointsGoToTheModelFamilies_neverBesideTheServersValue() {
    LatencyStats l = new LatencyStats(0.3, 0.25, 0.6, 0.9, 40L);
    ServerStats total = ServerStats.builder().running(13).requestsPerSecond(6.0).ttft(l).build();
    ServerStats a = ServerStats.builder().running(9).requestsPerSecond(4.0).ttft(l).build();
    ServerStats b = ServerStats.builder().running(4).requestsPerSecond(2.0).build();
    snapshot.set(snapshotOf(List.of(StatsPoint.of("ray", "vllm", null, total),
        StatsPoint.of("ray", "vllm", "model-a", a), StatsPoint.of("ray", "vllm", "model-b", b)), Map.of()));
    try (InferenceMetrics m = new InferenceMetrics(sdk, snapshot::get)) {
      Collection<MetricData> all = reader.collectAllMetrics();
      assertThat(metric(all, "gputop.inference.requests.running").getLongGaugeData().getPoints())
          .extracting(p -> p.getAttributes().get(AttributeKey.stringKey("model")) + "=" + p.getValue())
          .containsExactly("null=13");
      MetricData perModel = metric(all, "gputop.inference.model.requests.running");
      assertThat(perModel.getLongGaugeData().getPoints())
          .extracting(p -> p.getAttributes().get(AttributeKey.stringKey("model")) + "=" + p.getValue())
          .containsExactlyInAnyOrder("model-a=9", "model-b=4");
      // sum by (server) over the model family is the server's own value.
      assertThat(perModel.getLongGaugeData().getPoints().stream().mapToLong(p -> p.getValue()).sum()).isEqualTo(13);
      assertThat(metric(all, "gputop.inference.model.request.rate").getDoubleGaugeData().getPoints())
          .extracting(p -> p.getValue()).containsExactlyInAnyOrder(4.0, 2.0);
      assertThat(metric(all, "gputop.inference.ttft").getDoubleGaugeData().getPoints())
          .allSatisfy(p -> assertThat(p.getAttributes().get(AttributeKey.stringKey("model"))).isNull()).hasSize(3);
      assertThat(metric(all, "gputop.inference.model.ttft").getDoubleGaugeData().getPoints())
          .allSatisfy(p -> assertThat(p.getAttributes().get(AttributeKey.stringKey("model"))).isEqualTo("model-a"))
          .hasSize(3);
      // Every family has one kind of point only.
      for (MetricData d : all) {
        boolean modelFamily = d.getName().startsWith("gputop.inference.model.");
        assertThat(d.getData().getPoints()).as(d.getName()).allSatisfy(p ->
            assertThat(p.getAttributes().get(AttributeKey.stringKey("model")) != null).isEqualTo(modelFamily));
      }
    }
  }

  @Test
  void collect_serverInfoIsOnePerServedModel() {
    snapshot.set(snapshotOf(List.of(), Map.of(), Map.of(StatsPoint.infoAttributes("ray", "vllm", "a", null), 1L,
            StatsPoint.infoAttributes("ray", "vllm", "b", null), 1L,
            StatsPoint.infoAttributes("tgi", "tgi", "", null), 1L),
        Map.of()));
    try (InferenceMetrics m = new InferenceMetrics(sdk, snapshot::get)) {
      MetricData info = metric(reader.collectAllMetrics(), "gputop.inference.served_model");
      assertThat(info.getUnit()).isEqualTo("1");
      assertThat(info.getLongGaugeData().getPoints())
          .extracting(p -> p.getAttributes().get(AttributeKey.stringKey("server")) + "/"
              + p.getAttributes().get(AttributeKey.stringKey("model")) + "=" + p.getValue())
          .containsExactlyInAnyOrder("ray/a=1", "ray/b=1", "tgi/null=1");
    }
  }

  @Test
  void collect_upIsOneSeriesPerServer_theStateIsAStateSet() {
    snapshot.set(snapshotOf(List.of(), Map.of(StatsPoint.upAttributes("a", "vllm"), 1L),
        Map.of(StatsPoint.stateAttributes("a", "vllm", null).get(0), 0L,
            StatsPoint.stateAttributes("a", "vllm", null).get(1), 1L,
            StatsPoint.stateAttributes("a", "vllm", null).get(2), 0L)));
    try (InferenceMetrics m = new InferenceMetrics(sdk, snapshot::get)) {
      Collection<MetricData> all = reader.collectAllMetrics();
      assertThat(metric(all, "gputop.inference.up").getLongGaugeData().getPoints()).singleElement()
          .satisfies(p -> assertThat(p.getAttributes().get(AttributeKey.stringKey("state"))).isNull());
      assertThat(metric(all, "gputop.inference.server.state").getLongGaugeData().getPoints())
          .extracting(p -> p.getAttributes().get(AttributeKey.stringKey("state")) + "=" + p.getValue())
          .containsExactlyInAnyOrder("up=0", "starting=1", "down=0");
    }
  }

  @Test
  void docsMetricsMd_listsEveryGaugeWithItsUnit() throws Exception {
    java.nio.file.Path doc = java.nio.file.Path.of("..", "docs", "metrics.md");
    org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.exists(doc), "docs/metrics.md not found");
    String text = java.nio.file.Files.readString(doc);
    int from = text.indexOf("## Inference receiver: windowed serving statistics");
    int to = text.indexOf("### Source metric per engine");
    String section = text.substring(from, to);
    LatencyStats l = new LatencyStats(0.3, 0.25, 0.6, 0.9, 40L);
    ServerStats full = ServerStats.builder().running(1).waiting(1).kvCacheUsage(0.5)
        .prefixHitRatio(0.5).requestsPerSecond(1.0).promptTokensPerSecond(1.0)
        .generationTokensPerSecond(1.0).preemptionsPerSecond(1.0).ttft(l).itl(l).e2e(l).queue(l)
        .ttftApproxMean(0.4).build();
    snapshot.set(snapshotOf(List.of(StatsPoint.of("s", "vllm", null, full), StatsPoint.of("s", "vllm", "m", full)),
        Map.of(StatsPoint.upAttributes("s", "vllm"), 1L),
        Map.of(StatsPoint.stateAttributes("s", "vllm", null).get(0), 1L)));
    try (InferenceMetrics m = new InferenceMetrics(sdk, snapshot::get)) {
      for (MetricData d : reader.collectAllMetrics()) {
        String collected = d.getName();
        boolean modelFamily = collected.startsWith("gputop.inference.model.");
        if (modelFamily) {
          // The model families are the rule's, one line for all: their rows are the servers'.
          assertThat(section).contains("`gputop.inference.model.<name>`");
        }
        String name = modelFamily
            ? "gputop.inference." + collected.substring("gputop.inference.model.".length()) : collected;
        String row = section.lines().filter(line -> line.startsWith("| ") && line.contains("`" + name + "`")).findFirst().orElse(null);
        if (row == null) {
          // The .mean and .count rows list the other latencies as "(and `.itl.mean`, …)".
          String shortName = name.substring("gputop.inference".length());
          row = section.lines().filter(line -> line.startsWith("| ") && line.contains("`" + shortName + "`")).findFirst().orElse(null);
        }
        assertThat(row).as("row for %s in docs/metrics.md", name).isNotNull();
        assertThat(row).as("unit of %s", name).contains("| `" + d.getUnit() + "` |");
      }
    }
  }

  @Test
  void close_unregistersTheCallbacks() {
    ServerStats s = ServerStats.builder().running(1).build();
    snapshot.set(snapshotOf(List.of(StatsPoint.of("x", "vllm", null, s)), Map.of()));
    InferenceMetrics m = new InferenceMetrics(sdk, snapshot::get);
    m.close();
    m.close();
    assertThat(reader.collectAllMetrics()).isEmpty();
  }
}
