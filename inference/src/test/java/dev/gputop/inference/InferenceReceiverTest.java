package dev.gputop.inference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.config.Endpoint;
import dev.gputop.config.InferenceConfig;
import dev.gputop.config.TlsConfig;
import dev.gputop.inference.discovery.DiscoveredServer;
import dev.gputop.inference.discovery.DiscoveryResult;
import dev.gputop.inference.discovery.ServerDiscovery;
import dev.gputop.inference.discovery.SkippedProcess;
import dev.gputop.inference.export.ServerEntry;
import dev.gputop.inference.export.ServerSource;
import dev.gputop.inference.export.ServerState;
import dev.gputop.inference.scrape.ScrapeResult;
import dev.gputop.inference.scrape.Scraper;
import dev.gputop.inference.testing.TextExpositions;
import dev.gputop.receiver.Alert;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.ExportedHistogram;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.ReceiverProvider;
import dev.gputop.testing.ManualClock;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.testing.assertj.OpenTelemetryAssertions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The receiver end to end over a hand-written scraper and discovery, driven by a manual clock. */
class InferenceReceiverTest {

  private final ManualClock clock = new ManualClock();
  private final FakeScraper scraper = new FakeScraper(clock);
  private final FakeDiscovery discovery = new FakeDiscovery();

  private InferenceReceiver receiver(Endpoint... endpoints) {
    InferenceConfig config = InferenceConfig.builder().window(Duration.ofMinutes(1)).endpoints(List.of(endpoints))
        .build();
    return new InferenceReceiver(config, Duration.ofSeconds(3), scraper, discovery, clock, OpenTelemetry.noop());
  }

  static Endpoint endpoint(String name, String url) {
    return new Endpoint(name, URI.create(url), Map.of(), null, TlsConfig.defaults());
  }

  static String fixture(String engine, String name, int t) {
    return TextExpositions.resource("/fixtures/" + engine + "/" + name + "-t" + t + ".prom");
  }

  private static ServerEntry server(InferenceReceiver r, String name) {
    for (ServerEntry e : r.snapshot().servers()) {
      if (e.name().equals(name)) {
        return e;
      }
    }
    return null;
  }

