package dev.gputop.inference.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.config.DiscoveryConfig;
import dev.gputop.config.DiscoveryConfig.Scope;
import dev.gputop.testing.ManualClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery of TensorRT-LLM, Triton, Dynamo, LMDeploy and TEI against real processes on this
 * host's /proc: child processes whose command lines look like each engine's (docs/engines/*.md,
 * "Discovery"), serving a small exposition on the port and path their flags name.
 */
@EnabledOnOs(OS.LINUX)
@Timeout(120)
class ProcessDiscoveryNewEnginesTest {

  @TempDir Path tmp;
  FakeEngines engines;
  final ManualClock clock = new ManualClock(1_000_000_000L, 1_700_000_001_000_000_000L);
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeEach
  void setUp() throws Exception {
    Assumptions.assumeTrue(FakeEngines.pythonAvailable(), "python3 is needed to run fake engines");
    engines = new FakeEngines(tmp);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (engines != null) {
      engines.close();
    }
  }

  private DiscoveryResult discover() {
    return new ProcessDiscovery(new DiscoveryConfig(true, Scope.ALL, "/proc"), Path.of("/proc"), FakeGpus::new, null, clock)
        .discover();
  }

  /** The server whose process tree is rooted at {@code p} (other tests on this host may run servers too). */
  private static DiscoveredServer serverOf(DiscoveryResult r, Process p) {
    List<DiscoveredServer> mine = r.servers().stream().filter(s -> s.pids().contains(p.pid())).toList();
    assertThat(mine).as("servers containing pid %d in %s", p.pid(), r).hasSize(1);
    return mine.get(0);
  }

  private String get(URI url) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  @Test
  void discover_trtllmServe_urlIsPrometheusMetricsOnItsPort() throws Exception {
    int port = FakeEngines.freePort();
    Process p = engines.run("trtllm-serve", "serve", "/models/llama", "--host", "127.0.0.1", "--port",
        Integer.toString(port), "--backend", "pytorch");
    FakeEngines.awaitPort(port);

    DiscoveredServer s = serverOf(discover(), p);

    assertThat(s.engine()).isEqualTo("trtllm");
    assertThat(s.name()).isEqualTo("trtllm-" + port);
    // Its /metrics is JSON iteration stats; the text format is on /prometheus/metrics.
    assertThat(s.url()).hasToString("http://127.0.0.1:" + port + "/prometheus/metrics");
    assertThat(get(s.url())).contains("trtllm_num_active_requests");
  }

  @Test
  void discover_tritonserver_urlIsTheMetricsPortNotTheHttpPort() throws Exception {
    int http = FakeEngines.freePort();
    int metrics = FakeEngines.freePort();
    Process p = engines.run("tritonserver", "--model-repository", "/models", "--http-port", Integer.toString(http),
        "--metrics-port", Integer.toString(metrics));
    FakeEngines.awaitPort(metrics);

    DiscoveredServer s = serverOf(discover(), p);

    assertThat(s.engine()).isEqualTo("triton");
    assertThat(s.name()).isEqualTo("triton-" + metrics);
    assertThat(s.url()).hasToString("http://127.0.0.1:" + metrics + "/metrics");
    assertThat(get(s.url())).contains("nv_trt_llm_request_metrics");
  }

  @Test
  void discover_dynamoFrontendModule_portFromHttpPortFlag() throws Exception {
    int port = FakeEngines.freePort();
    Process p = engines.module("dynamo.frontend", "--http-port", Integer.toString(port));
    FakeEngines.awaitPort(port);

    DiscoveredServer s = serverOf(discover(), p);

    assertThat(s.engine()).isEqualTo("dynamo");
    assertThat(s.url()).hasToString("http://127.0.0.1:" + port + "/metrics");
    assertThat(s.command()).contains("-m dynamo.frontend");
    assertThat(get(s.url())).contains("dynamo_frontend_requests_total");
  }

  @Test
  void discover_dynamoFrontendModule_portFromDynHttpPortEnvironment() throws Exception {
    int port = FakeEngines.freePort();
    Process p = engines.module(Map.of("DYN_HTTP_PORT", Integer.toString(port)), "dynamo.frontend");
    FakeEngines.awaitPort(port);

    DiscoveredServer s = serverOf(discover(), p);

    assertThat(s.engine()).isEqualTo("dynamo");
    assertThat(s.url()).hasToString("http://127.0.0.1:" + port + "/metrics");
    assertThat(s.how()).contains("$DYN_HTTP_PORT=" + port);
  }

  @Test
  void discover_lmdeployServeApiServer_portFromServerPort() throws Exception {
    int port = FakeEngines.freePort();
    Process p = engines.run("lmdeploy", "serve", "api_server", "internlm/internlm3-8b-instruct", "--server-name",
        "127.0.0.1", "--server-port", Integer.toString(port));
    FakeEngines.awaitPort(port);

    DiscoveredServer s = serverOf(discover(), p);

    assertThat(s.engine()).isEqualTo("lmdeploy");
    assertThat(s.name()).isEqualTo("lmdeploy-" + port);
    assertThat(s.url()).hasToString("http://127.0.0.1:" + port + "/metrics");
    assertThat(get(s.url())).contains("lmdeploy:num_requests_running");
  }

  @Test
  void discover_lmdeployOtherSubcommands_areNotServers() throws Exception {
    int port = FakeEngines.freePort();
    // `lmdeploy serve proxy` routes to api_servers and has no engine metrics of its own.
    Process proxy = engines.run("lmdeploy", "serve", "proxy", "--server-port", Integer.toString(port));
    FakeEngines.awaitPort(port);

    DiscoveryResult r = discover();

    assertThat(r.servers().stream().filter(s -> s.pids().contains(proxy.pid()))).isEmpty();
  }

  @Test
  void discover_textEmbeddingsRouter_prometheusPortBeforeMainPort() throws Exception {
    int port = FakeEngines.freePort();
    int prom = FakeEngines.freePort();
    Process p = engines.run("text-embeddings-router", "--model-id", "BAAI/bge-large-en-v1.5", "--port",
        Integer.toString(port), "--prometheus-port", Integer.toString(prom));
    FakeEngines.awaitPort(prom);

    DiscoveredServer s = serverOf(discover(), p);

    assertThat(s.engine()).isEqualTo("tei");
    assertThat(s.name()).isEqualTo("tei-" + prom);
    assertThat(s.url()).hasToString("http://127.0.0.1:" + prom + "/metrics");
    assertThat(get(s.url())).contains("te_request_success");
  }
}
