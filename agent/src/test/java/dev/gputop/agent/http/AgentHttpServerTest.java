package dev.gputop.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.agent.MapEntries;
import dev.gputop.agent.FakeProvider;
import dev.gputop.agent.FakeReceiver;
import dev.gputop.agent.SnapshotSchema;
import dev.gputop.agent.prometheus.ExpositionReader;
import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.agent.runtime.AgentRuntimeTest;
import dev.gputop.agent.runtime.ExportedHistogramProducer;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigLoader;
import dev.gputop.config.PodIdentity;
import dev.gputop.receiver.ExportedHistogram;
import dev.gputop.receiver.HealthStatus;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AgentHttpServerTest {

  private static final AgentConfig CONFIG =
      new ConfigLoader().parse("refresh:\n  normal: 50ms\nlisten: 127.0.0.1:0\n", Map.of());

  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  private final FakeReceiver inference = new FakeReceiver("inference");
  private final ExportedHistogramProducer histograms = new ExportedHistogramProducer();
  private ExpositionReader prometheus;
  private OpenTelemetrySdk sdk;
  private AgentRuntime runtime;
  private AgentHttpServer server;

  @BeforeEach
  void start() throws Exception {
    prometheus = new ExpositionReader();
    sdk = OpenTelemetrySdk.builder()
        .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(prometheus)
            .registerMetricProducer(histograms).build())
        .build();
    inference.contribution.set(MapEntries.servers(List.of(AgentRuntimeTest.server("chat", "vllm"))));
    FakeProvider provider = new FakeProvider("inference", 200, true, ctx -> {
      // Registered the way the inference receiver does: a callback reading published state.
      ctx.openTelemetry().getMeter("test").gaugeBuilder("gputop.inference.requests.waiting")
          .setUnit("{request}")
          .buildWithCallback(m -> m.record(3, Attributes.builder()
              .put("server", "chat").put("engine", "vllm").build()));
      ctx.openTelemetry().getMeter("test").gaugeBuilder("gputop.inference.ttft").setUnit("s")
          .buildWithCallback(m -> m.record(0.25, Attributes.builder()
              .put("server", "chat").put("engine", "vllm").put("quantile", "0.99").build()));
      return inference;
    });
    runtime = AgentRuntime.builder(CONFIG).setOpenTelemetry(sdk).setProviders(List.of(provider))
        .setHistogramProducer(histograms).build();
    server = AgentHttpServer.start(CONFIG.listen(), runtime, prometheus);
    runtime.start();
    assertThat(runtime.awaitFirstRefresh(Duration.ofSeconds(5))).isTrue();
  }

  @AfterEach
  void stop() {
    server.close();
    runtime.close();
    sdk.close();
  }

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(Duration.ofSeconds(5));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void metrics_servesPrometheusTextOfTheSameInstruments() throws Exception {
    HttpResponse<String> r = get("/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain; version=0.0.4");
    assertThat(r.body())
        .contains("# TYPE gputop_inference_requests_waiting gauge\n")
        .contains("gputop_inference_requests_waiting{engine=\"vllm\",server=\"chat\"} 3.0\n")
        .contains("gputop_inference_ttft_seconds{engine=\"vllm\",quantile=\"0.99\",server=\"chat\"} 0.25\n")
        .doesNotContain("otel_scope_name");
  }

  @Test
  void metrics_histogramOfAServerInAPodHasThePodLabels() throws Exception {
    PodIdentity pod = new PodIdentity("llm", "chat-7f9c", "vllm", "4415fd05-2c0f-4533-909b-f2180dca8d7c");
    io.opentelemetry.api.common.Attributes attributes = pod.addTo(
        io.opentelemetry.api.common.Attributes.builder().put("server", "chat").put("engine", "vllm")).build();
    inference.histograms.set(List.of(new ExportedHistogram("gen_ai.server.time_to_first_token",
        "Time to generate first token for successful responses.", "s", attributes,
        1_700_000_000_000_000_000L, 1_700_000_030_000_000_000L, new double[] {0.1, 1.0}, new long[] {3, 1, 0}, 0.5)));

    String body = get("/metrics").body();
    assertThat(body)
        .contains("gen_ai_server_time_to_first_token_seconds_bucket{engine=\"vllm\",container=\"vllm\","
            + "namespace=\"llm\",pod=\"chat-7f9c\",k8s_pod_uid=\"4415fd05-2c0f-4533-909b-f2180dca8d7c\","
            + "server=\"chat\",le=\"0.1\"} 3\n")
        .contains("gen_ai_server_time_to_first_token_seconds_count{engine=\"vllm\",container=\"vllm\","
            + "namespace=\"llm\",pod=\"chat-7f9c\",k8s_pod_uid=\"4415fd05-2c0f-4533-909b-f2180dca8d7c\","
            + "server=\"chat\"} 4\n")
        .doesNotContain("k8s_pod_name", "k8s_namespace_name", "k8s_container_name");
  }

  @Test
  void metrics_servesOpenMetricsWhenAskedFor() throws Exception {
    HttpResponse<String> r = get("/metrics", "Accept", "application/openmetrics-text; version=1.0.0");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/openmetrics-text");
    assertThat(r.body()).endsWith("# EOF\n");
  }

  @Test
  void snapshot_servesTheSchemaValidDocument() throws Exception {
    HttpResponse<String> r = get("/api/snapshot");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    JsonNode doc = json.readTree(r.body());
    assertThat(doc.get("inference").get(0).get("name").asText()).isEqualTo("chat");
    assertThat(SnapshotSchema.errors(doc)).isEmpty();
    assertThat(get("/api/snapshot?pretty").body()).contains("\n  \"gpus\"");
  }

  @Test
  void healthz_is200WhenNothingIsUnhealthyAnd503WithTheReasonsOtherwise() throws Exception {
    HttpResponse<String> ok = get("/healthz");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(json.readTree(ok.body()).get("status").asText()).isEqualTo("ok");
    // nvml is unavailable (absent), which is not a failure: the agent runs on without a GPU.
    assertThat(json.readTree(ok.body()).get("health").get("nvml").get("state").asText()).isEqualTo("unavailable");

    inference.health.set(HealthStatus.unhealthy(List.of("endpoint chat: connection refused")));
    HttpResponse<String> bad = get("/healthz");
    assertThat(bad.statusCode()).isEqualTo(503);
    JsonNode body = json.readTree(bad.body());
    assertThat(body.get("status").asText()).isEqualTo("unhealthy");
    assertThat(body.get("reasons").get(0).asText()).isEqualTo("inference: endpoint chat: connection refused");
  }

  @Test
  void livezStays200WhileReadyzAndHealthzAre503WithTheReasons() throws Exception {
    assertThat(get("/livez").statusCode()).isEqualTo(200);
    assertThat(json.readTree(get("/livez").body()).get("status").asText()).isEqualTo("ok");
    assertThat(get("/readyz").statusCode()).isEqualTo(200);

    inference.health.set(HealthStatus.unhealthy(List.of("endpoint chat: connection refused")));
    HttpResponse<String> live = get("/livez");
    assertThat(live.statusCode()).isEqualTo(200);
    assertThat(live.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    HttpResponse<String> ready = get("/readyz");
    assertThat(ready.statusCode()).isEqualTo(503);
    assertThat(json.readTree(ready.body()).get("reasons").get(0).asText()).isEqualTo("inference: endpoint chat: connection refused");
    assertThat(ready.body()).isEqualTo(get("/healthz").body());
  }

  @Test
  void history_servesTheRecordedPointsOfAServerAndTheIndex() throws Exception {
    runtime.recordHistory();
    runtime.recordHistory();
    HttpResponse<String> r = get("/api/history?server=chat");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    JsonNode doc = json.readTree(r.body());
    assertThat(SnapshotSchema.historyErrors(doc)).isEmpty();
    assertThat(doc.get("server").asText()).isEqualTo("chat");
    assertThat(doc.get("times").size()).isGreaterThanOrEqualTo(2);
    assertThat(doc.get("series").get("waiting").get(0).asDouble()).isEqualTo(3.0);
    assertThat(doc.get("series").get("ttftP99").get(0).asDouble()).isEqualTo(0.4);
    assertThat(doc.get("intervalSeconds").asDouble()).isEqualTo(0.5); // 50 ms refresh, recorded every 500 ms

    JsonNode index = json.readTree(get("/api/history").body());
    assertThat(SnapshotSchema.historyErrors(index)).isEmpty();
    assertThat(index.get("servers").get(0).asText()).isEqualTo("chat");

    HttpResponse<String> unknown = get("/api/history?server=no%20such");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(json.readTree(unknown.body()).get("error").asText()).contains("no such").contains("chat");
    assertThat(get("/api/history?gpu=3").statusCode()).isEqualTo(404);
  }

  @Test
  void root_servesThePageAndItsAssetsFromTheJar() throws Exception {
    HttpResponse<String> page = get("/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    assertThat(page.body()).contains("<script src=\"assets/uPlot.iife.min.js\">").contains("assets/app.js");
    HttpResponse<String> uplot = get("/assets/uPlot.iife.min.js");
    assertThat(uplot.statusCode()).isEqualTo(200);
    assertThat(uplot.headers().firstValue("Content-Type").orElse("")).startsWith("text/javascript");
    assertThat(uplot.body()).contains("uPlot");
    assertThat(get("/assets/uPlot.min.css").body()).contains(".uplot");
    assertThat(get("/assets/app.js").body()).contains("api/snapshot").contains("api/history");
    assertThat(get("/assets/app.css").statusCode()).isEqualTo(200);
    assertThat(get("/assets/nope.js").statusCode()).isEqualTo(404);
  }

  @Test
  void otherPathsAndMethods_are404And405() throws Exception {
    assertThat(get("/nope").statusCode()).isEqualTo(404);
    HttpResponse<String> post = http.send(
        HttpRequest.newBuilder(URI.create(server.url() + "/metrics"))
            .POST(HttpRequest.BodyPublishers.ofString("x")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
  }

  @Test
  void everyResponse_carriesTheSecurityHeaders_andTheApiIsNotCached() throws Exception {
    List<HttpResponse<String>> responses = new java.util.ArrayList<>();
    for (String path : List.of("/", "/assets/app.js", "/assets/uPlot.min.css", "/metrics", "/api/snapshot",
        "/api/history", "/api/history?server=nope", "/healthz", "/nope")) {
      responses.add(get(path));
    }
    responses.add(http.send(HttpRequest.newBuilder(URI.create(server.url() + "/metrics"))
        .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString()));
    for (HttpResponse<String> r : responses) {
      assertThat(r.headers().firstValue("Content-Security-Policy")).as(r.uri() + " " + r.statusCode())
          .hasValue("default-src 'self'; frame-ancestors 'none'");
      assertThat(r.headers().firstValue("X-Content-Type-Options")).as(r.uri().toString()).hasValue("nosniff");
      assertThat(r.headers().firstValue("X-Frame-Options")).as(r.uri().toString()).hasValue("DENY");
      assertThat(r.headers().firstValue("Referrer-Policy")).as(r.uri().toString()).hasValue("no-referrer");
      if (r.uri().getPath().startsWith("/api/")) {
        assertThat(r.headers().firstValue("Cache-Control")).as(r.uri().toString()).hasValue("no-store");
      }
    }
    // Jetty's own answer to a malformed request carries them too.
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
      s.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n".getBytes());
      s.setSoTimeout(5000);
      String answer = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
      assertThat(answer).startsWith("HTTP/1.1 400").contains("Content-Security-Policy: default-src 'self'; frame-ancestors 'none'")
          .contains("X-Frame-Options: DENY");
    }
  }

  @Test
  void start_portInUseIsAnIoError() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      String listen = "127.0.0.1:" + taken.getLocalPort();
      assertThatThrownBy(() -> AgentHttpServer.start(listen, runtime, prometheus))
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining(listen);
    }
  }
}