  @Test
  void refresh_configuredVllmGoesFromStartingToUpWithWindowedValues() {
    try (InferenceReceiver r = receiver(endpoint("chat-api", "http://10.0.0.5:8000/metrics"))) {
      scraper.bodies.put("http://10.0.0.5:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 0));
      r.refresh();
      ServerEntry first = server(r, "chat-api");
      assertThat(first.engine()).isEqualTo("vllm");
      assertThat(first.source()).isEqualTo(ServerSource.CONFIGURED);
      assertThat(first.state()).isEqualTo(ServerState.STARTING);
      assertThat(first.stats().running()).isEqualTo(1);
      assertThat(first.stats().requestsPerSecond()).isNull();
      // Exported but not computable yet: the object is there, every field null.
      assertThat(first.stats().ttft()).isEqualTo(new dev.gputop.inference.stats.LatencyStats(null, null, null, null, null));

      clock.advanceSeconds(10);
      scraper.bodies.put("http://10.0.0.5:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 1));
      r.refresh();
      ServerEntry e = server(r, "chat-api");
      assertThat(e.state()).isEqualTo(ServerState.UP);
      assertThat(e.error()).isNull();
      assertThat(e.stats().running()).isEqualTo(5);
      assertThat(e.stats().requestsPerSecond()).isCloseTo(4.0, within(1e-9));
      assertThat(e.stats().ttft().p50()).isCloseTo(0.25, within(1e-9));
      assertThat(e.models()).isEmpty();
      // One model: no per-model breakdown, but the model is named, in JSON and in the info series.
      assertThat(e.servedModels()).containsExactly("meta-llama/Llama-3.1-8B-Instruct");
      assertThat(r.snapshot().info()).containsOnly(java.util.Map.entry(
          dev.gputop.inference.export.StatsPoint.infoAttributes("chat-api", "vllm", "meta-llama/Llama-3.1-8B-Instruct", null), 1L));
      assertThat(r.health()).isEqualTo(HealthStatus.healthy());
      assertThat(r.snapshot().overview().generationTokensPerSecond()).isCloseTo(1100.0, within(1e-9));
      assertThat(r.snapshot().overview().worstTtftP99()).isCloseTo(0.95, within(1e-9));
    }
  }

  @Test
  void refresh_configuredQuantiles_areTheOnesEveryLatencyReports() {
    InferenceConfig config = InferenceConfig.builder().window(Duration.ofMinutes(1))
        .endpoints(List.of(endpoint("chat-api", "http://10.0.0.5:8000/metrics")))
        .quantiles(List.of(0.95, 0.5)).build();
    try (InferenceReceiver r = new InferenceReceiver(
        config, Duration.ofSeconds(3), scraper, discovery, clock, OpenTelemetry.noop())) {
      scraper.bodies.put("http://10.0.0.5:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 0));
      r.refresh();
      clock.advanceSeconds(10);
      scraper.bodies.put("http://10.0.0.5:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 1));
      r.refresh();

      dev.gputop.inference.stats.LatencyStats ttft = server(r, "chat-api").stats().ttft();
      assertThat(ttft.quantiles().levels()).containsExactly(0.5, 0.95);
      // The same p50 as at the default quantiles; p95 as the window computes it; no p99.
      assertThat(ttft.p50()).isCloseTo(0.25, within(1e-9));
      dev.gputop.inference.window.ServerWindow w = new dev.gputop.inference.window.ServerWindow(
          Duration.ofMinutes(1), 8);
      dev.gputop.inference.engine.EngineMapper mapper = new dev.gputop.inference.engine.EngineMapper();
      w.add(0, 1, mapper.map(TextExpositions.parse(fixture("vllm", "vllm-v1-dp2-small", 0))));
      w.add(10_000_000_000L, 2, mapper.map(TextExpositions.parse(fixture("vllm", "vllm-v1-dp2-small", 1))));
      assertThat(ttft.value(0.95)).isNotNull().isEqualTo(dev.gputop.inference.stats.WindowStatistics
          .compute(w, null, null, dev.gputop.inference.stats.Quantiles.of(List.of(0.5, 0.95)))
          .ttft().value(0.95));
      assertThat(ttft.p99()).isNull();
      // What reads p99 shows N/A rather than fail.
      assertThat(r.snapshot().overview().worstTtftP99()).isNull();
    }
  }

  @Test
  void refresh_resultsInAnyOrderOrMissing_areMatchedToTheirOwnServer() {
    try (InferenceReceiver r = receiver(endpoint("chat-api", "http://10.0.0.5:8000/metrics"),
        endpoint("code-api", "http://10.0.0.6:8000/metrics"), endpoint("lost", "http://10.0.0.7:8000/metrics"))) {
      scraper.bodies.put("http://10.0.0.5:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 0));
      scraper.failures.put("http://10.0.0.6:8000/metrics", "connect to 10.0.0.6:8000 refused");
      scraper.bodies.put("http://10.0.0.7:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 0));
      scraper.reversed = true;
      scraper.dropped = "lost";
      r.refresh();

      assertThat(server(r, "chat-api").engine()).isEqualTo("vllm");
      assertThat(server(r, "chat-api").state()).isEqualTo(ServerState.STARTING);
      assertThat(server(r, "code-api").state()).isEqualTo(ServerState.DOWN);
      assertThat(server(r, "code-api").error()).isEqualTo("connect to 10.0.0.6:8000 refused");
      assertThat(server(r, "lost").state()).isEqualTo(ServerState.DOWN);
      assertThat(server(r, "lost").error()).isEqualTo("not scraped");
    }
  }

  @Test
  void contribution_hasExactlyTheSpecFieldNames() throws Exception {
    try (InferenceReceiver r = receiver(endpoint("chat-api", "http://10.0.0.5:8000/metrics"))) {
      scraper.bodies.put("http://10.0.0.5:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 0));
      r.refresh();
      clock.advanceSeconds(10);
      scraper.bodies.put("http://10.0.0.5:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 1));
      r.refresh();
      Contribution contribution = r.contribution();
      assertThat(contribution.gpus()).isEmpty();
      assertThat(contribution.overview()).isNotNull();
      assertThat(contribution.furtherSections()).containsOnlyKeys("discovery");
      JsonNode s = new ObjectMapper().valueToTree(contribution.servers()).get(0);
      assertThat(names(s)).containsExactlyInAnyOrder("name", "engine", "servedModels", "url", "source", "state", "error",
          "gpus", "pids", "running", "waiting", "kvCacheUsage", "prefixHitRatio", "requestsPerSecond",
          "promptTokensPerSecond", "generationTokensPerSecond", "preemptionsPerSecond", "ttft", "itl", "tpot",
          "e2e", "queue", "ttftApproxMean", "failedRequestsPerSecond", "abortedRequestsPerSecond", "specDecodeAcceptanceRate", "prefill", "decode", "finishReasons", "slo", "requestLengths", "models",
          "unreadFamilies", "missing", "unavailable", "efficiency");
      assertThat(names(s.get("requestLengths"))).containsExactlyInAnyOrder("prompt", "generation");
      assertThat(names(s.get("efficiency"))).containsExactlyInAnyOrder("unavailable", "gpus", "powerWatts",
          "joulesPerGeneratedToken", "joulesPerPromptToken", "estimated", "generationTokensPerSecondPerGpu");
      assertThat(s.get("efficiency").get("unavailable").asText()).isEqualTo("no_gpus");
      assertThat(names(s.get("slo"))).containsExactlyInAnyOrder("ttft", "itl", "e2e", "queue");
      assertThat(names(s.get("ttft"))).containsExactlyInAnyOrder("mean", "p50", "p90", "p99", "count");
      assertThat(s.get("error").isNull()).isTrue();
      assertThat(s.get("ttft").get("count").asLong()).isEqualTo(40);
      assertThat(names(new ObjectMapper().valueToTree(contribution.overview()))).containsExactlyInAnyOrder(
          "worstTtftP99", "worstItlP50", "generationTokensPerSecond", "waiting", "worstSloAttainment",
          "generationTokensPerJoule", "goodRequestsPerSecond");
      assertThat(names(new ObjectMapper().valueToTree(contribution.furtherSections().get("discovery")))).containsExactlyInAnyOrder("skipped", "notes");
    }
  }

  private static Set<String> names(JsonNode n) {
    Set<String> out = new TreeSet<>();
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      out.add(it.next());
    }
    return out;
  }

  @Test
  void refresh_failingConfiguredEndpointIsDownUnhealthyAndAlerts() {
    try (InferenceReceiver r = receiver(endpoint("chat-api", "http://10.0.0.5:8000/metrics"))) {
      scraper.failures.put("http://10.0.0.5:8000/metrics", "connection refused");
      r.refresh();
      ServerEntry e = server(r, "chat-api");
      assertThat(e.state()).isEqualTo(ServerState.DOWN);
      assertThat(e.error()).isEqualTo("connection refused");
      assertThat(e.stats().running()).isNull();
      assertThat(r.health().state()).isEqualTo(HealthStatus.State.UNHEALTHY);
      assertThat(r.health().reasons()).singleElement().asString()
          .contains("chat-api").contains("connection refused");
      assertThat(r.snapshot().alerts()).extracting(Alert::name, Alert::server)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("inference_unhealthy", "chat-api"));
    }
  }

  @Test
  void refresh_failingDiscoveredServerIsOnlyDown() {
    try (InferenceReceiver r = receiver()) {
      discovery.servers.add(discovered("vllm-8000", "http://127.0.0.1:8000/metrics", 1234L));
      scraper.failures.put("http://127.0.0.1:8000/metrics", "HTTP 404");
      r.refresh();
      assertThat(server(r, "vllm-8000").state()).isEqualTo(ServerState.DOWN);
      assertThat(server(r, "vllm-8000").source()).isEqualTo(ServerSource.DISCOVERED);
      assertThat(r.health()).isEqualTo(HealthStatus.healthy());
      assertThat(r.snapshot().alerts()).isEmpty();
    }
  }

  @Test
  void refresh_malformedExpositionIsDownWithTheLine() {
    try (InferenceReceiver r = receiver(endpoint("x", "http://10.0.0.5:8000/metrics"))) {
      scraper.bodies.put("http://10.0.0.5:8000/metrics", "vllm:num_requests_running{model_name=\"m\" 1\n");
      r.refresh();
      ServerEntry e = server(r, "x");
      assertThat(e.state()).isEqualTo(ServerState.DOWN);
      assertThat(e.error()).startsWith("malformed exposition: line 1");
    }
  }

  @Test
  void refresh_unknownEngineIsUpWithEveryValueNotApplicable() {
    try (InferenceReceiver r = receiver(endpoint("web", "http://10.0.0.6:9100/metrics"))) {
      scraper.bodies.put("http://10.0.0.6:9100/metrics", "# TYPE http_requests_total counter\nhttp_requests_total 5\n");
      r.refresh();
      ServerEntry e = server(r, "web");
      assertThat(e.engine()).isEqualTo("unknown");
      assertThat(e.state()).isEqualTo(ServerState.UP);
      assertThat(e.stats().running()).isNull();
      assertThat(e.stats().requestsPerSecond()).isNull();
      assertThat(e.stats().ttft()).isNull();
      assertThat(r.exportedHistograms()).isEmpty();
    }
  }

  @Test
  void refresh_discoveredUrlEqualToAConfiguredOneIsScrapedOnceAsConfigured() {
    try (InferenceReceiver r = receiver(endpoint("chat-api", "http://127.0.0.1:8000/metrics"))) {
      discovery.servers.add(discovered("vllm-8000", "http://127.0.0.1:8000/metrics", 4242L));
      scraper.bodies.put("http://127.0.0.1:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 0));
      r.refresh();
      assertThat(r.snapshot().servers()).extracting(ServerEntry::name).containsExactly("chat-api");
      assertThat(server(r, "chat-api").pids()).containsExactly(4242L);
      assertThat(server(r, "chat-api").gpus()).containsExactly(0, 1);
      assertThat(r.serverFor(4242L)).isEqualTo("chat-api");
      assertThat(scraper.calls).isEqualTo(1);
    }
  }

  @Test
  void refresh_configuredLocalhostIsTheServerDiscoveredAtTheLoopbackAddress() {
    try (InferenceReceiver r = receiver(endpoint("chat-api", "http://localhost:8000/metrics"))) {
      discovery.servers.add(discovered("vllm-8000", "http://127.0.0.1:8000/metrics", 4242L));
      discovery.servers.add(discovered("vllm-8001", "http://127.0.0.1:8001/metrics", 4343L));
      scraper.bodies.put("http://localhost:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 0));
      scraper.bodies.put("http://127.0.0.1:8001/metrics", fixture("vllm", "vllm-v1-dp2-small", 0));
      r.refresh();
      assertThat(r.snapshot().servers()).extracting(ServerEntry::name).containsExactly("chat-api", "vllm-8001");
      assertThat(server(r, "chat-api").pids()).containsExactly(4242L);
      assertThat(scraper.calls).isEqualTo(2);
    }
  }

  @Test
  void sameUrl_ignoresCaseDefaultPortsAndLoopbackNamesOnly() {
    assertThat(InferenceReceiver.sameUrl(URI.create("HTTP://LocalHost:8000/metrics")))
        .isEqualTo(InferenceReceiver.sameUrl(URI.create("http://127.0.0.1:8000/metrics")))
        .isEqualTo(InferenceReceiver.sameUrl(URI.create("http://[::1]:8000/metrics")));
    assertThat(InferenceReceiver.sameUrl(URI.create("http://10.0.0.5/metrics")))
        .isEqualTo(InferenceReceiver.sameUrl(URI.create("http://10.0.0.5:80/metrics")));
    assertThat(InferenceReceiver.sameUrl(URI.create("https://10.0.0.5/metrics")))
        .isEqualTo(InferenceReceiver.sameUrl(URI.create("https://10.0.0.5:443/metrics")));
    assertThat(InferenceReceiver.sameUrl(URI.create("http://127.0.0.1:8000/metrics")))
        .isNotEqualTo(InferenceReceiver.sameUrl(URI.create("http://127.0.0.2:8000/metrics")))
        .isNotEqualTo(InferenceReceiver.sameUrl(URI.create("https://127.0.0.1:8000/metrics")))
        .isNotEqualTo(InferenceReceiver.sameUrl(URI.create("http://127.0.0.1:8000/metrics/")));
    assertThat(InferenceReceiver.sameUrl(URI.create("http://10.0.0.5:80/metrics")))
        .isNotEqualTo(InferenceReceiver.sameUrl(URI.create("http://10.0.0.5:443/metrics")));
  }

  @Test
  void refresh_serverThatLeavesDiscoveryIsGoneAtTheNextCycle() {
    try (InferenceReceiver r = receiver()) {
      discovery.servers.add(discovered("vllm-8000", "http://127.0.0.1:8000/metrics", 11L));
      discovery.skipped.add(new SkippedProcess(99L, "vllm serve x", "container abc has no known pod IP"));
      discovery.notes.add("NVML unavailable");
      scraper.bodies.put("http://127.0.0.1:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 0));
      r.refresh();
      assertThat(r.serverFor(11L)).isEqualTo("vllm-8000");
      assertThat(r.snapshot().discovery().skipped()).extracting(SkippedProcess::pid).containsExactly(99L);
      assertThat(r.snapshot().discovery().notes()).containsExactly("NVML unavailable");
      discovery.servers.clear();
      clock.advanceSeconds(3);
      r.refresh();
      assertThat(r.snapshot().servers()).isEmpty();
      assertThat(r.serverFor(11L)).isNull();
      // It comes back as a new server: starting again, not with a stale window.
      discovery.servers.add(discovered("vllm-8000", "http://127.0.0.1:8000/metrics", 11L));
      clock.advanceSeconds(3);
      r.refresh();
      assertThat(server(r, "vllm-8000").state()).isEqualTo(ServerState.STARTING);
    }
  }

  @Test
  void refresh_serverInAPod_namesItsPodInTheEntryPointsHistogramsAndPidsUntilItLeaves() throws Exception {
    dev.gputop.config.PodIdentity pod =
        new dev.gputop.config.PodIdentity("llm", "chat-7f9c", "vllm", "4415fd05-2c0f-4533-909b-f2180dca8d7c");
    try (InferenceReceiver r = receiver()) {
      DiscoveredServer d = discovered("llm/chat-7f9c:8000", "http://10.244.1.17:8000/metrics", 21L);
      discovery.servers.add(new DiscoveredServer(d.endpoint(), d.engine(), d.gpus(), List.of(21L, 22L),
          d.command(), d.how(), "713a77a26fe2f3b4b0e0fa1a2b2c3d4e5f60718293a4b5c6d7e8f9001122733c", pod));
      scraper.bodies.put("http://10.244.1.17:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 0));
      r.refresh();

      assertThat(server(r, "llm/chat-7f9c:8000").kubernetes()).isEqualTo(pod);
      assertThat(r.podFor(21L)).isEqualTo(pod);
      assertThat(r.podFor(22L)).isEqualTo(pod);
      io.opentelemetry.api.common.Attributes expected = io.opentelemetry.api.common.Attributes.builder()
          .put("server", "llm/chat-7f9c:8000").put("engine", "vllm")
          .put("k8s.namespace.name", "llm").put("k8s.pod.name", "chat-7f9c").put("k8s.container.name", "vllm")
          .put("k8s.pod.uid", "4415fd05-2c0f-4533-909b-f2180dca8d7c").build();
      assertThat(r.snapshot().points()).extracting(dev.gputop.inference.export.StatsPoint::attributes).contains(expected);
      assertThat(r.snapshot().up().keySet())
          .allSatisfy(a -> assertThat(a.get(io.opentelemetry.api.common.AttributeKey.stringKey("k8s.pod.name")))
              .isEqualTo("chat-7f9c"));
      // Its re-exported histograms carry the same pod attributes as its gauges.
      assertThat(r.exportedHistograms()).extracting(ExportedHistogram::name)
          .contains("gen_ai.server.time_to_first_token");
      assertThat(r.exportedHistograms()).allSatisfy(h -> OpenTelemetryAssertions.assertThat(h.attributes())
          .containsEntry("server", "llm/chat-7f9c:8000")
          .containsEntry("k8s.namespace.name", "llm").containsEntry("k8s.pod.name", "chat-7f9c")
          .containsEntry("k8s.container.name", "vllm")
          .containsEntry("k8s.pod.uid", "4415fd05-2c0f-4533-909b-f2180dca8d7c"));
      String json = new ObjectMapper().writeValueAsString(server(r, "llm/chat-7f9c:8000"));
      assertThat(json).contains(
          "\"kubernetes\":{\"namespace\":\"llm\",\"pod\":\"chat-7f9c\",\"container\":\"vllm\","
              + "\"podUid\":\"4415fd05-2c0f-4533-909b-f2180dca8d7c\"}");

      // The pod is gone: its server, points and PIDs leave the export (cardinality stays bounded).
      discovery.servers.clear();
      clock.advanceSeconds(3);
      r.refresh();
      assertThat(r.snapshot().points()).isEmpty();
      assertThat(r.snapshot().up()).isEmpty();
      assertThat(r.exportedHistograms()).isEmpty();
      assertThat(r.podFor(21L)).isNull();
    }
  }

  @Test
  void refresh_kvCacheFullWhileRequestsWaitAlerts() {
    try (InferenceReceiver r = receiver(endpoint("sg", "http://10.0.0.7:30000/metrics"))) {
      scraper.bodies.put("http://10.0.0.7:30000/metrics", fixture("sglang", "sglang-tp2", 0));
      r.refresh();
      assertThat(r.snapshot().alerts()).isEmpty(); // 20% used
      clock.advanceSeconds(10);
      scraper.bodies.put("http://10.0.0.7:30000/metrics", fixture("sglang", "sglang-tp2", 1));
      r.refresh();
      assertThat(r.snapshot().alerts()).singleElement().satisfies(a -> {
        assertThat(a.name()).isEqualTo("kv_cache_full");
        assertThat(a.server()).isEqualTo("sg");
        assertThat(a.message()).isEqualTo("KV cache 97% used while 2 requests wait");
      });
      assertThat(r.health()).isEqualTo(HealthStatus.healthy());
    }
  }

  @Test
  void refresh_serverWithSeveralModelsHasAPerModelBreakdown() {
    try (InferenceReceiver r = receiver(endpoint("ray", "http://10.0.0.8:8080/metrics"))) {
      scraper.bodies.put("http://10.0.0.8:8080/metrics", fixture("vllm", "ray-vllm-two-models", 0));
      r.refresh();
      clock.advanceSeconds(10);
      scraper.bodies.put("http://10.0.0.8:8080/metrics", fixture("vllm", "ray-vllm-two-models", 1));
      r.refresh();
      ServerEntry e = server(r, "ray");
      assertThat(e.stats().requestsPerSecond()).isCloseTo(3.0, within(1e-9));
      assertThat(e.models()).hasSize(2);
      assertThat(e.models().get(0).name()).isEqualTo("model-a");
      assertThat(e.models().get(0).stats().requestsPerSecond()).isCloseTo(2.0, within(1e-9));
      assertThat(e.models().get(1).name()).isEqualTo("model-b");
      assertThat(e.models().get(1).stats().running()).isEqualTo(1);
      assertThat(e.models().get(1).state()).isEqualTo(ServerState.UP);
      // One re-exported TTFT histogram per model, never a total beside them.
      assertThat(r.exportedHistograms()).extracting(h -> h.attributes().get(AttributeKey.stringKey("gen_ai.request.model")))
          .containsExactly("model-a", "model-b");
    }
  }

  @Test
  void exportedCounters_startAtZero_growAcrossARestart_perServerAndPerModel() {
    String url = "http://10.0.0.9:8000/metrics";
    java.util.function.BiFunction<Integer, Integer, String> vllm = (a, b) -> String.join("\n",
        "# TYPE vllm:request_success counter",
        "vllm:request_success_total{finished_reason=\"stop\",model_name=\"a\"} " + a,
        "vllm:request_success_total{finished_reason=\"stop\",model_name=\"b\"} " + b, "");
    try (InferenceReceiver r = receiver(endpoint("two", url))) {
      long first = clock.epochNanos();
      scraper.bodies.put(url, vllm.apply(100, 40));
      r.refresh();
      assertThat(requests(r, null)).isEqualTo(0);
      clock.advanceSeconds(10);
      scraper.bodies.put(url, vllm.apply(109, 44));
      r.refresh();
      assertThat(requests(r, null)).isEqualTo(13);
      // The finish-reason breakdown: 9 + 4 "stop" in 10 s.
      assertThat(server(r, "two").stats().finishReasons()).containsOnly(java.util.Map.entry("stop", 1.3));
      assertThat(server(r, "two").models()).extracting(m -> m.stats().finishReasons())
          .containsExactly(java.util.Map.of("stop", 0.9), java.util.Map.of("stop", 0.4));
      clock.advanceSeconds(10);
      scraper.bodies.put(url, vllm.apply(2, 1)); // restarted, 3 requests since
      r.refresh();
      assertThat(requests(r, null)).isEqualTo(16);
      assertThat(requests(r, "a")).isEqualTo(11);
      // After the restart the window started over: no finish-reason rate until two scrapes again.
      assertThat(server(r, "two").stats().finishReasons()).isNull();
      assertThat(requests(r, "b")).isEqualTo(5);
      assertThat(r.exportedCounters()).filteredOn(c -> c.name().equals("gputop.inference.requests"))
          .singleElement().satisfies(c -> {
            assertThat(c.startEpochNanos()).isEqualTo(first);
            assertThat(c.attributes()).isEqualTo(Attributes.of(AttributeKey.stringKey("server"), "two",
                AttributeKey.stringKey("engine"), "vllm", AttributeKey.stringKey("outcome"), "success"));
          });
      // Down: the totals stay, so increase() over the outage is what came after it.
      scraper.bodies.remove(url);
      clock.advanceSeconds(10);
      r.refresh();
      assertThat(server(r, "two").state()).isEqualTo(ServerState.DOWN);
      assertThat(requests(r, null)).isEqualTo(16);
    }
  }

  private static double requests(InferenceReceiver r, String model) {
    return r.exportedCounters().stream()
        .filter(c -> c.name().equals(model == null ? "gputop.inference.requests" : "gputop.inference.model.requests"))
        .filter(c -> model == null || model.equals(c.attributes().get(AttributeKey.stringKey("model"))))
        .filter(c -> "success".equals(c.attributes().get(AttributeKey.stringKey("outcome"))))
        .mapToDouble(dev.gputop.receiver.ExportedCounter::value).findFirst().orElse(Double.NaN);
  }

  @Test
  void overview_sumsAndWorstsAcrossServers() {
    try (InferenceReceiver r = receiver(endpoint("a", "http://10.0.0.5:8000/metrics"),
        endpoint("b", "http://10.0.0.7:30000/metrics"))) {
      scraper.bodies.put("http://10.0.0.5:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 0));
      scraper.bodies.put("http://10.0.0.7:30000/metrics", fixture("sglang", "sglang-tp2", 0));
      r.refresh();
      clock.advanceSeconds(10);
      scraper.bodies.put("http://10.0.0.5:8000/metrics", fixture("vllm", "vllm-v1-dp2-small", 1));
      scraper.bodies.put("http://10.0.0.7:30000/metrics", fixture("sglang", "sglang-tp2", 1));
      r.refresh();
      var o = r.snapshot().overview();
      assertThat(o.generationTokensPerSecond()).isCloseTo(1400.0, within(1e-9)); // 1100 + 300
      assertThat(o.waiting()).isEqualTo(3); // 1 + 2
      assertThat(o.worstTtftP99()).isCloseTo(0.95, within(1e-9)); // vLLM 0.95 > SGLang 0.396
      assertThat(o.worstItlP50()).isCloseTo(0.0203125, within(1e-9)); // vLLM > SGLang 0.01625
    }
  }

  @Test
  void exportedHistograms_areCumulativeAndTheirStartMovesOnRestart() {
    try (InferenceReceiver r = receiver(endpoint("chat-api", "http://10.0.0.5:8000/metrics"))) {
      String url = "http://10.0.0.5:8000/metrics";
      scraper.bodies.put(url, fixture("vllm", "vllm-v1-dp2-small", 0));
      long start = clock.epochNanos();
      r.refresh();
      clock.advanceSeconds(10);
      scraper.bodies.put(url, fixture("vllm", "vllm-v1-dp2-small", 1));
      r.refresh();
      ExportedHistogram ttft = r.exportedHistograms().stream()
          .filter(h -> h.name().equals("gen_ai.server.time_to_first_token")).findFirst().orElseThrow();
      assertThat(ttft.unit()).isEqualTo("s");
      assertThat(ttft.startEpochNanos()).isEqualTo(start);
      assertThat(ttft.epochNanos()).isEqualTo(clock.epochNanos());
      assertThat(ttft.boundaries()).hasSize(22).startsWith(0.001, 0.005).endsWith(2560.0);
      // Engine 0 has 380 observations, engine 1 has 80: cumulative, summed per bucket.
      assertThat(ttft.count()).isEqualTo(460);
      assertThat(java.util.Arrays.stream(ttft.counts()).sum()).isEqualTo(460);
      // ≤0.1: 50 (engine 0); (0.1, 0.25]: 160 + 50.
      assertThat(ttft.counts()[7]).isEqualTo(50);
      assertThat(ttft.counts()[8]).isEqualTo(210);
      assertThat(ttft.sum()).isCloseTo(163.5, within(1e-9));
      OpenTelemetryAssertions.assertThat(ttft.attributes()).containsEntry("server", "chat-api").containsEntry("engine", "vllm")
          .containsEntry("gen_ai.provider.name", "vllm")
          .containsEntry("gen_ai.request.model", "meta-llama/Llama-3.1-8B-Instruct");
      assertThat(r.exportedHistograms()).extracting(ExportedHistogram::name).containsExactly(
          "gen_ai.server.time_to_first_token", "gputop.inference.inter_token_latency",
          "gen_ai.server.request.duration", "gputop.inference.request.queue.duration");
      // The server restarts: counters go back to t0's values; the start time moves.
      clock.advanceSeconds(10);
      long restart = clock.epochNanos();
      scraper.bodies.put(url, fixture("vllm", "vllm-v1-dp2-small", 0));
      r.refresh();
      assertThat(server(r, "chat-api").state()).isEqualTo(ServerState.STARTING);
      assertThat(r.exportedHistograms().get(0).startEpochNanos()).isEqualTo(restart);
    }
  }

  @Test
  void close_isIdempotentAndClosesScraperAndDiscovery() {
    InferenceReceiver r = receiver();
    r.close();
    r.close();
    assertThat(scraper.closed).isEqualTo(1);
    assertThat(discovery.closed).isEqualTo(1);
  }

  @Test
  void provider_isFoundByServiceLoader() {
    List<String> names = new ArrayList<>();
    for (ReceiverProvider p : ServiceLoader.load(ReceiverProvider.class)) {
      if (p instanceof InferenceReceiverProvider) {
        names.add(p.name());
        assertThat(p.order()).isEqualTo(200);
        assertThat(p.enabled(dev.gputop.config.AgentConfig.defaults())).isTrue();
      }
    }
    assertThat(names).containsExactly("inference");
  }

  static DiscoveredServer discovered(String name, String url, long pid) {
    return new DiscoveredServer(Endpoint.of(name, URI.create(url)), "vllm", List.of(0, 1), List.of(pid),
        "vllm serve m --port 8000", "command line", null, null);
  }

  /** Serves fixed bodies or failures by URL. */
  static final class FakeScraper implements Scraper {
    final Map<String, String> bodies = new HashMap<>();
    final Map<String, String> failures = new HashMap<>();
    final ManualClock clock;
    int calls;
    int closed;
    /** Return the results last to first, as a scraper that finishes them in any order may. */
    boolean reversed;
    /** Leave this server's result out, as a scraper that lost one would. */
    String dropped;

    FakeScraper(ManualClock clock) {
      this.clock = clock;
    }

    @Override
    public List<ScrapeResult> scrapeAll(List<Endpoint> targets) {
      List<ScrapeResult> out = new ArrayList<>();
      for (Endpoint t : targets) {
        calls++;
        String url = t.url().toString();
        String failure = failures.get(url);
        String body = bodies.get(url);
        if (failure != null || body == null) {
          out.add(new ScrapeResult(t, ScrapeResult.Outcome.CONNECT_ERROR, null, 0, null,
              clock.epochNanos(), clock.nanoTime(), 1_000_000,
              failure == null ? "no body" : failure));
        } else {
          byte[] b = body.getBytes(StandardCharsets.UTF_8);
          out.add(new ScrapeResult(t, ScrapeResult.Outcome.SUCCESS, b, b.length,
              "text/plain; version=0.0.4", clock.epochNanos(), clock.nanoTime(), 1_000_000, null));
        }
      }
      out.removeIf(result -> result.target().name().equals(dropped));
      if (reversed) {
        java.util.Collections.reverse(out);
      }
      return out;
    }

    @Override
    public void close() {
      closed++;
    }
  }

  /** Returns what the test put in it. */
  static final class FakeDiscovery implements ServerDiscovery {
    final List<DiscoveredServer> servers = new ArrayList<>();
    final List<SkippedProcess> skipped = new ArrayList<>();
    final List<String> notes = new ArrayList<>();
    int closed;

    @Override
    public DiscoveryResult discover() {
      return new DiscoveryResult(servers, skipped, notes);
    }

    @Override
    public void close() {
      closed++;
    }
  }
}
