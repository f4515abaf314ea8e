package dev.gputop.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.agent.http.AgentHttpServer;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigLoader;
import dev.gputop.receiver.Clock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code export} health component in {@code /healthz} and the snapshot. */
class ExportHealthTest {

  private static final AgentConfig CONFIG =
      new ConfigLoader().parse("listen: 127.0.0.1:0\n", Map.of());

  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void healthz_noOtlpEndpoint_exportIsUnavailableAndTheAgentHealthy() throws Exception {
    StandaloneSdk sdk = StandaloneSdk.create(false, null, new ExportMonitor(Clock.system(), Duration.ofMinutes(1)),
        Map.of("otel.metrics.exporter", "none"));
    try (AgentRuntime runtime = runtime(sdk);
        AgentHttpServer server = AgentHttpServer.start(CONFIG.listen(), runtime, null)) {
      HttpResponse<String> r = get(server, "/healthz");

      assertThat(r.statusCode()).isEqualTo(200);
      JsonNode export = json.readTree(r.body()).get("health").get("export");
      assertThat(export.get("state").asText()).isEqualTo("unavailable");
      assertThat(export.get("reasons").get(0).asText())
          .isEqualTo("no OTLP exporter configured (OTEL_EXPORTER_OTLP_ENDPOINT is not set)");
      assertThat(runtime.snapshot().get("health").get("export").get("state").asText()).isEqualTo("unavailable");
    } finally {
      sdk.shutdown(Duration.ofSeconds(2));
    }
  }

  @Test
  void healthz_backendRefusing_exportIsUnhealthyWithTheReason() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    ExportMonitor monitor = new ExportMonitor(Clock.system(), Duration.ofMinutes(1));
    StandaloneSdk sdk = StandaloneSdk.create(false, null, monitor, Map.of(
        "otel.metrics.exporter", "otlp",
        "otel.exporter.otlp.endpoint", "http://127.0.0.1:" + port,
        "otel.metric.export.interval", "100",
        "otel.java.exporter.otlp.retry.disabled", "true"));
    try (AgentRuntime runtime = runtime(sdk);
        AgentHttpServer server = AgentHttpServer.start(CONFIG.listen(), runtime, null)) {
      sdk.openTelemetry().getMeter("test").counterBuilder("test.work").build().add(1);
      long limit = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (monitor.failedExports() == 0 && System.nanoTime() < limit) {
        Thread.sleep(20);
      }
      HttpResponse<String> r = get(server, "/healthz");

      assertThat(r.statusCode()).isEqualTo(503);
      JsonNode doc = json.readTree(r.body());
      assertThat(doc.get("health").get("export").get("state").asText()).isEqualTo("unhealthy");
      assertThat(doc.get("reasons").get(0).asText()).startsWith("export: OTLP export to http://127.0.0.1:"
          + port + " (http/protobuf) failing for ");
    } finally {
      sdk.shutdown(Duration.ofSeconds(2));
    }
  }

  private static AgentRuntime runtime(StandaloneSdk sdk) {
    AgentRuntime runtime = AgentRuntime.builder(CONFIG).setOpenTelemetry(sdk.openTelemetry())
        .setProviders(List.of()).addHealthComponent("export", sdk.exports()::health).build();
    runtime.start();
    return runtime;
  }

  private HttpResponse<String> get(AgentHttpServer server, String path) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
