package dev.gputop.inference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.DiscoveryConfig;
import dev.gputop.config.Endpoint;
import dev.gputop.config.InferenceConfig;
import dev.gputop.config.ScrapeConfig;
import dev.gputop.config.services.ProcessOwnerLookup;
import dev.gputop.inference.export.ServerEntry;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.Receiver;
import dev.gputop.inference.export.ServerState;
import dev.gputop.testing.ManualClock;
import dev.gputop.testing.TestReceiverContext;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The provider's receiver with the real HttpScraper against a loopback HTTP server serving the
 * fixtures, and a closed port for a configured endpoint that can't be scraped.
 */
class InferenceReceiverSocketTest {

  private HttpServer server;
  private final AtomicReference<String> body = new AtomicReference<>();
  private final ManualClock clock = new ManualClock();

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/metrics", ex -> ok(ex, "text/plain; version=0.0.4", body.get()));
    server.createContext("/login",
        ex -> ok(ex, "text/html", "<!DOCTYPE html><html><body>Sign in</body></html>"));
    server.start();
  }

  private static void ok(HttpExchange ex, String contentType, String text) throws IOException {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", contentType);
    ex.sendResponseHeaders(200, b.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(b);
    }
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  /**
   * The provider's context for these endpoints: discovery off, a 2 s scrape timeout, a 3 s
   * refresh, no listener.
   */
  private TestReceiverContext context(Endpoint... endpoints) {
    InferenceConfig inference = InferenceConfig.builder().window(Duration.ofMinutes(1))
        .discovery(new DiscoveryConfig(false, DiscoveryConfig.Scope.GPU, "/proc"))
        .endpoints(List.of(endpoints))
        .scrape(ScrapeConfig.builder().timeout(Duration.ofSeconds(2)).maxBodyBytes(1 << 20).maxLineLength(64 << 10)
            .maxSeries(200_000).maxLabels(64).concurrency(4).build())
        .build();
    AgentConfig config = AgentConfig.builder().refreshNormal(Duration.ofSeconds(3)).listen("off").inference(inference)
        .build();
    return new TestReceiverContext(config, clock);
  }

  @Test
  void create_scrapesARealEndpointAndReportsAClosedPort() throws Exception {
    int port = server.getAddress().getPort();
    int closedPort;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    TestReceiverContext context = context(
        InferenceReceiverTest.endpoint("tgi", "http://127.0.0.1:" + port + "/metrics"),
        InferenceReceiverTest.endpoint("gone", "http://127.0.0.1:" + closedPort + "/metrics"));
    try (Receiver r = new InferenceReceiverProvider().create(context)) {
      assertThat(context.lookup(ProcessOwnerLookup.class)).isSameAs(r);
      body.set(InferenceReceiverTest.fixture("tgi", "tgi-v3", 0));
      r.refresh();
      clock.advanceSeconds(10);
      body.set(InferenceReceiverTest.fixture("tgi", "tgi-v3", 1));
      r.refresh();
      List<ServerEntry> servers = ((InferenceReceiver) r).snapshot().servers();
      assertThat(r.contribution().servers()).isEqualTo(servers);
      ServerEntry tgi = servers.get(0);
      assertThat(tgi.engine()).isEqualTo("tgi");
      assertThat(tgi.state()).isEqualTo(ServerState.UP);
      assertThat(tgi.stats().requestsPerSecond()).isCloseTo(5.0, within(1e-9));
      assertThat(tgi.stats().ttft()).isNull();
      ServerEntry gone = servers.get(1);
      assertThat(gone.state()).isEqualTo(ServerState.DOWN);
      assertThat(gone.error()).isNotBlank();
      assertThat(r.health().state()).isEqualTo(HealthStatus.State.UNHEALTHY);
      assertThat(r.health().reasons()).singleElement().asString().contains("gone");
    }
  }

  @Test
  void anHtmlPageWhereMetricsShouldBe_isAFailedScrape_inStateHealthAlertsAndUp() throws Exception {
    int port = server.getAddress().getPort();
    TestReceiverContext context =
        context(InferenceReceiverTest.endpoint("behind-sso", "http://127.0.0.1:" + port + "/login"));
    try (InferenceReceiver r = (InferenceReceiver) new InferenceReceiverProvider().create(context)) {
      r.refresh();
      ServerEntry e = r.snapshot().servers().get(0);
      assertThat(e.state()).isEqualTo(ServerState.DOWN);
      assertThat(e.error()).startsWith("the body is an HTML or XML page (Content-Type text/html), not a metrics exposition");
      assertThat(r.health().state()).isEqualTo(HealthStatus.State.UNHEALTHY);
      assertThat(r.snapshot().alerts()).extracting(dev.gputop.receiver.Alert::name)
          .containsExactly("inference_unhealthy");
      assertThat(r.snapshot().up().values()).containsExactly(0L);
    }
  }
}
