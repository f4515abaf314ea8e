package dev.gputop.inference.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.engine.Engine;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.testing.TextExpositions;
import dev.gputop.inference.window.ServerWindow;
import dev.gputop.receiver.ExportedHistogram;
import io.opentelemetry.sdk.testing.assertj.OpenTelemetryAssertions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A server's attribute sets are built once and kept while it stays, with its engine. */
class ExportCacheTest {

  private static final ServerStats STATS = ServerStats.builder().running(3).waiting(1).build();

  private final ServerWindow window = new ServerWindow(Duration.ofMinutes(1), 8);
  private long nanos;

  /** One more scrape of a TTFT histogram with 1 and 1.0 (one boundary) into the window. */
  private void scrape(int requests) {
    nanos += 3_000_000_000L;
    window.add(nanos, nanos, new EngineMapper().map(TextExpositions.parse(
        "# TYPE vllm:time_to_first_token_seconds histogram\n"
            + "vllm:time_to_first_token_seconds_bucket{le=\"0.5\",model_name=\"m\"} 0\n"
            + "vllm:time_to_first_token_seconds_bucket{le=\"1\",model_name=\"m\"} " + requests + "\n"
            + "vllm:time_to_first_token_seconds_bucket{le=\"1.0\",model_name=\"m\"} " + requests + "\n"
            + "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} " + requests + "\n"
            + "vllm:time_to_first_token_seconds_count{model_name=\"m\"} " + requests + "\n"
            + "vllm:time_to_first_token_seconds_sum{model_name=\"m\"} " + requests * 0.7 + "\n")));
  }

  private InferenceSnapshot refresh(ExportCache cache, String engine, String... servers) {
    SnapshotBuilder b = new SnapshotBuilder(cache);
    for (String name : servers) {
      b.add(SnapshotBuilder.Server.builder(name, "http://h:1/metrics", ServerSource.CONFIGURED)
          .engine(Engine.of(engine)).stats(STATS).window(window).build());
    }
    return b.build(new DiscoverySection(List.of(), List.of()));
  }

  @Test
  void snapshotBuilder_reusesAServersAttributesFromRefreshToRefresh() {
    ExportCache cache = new ExportCache();
    StatsPoint first = refresh(cache, "vllm", "a", "b").points().get(0);
    InferenceSnapshot second = refresh(cache, "vllm", "a", "b");
    StatsPoint again = second.points().get(0);
    assertThat(again.attributes()).isSameAs(first.attributes());
    assertThat(again.quantiles()).isSameAs(first.quantiles());
    assertThat(again.slo()).isSameAs(first.slo());
    assertThat(again.stats()).isSameAs(STATS);
    // The same values as a builder without a cache.
    StatsPoint fresh = refresh(new ExportCache(), "vllm", "a").points().get(0);
    assertThat(again.attributes()).isEqualTo(fresh.attributes());
    assertThat(again.slo()).isEqualTo(fresh.slo());
    assertThat(second.up()).containsOnlyKeys(
        StatsPoint.upAttributes("a", "vllm"), StatsPoint.upAttributes("b", "vllm"));
    assertThat(second.states().keySet()).containsAll(StatsPoint.stateAttributes("a", "vllm", null)).hasSize(6);
  }

  @Test
  void snapshotBuilder_histogramsKeepTheirAttributesAndBoundariesAndTakeTheNewCounts() {
    ExportCache cache = new ExportCache();
    scrape(4);
    ExportedHistogram first = refresh(cache, "vllm", "a").histograms().get(0);
    scrape(10);
    ExportedHistogram second = refresh(cache, "vllm", "a").histograms().get(0);
    assertThat(second.attributes()).isSameAs(first.attributes());
    OpenTelemetryAssertions.assertThat(second.attributes())
        .containsEntry("server", "a").containsEntry("gen_ai.request.model", "m");
    // The boundaries of a layout are found once (the histogram keeps a copy of its own).
    double[] bounds = window.columns(Concept.TTFT).get(0).bounds();
    assertThat(cache.server("a", "vllm", null).layout(bounds).boundaries)
        .isSameAs(cache.server("a", "vllm", null).layout(bounds).boundaries).containsExactly(0.5, 1.0);
    assertThat(second.boundaries()).containsExactly(0.5, 1.0);
    assertThat(first.counts()).containsExactly(0L, 4L, 0L);
    assertThat(second.counts()).containsExactly(0L, 10L, 0L);
    assertThat(second.count()).isEqualTo(10);
    assertThat(second.sum()).isEqualTo(7.0);
    // Without a cache: the same histogram.
    assertThat(HistogramExports.of("a", "vllm", window)).containsExactly(second);
  }

  @Test
  void snapshotBuilder_forgetsAServerThatWasNotAddedAndOneWhoseEngineChanged() {
    ExportCache cache = new ExportCache();
    StatsPoint a = refresh(cache, "vllm", "a", "b").points().get(0);
    refresh(cache, "vllm", "b");
    StatsPoint back = refresh(cache, "vllm", "a").points().get(0);
    assertThat(back.attributes()).isNotSameAs(a.attributes()).isEqualTo(a.attributes());
    StatsPoint sglang = refresh(cache, "sglang", "a").points().get(0);
    assertThat(sglang.attributes().get(StatsPoint.ENGINE)).isEqualTo("sglang");
  }
}
