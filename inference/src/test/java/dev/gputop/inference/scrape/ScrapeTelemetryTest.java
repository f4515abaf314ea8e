package dev.gputop.inference.scrape;

import static dev.gputop.inference.scrape.HttpScraperTest.CONFIG;
import static dev.gputop.inference.scrape.HttpScraperTest.EXPOSITION;
import static dev.gputop.inference.scrape.HttpScraperTest.PROMETHEUS_TEXT;
import static dev.gputop.inference.scrape.HttpScraperTest.bytes;
import static io.opentelemetry.sdk.testing.assertj.OpenTelemetryAssertions.assertThat;
import static io.opentelemetry.sdk.testing.assertj.OpenTelemetryAssertions.equalTo;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.config.Endpoint;
import dev.gputop.receiver.Clock;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.URI;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The scraper's own metrics and spans, read back through the SDK's in-memory exporters. */
class ScrapeTelemetryTest {

  private final InMemoryMetricReader metricReader = InMemoryMetricReader.create();
  private final InMemorySpanExporter spanExporter = InMemorySpanExporter.create();
  private OpenTelemetrySdk sdk;
  private TestHttpServer server;

  @BeforeEach
  void setUp() throws Exception {
    sdk = OpenTelemetrySdk.builder()
        .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metricReader).build())
        .setTracerProvider(SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(spanExporter)).build())
        .build();
    server = TestHttpServer.http()
        .handle("/metrics", exchange ->
            TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION)))
        .handle("/gzip", exchange -> {
          exchange.getResponseHeaders().set("Content-Encoding", "gzip");
          TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT,
              HttpScraperTest.gzip(bytes(EXPOSITION.repeat(100))));
        })
        .handle("/missing", exchange -> TestHttpServer.send(exchange, 404, "text/plain",
            bytes("404 page not found")))
        .handle("/login", exchange -> TestHttpServer.send(exchange, 200, "text/html",
            bytes("<html><body>Sign in</body></html>")));
  }

  @AfterEach
  void tearDown() {
    server.close();
    sdk.close();
  }

  @Test
  void scrapeAll_records_durationSizeAndCountByServerAndOutcome() {
    scrape(Endpoint.of("vllm", server.uri("/metrics")),
        Endpoint.of("sglang", server.uri("/missing")));

    Collection<MetricData> metrics = metricReader.collectAllMetrics();
    Attributes vllmOk =
        Attributes.of(ScrapeTelemetry.SERVER, "vllm", ScrapeTelemetry.OUTCOME, "success");
    Attributes sglangError =
        Attributes.of(ScrapeTelemetry.SERVER, "sglang", ScrapeTelemetry.OUTCOME, "http_error");
    assertThat(metric(metrics, "gputop.scrape.count"))
        .hasUnit("{scrape}")
        .hasInstrumentationScope(io.opentelemetry.sdk.common.InstrumentationScopeInfo.create(
            "dev.gputop.inference"))
        .hasLongSumSatisfying(sum -> sum.isMonotonic().hasPointsSatisfying(
            p -> p.hasAttributes(vllmOk).hasValue(1),
            p -> p.hasAttributes(sglangError).hasValue(1)));
    assertThat(metric(metrics, "gputop.scrape.duration"))
        .hasUnit("s")
        .hasHistogramSatisfying(h -> h.hasPointsSatisfying(
            p -> p.hasAttributes(vllmOk).hasCount(1)
                .hasBucketBoundaries(ScrapeTelemetry.DURATION_BUCKETS.stream()
                    .mapToDouble(Double::doubleValue).toArray()),
            p -> p.hasAttributes(sglangError).hasCount(1)));
    assertThat(metric(metrics, "gputop.scrape.size"))
        .hasUnit("By")
        .hasHistogramSatisfying(h -> h.hasPointsSatisfying(
            p -> p.hasAttributes(Attributes.of(ScrapeTelemetry.SERVER, "vllm"))
                .hasCount(1).hasSum(EXPOSITION.length())));
  }

  @Test
  void scrapeAll_anHtmlPageWithStatus200_isCountedAsMalformed_notAsSuccess() {
    scrape(Endpoint.of("behind-sso", server.uri("/login")));

    Collection<MetricData> metrics = metricReader.collectAllMetrics();
    assertThat(metric(metrics, "gputop.scrape.count"))
        .hasLongSumSatisfying(sum -> sum.hasPointsSatisfying(
            p -> p.hasAttributes(Attributes.of(ScrapeTelemetry.SERVER, "behind-sso",
                ScrapeTelemetry.OUTCOME, "malformed")).hasValue(1)));
    // No body size: only expositions are measured.
    assertThat(metrics).noneMatch(m -> m.getName().equals("gputop.scrape.size"));
  }

  @Test
  void scrapeAll_bodyTheReaderRefuses_isCountedAndTracedAsMalformed() {
    List<ScrapeResult> results;
    try (HttpScraper scraper = new HttpScraper(CONFIG, Clock.system(), sdk)) {
      results = scraper.scrapeAll(List.of(Endpoint.of("vllm", server.uri("/metrics")),
              Endpoint.of("sglang", server.uri("/gzip"))),
          r -> r.target().name().equals("vllm") ? "malformed exposition: line 2: bad" : null);
    }

    assertThat(results.get(0).outcome()).isEqualTo(ScrapeResult.Outcome.MALFORMED);
    assertThat(results.get(0).error()).isEqualTo("malformed exposition: line 2: bad");
    assertThat(results.get(0).body()).isNull();
    assertThat(results.get(1).ok()).isTrue();
    Collection<MetricData> metrics = metricReader.collectAllMetrics();
    assertThat(metric(metrics, "gputop.scrape.count"))
        .hasLongSumSatisfying(sum -> sum.hasPointsSatisfying(
            p -> p.hasAttributes(Attributes.of(ScrapeTelemetry.SERVER, "vllm",
                ScrapeTelemetry.OUTCOME, "malformed")).hasValue(1),
            p -> p.hasAttributes(Attributes.of(ScrapeTelemetry.SERVER, "sglang",
                ScrapeTelemetry.OUTCOME, "success")).hasValue(1)));
    // Only the body that read is measured.
    assertThat(metric(metrics, "gputop.scrape.size"))
        .hasHistogramSatisfying(h -> h.hasPointsSatisfying(
            p -> p.hasAttributes(Attributes.of(ScrapeTelemetry.SERVER, "sglang"))));
    List<SpanData> spans = spanExporter.getFinishedSpanItems();
    SpanData vllm = span(spans, "scrape vllm");
    assertThat(vllm)
        .hasAttribute(ScrapeTelemetry.OUTCOME, "malformed")
        .hasAttribute(ScrapeTelemetry.ERROR_TYPE, "malformed")
        .hasAttribute(ScrapeTelemetry.HTTP_RESPONSE_STATUS_CODE, 200L)
        .hasStatusSatisfying(s -> s.hasCode(StatusCode.ERROR)
            .hasDescription("malformed exposition: line 2: bad"));
    SpanData cycle = span(spans, "scrape cycle");
    assertThat(cycle).hasAttribute(ScrapeTelemetry.CYCLE_FAILURES, 1L);
    // Each target's span lies within the cycle's, on the scraper's one clock.
    for (SpanData child : List.of(vllm, span(spans, "scrape sglang"))) {
      assertThat(child.getStartEpochNanos()).isBetween(cycle.getStartEpochNanos(),
          child.getEndEpochNanos());
      assertThat(child.getEndEpochNanos()).isLessThanOrEqualTo(cycle.getEndEpochNanos());
    }
  }

  @Test
  void scrapeAll_traces_aCycleSpanWithAChildPerTarget() {
    List<ScrapeResult> results = scrape(Endpoint.of("vllm", server.uri("/metrics")),
        Endpoint.of("sglang", server.uri("/missing")));

    List<SpanData> spans = spanExporter.getFinishedSpanItems();
    assertThat(spans).hasSize(3);
    SpanData cycle = span(spans, "scrape cycle");
    assertThat(cycle)
        .hasKind(SpanKind.INTERNAL)
        .hasNoParent()
        .hasAttributesSatisfyingExactly(
            equalTo(ScrapeTelemetry.CYCLE_TARGETS, 2L),
            equalTo(ScrapeTelemetry.CYCLE_FAILURES, 1L))
        .hasStatusSatisfying(
            s -> s.hasCode(StatusCode.ERROR).hasDescription("1 of 2 scrapes failed"));
    assertThat(span(spans, "scrape vllm"))
        .hasKind(SpanKind.CLIENT)
        .hasParent(cycle)
        .hasAttributesSatisfyingExactly(
            equalTo(ScrapeTelemetry.SERVER, "vllm"),
            equalTo(ScrapeTelemetry.OUTCOME, "success"),
            equalTo(ScrapeTelemetry.HTTP_REQUEST_METHOD, "GET"),
            equalTo(ScrapeTelemetry.URL_FULL, server.uri("/metrics").toString()),
            equalTo(ScrapeTelemetry.SERVER_ADDRESS, "127.0.0.1"),
            equalTo(ScrapeTelemetry.SERVER_PORT, (long) server.port()),
            equalTo(ScrapeTelemetry.HTTP_RESPONSE_STATUS_CODE, 200L),
            equalTo(ScrapeTelemetry.HTTP_RESPONSE_BODY_SIZE, (long) EXPOSITION.length()),
            equalTo(ScrapeTelemetry.SCRAPE_SIZE, (long) EXPOSITION.length()))
        .hasStatusSatisfying(s -> s.hasCode(StatusCode.UNSET));
    assertThat(span(spans, "scrape sglang"))
        .hasParent(cycle)
        .hasAttribute(ScrapeTelemetry.HTTP_RESPONSE_STATUS_CODE, 404L)
        .hasAttribute(ScrapeTelemetry.OUTCOME, "http_error")
        .hasAttribute(ScrapeTelemetry.ERROR_TYPE, "http_error")
        .hasStatusSatisfying(
            s -> s.hasCode(StatusCode.ERROR).hasDescription(results.get(1).error()));
  }

  @Test
  void scrapeAll_gzip_spanShowsBytesOnTheWireAndMetricTheInflatedSize() {
    scrape(Endpoint.of("tgi", server.uri("/gzip")));

    SpanData span = span(spanExporter.getFinishedSpanItems(), "scrape tgi");
    long wire = span.getAttributes().get(ScrapeTelemetry.HTTP_RESPONSE_BODY_SIZE);
    assertThat(span.getAttributes().get(ScrapeTelemetry.SCRAPE_SIZE))
        .isEqualTo(EXPOSITION.length() * 100L);
    assertThat(wire).isPositive().isLessThan(EXPOSITION.length() * 100L / 10);
  }

  @Test
  void scrapeAll_targetThatNeverStarted_stillHasASpanAndACount() {
    // A missing token file fails before any request: still counted and traced.
    scrape(new Endpoint("odd", server.uri("/gzip"), java.util.Map.of(), "/nonexistent/gputop-token",
        dev.gputop.config.TlsConfig.defaults()));

    assertThat(span(spanExporter.getFinishedSpanItems(), "scrape odd"))
        .hasAttribute(ScrapeTelemetry.OUTCOME, "io_error")
        .hasStatusSatisfying(s -> s.hasCode(StatusCode.ERROR));
    assertThat(metric(metricReader.collectAllMetrics(), "gputop.scrape.count"))
        .hasLongSumSatisfying(sum -> sum.hasPointsSatisfying(p -> p.hasAttributes(
            Attributes.of(ScrapeTelemetry.SERVER, "odd", ScrapeTelemetry.OUTCOME, "io_error"))
            .hasValue(1)));
  }

  @Test
  void redactedUrl_removesCredentialsAndSecretQueryValues() {
    assertThat(ScrapeTelemetry.redactedUrl(URI.create(
        "https://admin:hunter2@10.0.0.5:8443/metrics?model=llama&access_token=abc&apiKey=k#frag")))
        .isEqualTo("https://REDACTED:REDACTED@10.0.0.5:8443/metrics"
            + "?model=llama&access_token=REDACTED&apiKey=REDACTED");
    assertThat(ScrapeTelemetry.redactedUrl(URI.create("http://127.0.0.1:8000/metrics")))
        .isEqualTo("http://127.0.0.1:8000/metrics");
  }

  private List<ScrapeResult> scrape(Endpoint... targets) {
    try (HttpScraper scraper = new HttpScraper(CONFIG, Clock.system(), sdk)) {
      return scraper.scrapeAll(List.of(targets));
    }
  }

  private static MetricData metric(Collection<MetricData> metrics, String name) {
    return metrics.stream().filter(m -> m.getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no metric " + name + " in " + metrics));
  }

  private static SpanData span(List<SpanData> spans, String name) {
    return spans.stream().filter(s -> s.getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no span " + name + " in " + spans));
  }
}
