package dev.gputop.agent.runtime;

import static io.opentelemetry.sdk.testing.assertj.OpenTelemetryAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.config.PodIdentity;
import dev.gputop.receiver.ExportedCounter;
import dev.gputop.receiver.ExportedHistogram;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ExportedHistogramProducerTest {

  private static final long START = 1_700_000_000_000_000_000L;
  private static final long NOW = START + 30_000_000_000L;

  private static ExportedHistogram ttft(String server, double[] bounds, long[] counts, double sum) {
    return new ExportedHistogram(
        "gen_ai.server.time_to_first_token",
        "Time to first token",
        "s",
        Attributes.builder().put("server", server).put("engine", "vllm").build(),
        START,
        NOW,
        bounds,
        counts,
        sum);
  }

  @Test
  void produce_pointsAndSumsCarryTheReceiversAttributesAsTheyAre() {
    ExportedHistogramProducer producer = new ExportedHistogramProducer();
    ExportedHistogram a = ttft("a", new double[] {0.1}, new long[] {1, 0}, 0.05);
    ExportedCounter c = new ExportedCounter("gputop.inference.requests", "Requests", "{request}",
        a.attributes(), START, NOW, 1);
    producer.bind(() -> List.of(a), () -> List.of(c));
    List<MetricData> out = List.copyOf(producer.produce(Resource.empty()));
    // the receivers keep a server's attributes between refreshes: the agent makes none
    assertThat(out.get(0).getHistogramData().getPoints().iterator().next().getAttributes()).isSameAs(a.attributes());
    assertThat(out.get(1).getDoubleSumData().getPoints().iterator().next().getAttributes()).isSameAs(a.attributes());
  }

  @Test
  void produce_boundCountersAreMonotonicCumulativeSumsWithTheirOwnStartTimes() {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    ExportedHistogramProducer producer = new ExportedHistogramProducer();
    long later = START + 7_000_000_000L;
    List<ExportedCounter> counters = List.of(
        new ExportedCounter("gputop.inference.requests", "Requests", "{request}",
            Attributes.builder().put("server", "a").put("outcome", "success").build(), START, NOW, 120),
        new ExportedCounter("gputop.inference.requests", "Requests", "{request}",
            Attributes.builder().put("server", "a").put("outcome", "error").build(), START, NOW, 3),
        new ExportedCounter("gputop.inference.requests", "Requests", "{request}",
            Attributes.builder().put("server", "b").put("outcome", "success").build(), later, NOW, 0));
    try (SdkMeterProvider p =
        SdkMeterProvider.builder().registerMetricReader(reader).registerMetricProducer(producer).build()) {
      producer.bind(List::of, () -> counters);
      Collection<MetricData> metrics = reader.collectAllMetrics();
      assertThat(metrics).singleElement().satisfies(m -> assertThat(m)
          .hasName("gputop.inference.requests")
          .hasUnit("{request}")
          .hasInstrumentationScope(ExportedHistogramProducer.SCOPE)
          .hasDoubleSumSatisfying(sum -> sum.isMonotonic().isCumulative().hasPointsSatisfying(
              pt -> pt.hasAttributes(Attributes.builder().put("server", "a").put("outcome", "success").build())
                  .hasStartEpochNanos(START).hasEpochNanos(NOW).hasValue(120),
              pt -> pt.hasAttributes(Attributes.builder().put("server", "a").put("outcome", "error").build())
                  .hasValue(3),
              pt -> pt.hasAttributes(Attributes.builder().put("server", "b").put("outcome", "success").build())
                  .hasStartEpochNanos(later).hasValue(0))));
      producer.unbind();
      assertThat(reader.collectAllMetrics()).isEmpty();
    }
  }

  @Test
  void produce_unboundProducesNothing() {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    ExportedHistogramProducer producer = new ExportedHistogramProducer();
    try (SdkMeterProvider p =
        SdkMeterProvider.builder().registerMetricReader(reader).registerMetricProducer(producer).build()) {
      assertThat(reader.collectAllMetrics()).isEmpty();
    }
  }

  @Test
  void produce_boundHistogramsAreCumulativeWithTheServersBuckets() {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    ExportedHistogramProducer producer = new ExportedHistogramProducer();
    AtomicReference<List<ExportedHistogram>> current = new AtomicReference<>(List.of(
        ttft("a", new double[] {0.1, 0.5, 1.0}, new long[] {3, 5, 1, 1}, 3.2),
        ttft("b", new double[] {0.25, 2.5}, new long[] {7, 0, 2}, 9.0),
        new ExportedHistogram("gen_ai.server.request.duration", "E2E", "s",
            Attributes.builder().put("server", "a").build(), START, NOW, new double[] {1.0}, new long[] {4, 0}, 2.0)));
    try (SdkMeterProvider p =
        SdkMeterProvider.builder().registerMetricReader(reader).registerMetricProducer(producer).build()) {
      producer.bind(current::get);
      Collection<MetricData> metrics = reader.collectAllMetrics();

      assertThat(metrics).hasSize(2);
      MetricData ttft = metrics.stream()
          .filter(m -> m.getName().equals("gen_ai.server.time_to_first_token")).findFirst().orElseThrow();
      assertThat(ttft)
          .hasUnit("s")
          .hasDescription("Time to first token")
          .hasInstrumentationScope(ExportedHistogramProducer.SCOPE)
          .hasHistogramSatisfying(h -> h
              .isCumulative()
              .hasPointsSatisfying(
                  pt -> pt.hasAttribute(AttributeKey.stringKey("server"), "a")
                      .hasAttribute(AttributeKey.stringKey("engine"), "vllm")
                      .hasStartEpochNanos(START)
                      .hasEpochNanos(NOW)
                      .hasBucketBoundaries(0.1, 0.5, 1.0)
                      .hasBucketCounts(3, 5, 1, 1)
                      .hasSum(3.2)
                      .hasCount(10),
                  pt -> pt.hasAttribute(AttributeKey.stringKey("server"), "b")
                      .hasBucketBoundaries(0.25, 2.5)
                      .hasBucketCounts(7, 0, 2)
                      .hasCount(9)));
      assertThat(ttft.getHistogramData().getAggregationTemporality()).isEqualTo(AggregationTemporality.CUMULATIVE);

      producer.unbind();
      assertThat(reader.collectAllMetrics()).isEmpty();
    }
  }

  @Test
  void produce_histogramOfAServerInAPodCarriesTheK8sAttributes() {
    PodIdentity pod = new PodIdentity("llm", "chat-7f9c", "vllm", "4415fd05-2c0f-4533-909b-f2180dca8d7c");
    Attributes attributes =
        pod.addTo(Attributes.builder().put("server", "llm/chat-7f9c:8000").put("engine", "vllm")).build();
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    ExportedHistogramProducer producer = new ExportedHistogramProducer();
    try (SdkMeterProvider p =
        SdkMeterProvider.builder().registerMetricReader(reader).registerMetricProducer(producer).build()) {
      producer.bind(() -> List.of(new ExportedHistogram("gen_ai.server.time_to_first_token", "TTFT", "s",
          attributes, START, NOW, new double[] {0.1}, new long[] {2, 1}, 0.3)));

      assertThat(reader.collectAllMetrics()).singleElement().satisfies(m -> assertThat(m)
          .hasHistogramSatisfying(h -> h.hasPointsSatisfying(pt -> pt
              .hasAttributes(Attributes.builder()
                  .put("server", "llm/chat-7f9c:8000").put("engine", "vllm")
                  .put(PodIdentity.K8S_NAMESPACE_NAME, "llm").put(PodIdentity.K8S_POD_NAME, "chat-7f9c")
                  .put(PodIdentity.K8S_CONTAINER_NAME, "vllm")
                  .put(PodIdentity.K8S_POD_UID, "4415fd05-2c0f-4533-909b-f2180dca8d7c").build())
              .hasBucketCounts(2, 1))));
    }
  }

  @Test
  void produce_invalidPointIsLeftOutAndTheRestExported() {
    ExportedHistogram unordered = ttft("bad", new double[] {0.5, 0.1}, new long[] {1, 1, 1}, 1.0);
    ExportedHistogram good = ttft("good", new double[] {0.1, 0.5}, new long[] {1, 1, 1}, 1.0);
    List<MetricData> metrics =
        ExportedHistogramProducer.toMetricData(io.opentelemetry.sdk.resources.Resource.empty(), List.of(unordered, good));
    assertThat(metrics).hasSize(1);
    assertThat(metrics.get(0).getHistogramData().getPoints()).hasSize(1);
    assertThat(metrics.get(0).getHistogramData().getPoints().iterator().next().getAttributes()
        .get(AttributeKey.stringKey("server"))).isEqualTo("good");
  }

  @Test
  void toMetricData_pointsAreViewsOfTheHistogramsArraysAndInfiniteBoundsAreLeftOut() {
    ExportedHistogram good = ttft("good", new double[] {0.1, 0.5}, new long[] {1, 2, 3}, 1.0);
    ExportedHistogram infinite = ttft("inf", new double[] {0.1, Double.POSITIVE_INFINITY}, new long[] {1, 1, 0}, 1.0);
    List<MetricData> metrics =
        ExportedHistogramProducer.toMetricData(io.opentelemetry.sdk.resources.Resource.empty(), List.of(good, infinite));
    HistogramPointData point = metrics.get(0).getHistogramData().getPoints().iterator().next();
    assertThat(metrics.get(0).getHistogramData().getPoints()).hasSize(1);
    assertThat(point.getBoundaries()).isSameAs(good.boundaryList()).containsExactly(0.1, 0.5);
    assertThat(point.getCounts()).isSameAs(good.countList()).containsExactly(1L, 2L, 3L);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> point.getCounts().set(0, 9L))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(point.getCount()).isEqualTo(6);
    assertThat(point.hasMin()).isFalse();
    assertThat(point.hasMax()).isFalse();
    assertThat(point.getExemplars()).isEmpty();
  }

  @Test
  void produce_supplierThatThrowsProducesNothing() {
    ExportedHistogramProducer producer = new ExportedHistogramProducer();
    producer.bind(() -> {
      throw new IllegalStateException("boom");
    });
    assertThat(producer.produce(io.opentelemetry.sdk.resources.Resource.empty())).isEmpty();
  }
}
