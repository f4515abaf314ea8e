package dev.gputop.inference;

import static io.opentelemetry.sdk.testing.assertj.OpenTelemetryAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.gputop.config.Endpoint;
import dev.gputop.config.InferenceConfig;
import dev.gputop.config.ScrapeConfig;
import dev.gputop.config.TlsConfig;
import dev.gputop.inference.export.ServerEntry;
import dev.gputop.inference.export.ServerState;
import dev.gputop.inference.scrape.HttpScraper;
import dev.gputop.receiver.Clock;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A body that starts like an exposition but fails the parser, over a real socket through the real
 * scraper and receiver: the server is down with the parser's message, and the scrape counts as
 * {@code malformed} in the scraper's own metrics, not as {@code success} (docs/scraping.md).
 */
class InferenceReceiverMalformedTest {

  private static final String GOOD = "# TYPE vllm:num_requests_running gauge\n"
      + "vllm:num_requests_running{model_name=\"m\"} 3\n";
  /** Sniffs as an exposition (a comment, then a metric name); line 3 has an unclosed label set. */
  private static final String BROKEN = GOOD + "vllm:num_requests_waiting{model_name=\"m\" 1\n";

  private static final AttributeKey<String> SERVER = AttributeKey.stringKey("server");
  private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");

  private final InMemoryMetricReader metricReader = InMemoryMetricReader.create();
  private final AtomicReference<String> body = new AtomicReference<>(BROKEN);
  private OpenTelemetrySdk sdk;
  private HttpServer server;

  @BeforeEach
  void setUp() throws Exception {
    sdk = OpenTelemetrySdk.builder()
        .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metricReader).build())
        .build();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/metrics", exchange -> {
      byte[] bytes = body.get().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
      exchange.sendResponseHeaders(200, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    });
    server.start();
  }

  @AfterEach
  void tearDown() {
    server.stop(0);
    sdk.close();
  }

  @Test
  void bodyThatFailsTheParser_isMalformedInTheScrapeCounters_andTheServerIsDown() {
    Endpoint vllm = new Endpoint("vllm", URI.create("http://127.0.0.1:"
        + server.getAddress().getPort() + "/metrics"), Map.of(), null, TlsConfig.defaults());
    InferenceConfig config = InferenceConfig.builder().window(Duration.ofMinutes(1)).endpoints(List.of(vllm)).build();
    try (HttpScraper scraper = new HttpScraper(ScrapeConfig.defaults(), Clock.system(), sdk);
        InferenceReceiver receiver = new InferenceReceiver(
            config, Duration.ofSeconds(3), scraper, null, Clock.system(), sdk)) {
      receiver.refresh();

      ServerEntry down = receiver.snapshot().servers().get(0);
      assertThat(down.state()).isEqualTo(ServerState.DOWN);
      assertThat(down.error()).startsWith("malformed exposition: line 3: ");
      assertThat(count(metricReader.collectAllMetrics(), "malformed")).isEqualTo(1);

      // The same server mended: the next scrape is a success, the malformed one stays counted.
      body.set(GOOD);
      receiver.refresh();

      assertThat(receiver.snapshot().servers().get(0).state()).isNotEqualTo(ServerState.DOWN);
      List<MetricData> metrics = List.copyOf(metricReader.collectAllMetrics());
      assertThat(count(metrics, "malformed")).isEqualTo(1);
      assertThat(count(metrics, "success")).isEqualTo(1);
      assertThat(metric(metrics, "gputop.scrape.duration"))
          .hasHistogramSatisfying(h -> h.hasPointsSatisfying(
              p -> p.hasAttributes(Attributes.of(SERVER, "vllm", OUTCOME, "malformed"))
                  .hasCount(1),
              p -> p.hasAttributes(Attributes.of(SERVER, "vllm", OUTCOME, "success"))
                  .hasCount(1)));
    }
  }

  /** The value of {@code gputop.scrape.count} for server vllm and this outcome, 0 when absent. */
  private static long count(java.util.Collection<MetricData> metrics, String outcome) {
    Attributes attributes = Attributes.of(SERVER, "vllm", OUTCOME, outcome);
    return metric(metrics, "gputop.scrape.count").getLongSumData().getPoints().stream()
        .filter(p -> p.getAttributes().equals(attributes))
        .mapToLong(p -> p.getValue()).sum();
  }

  private static MetricData metric(java.util.Collection<MetricData> metrics, String name) {
    return metrics.stream().filter(m -> m.getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no metric " + name + " in " + metrics));
  }
}
