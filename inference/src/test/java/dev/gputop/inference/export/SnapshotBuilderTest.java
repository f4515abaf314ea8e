package dev.gputop.inference.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.inference.engine.Engine;
import dev.gputop.inference.stats.LatencyStats;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.receiver.Alert;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.ServingOverview;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotBuilderTest {

  private static final LatencyStats L = new LatencyStats(0.1, 0.2, 0.3, 0.4, 7L);

  private static SnapshotBuilder.Server server(String name, ServerSource source, ServerState state,
      ServerStats stats, Map<String, ServerStats> models) {
    return SnapshotBuilder.Server.builder(name, "http://h:1/metrics", source).gpus(List.of(0))
        .pids(List.of(42L)).engine(Engine.VLLM)
        .state(state, state == ServerState.DOWN ? "connection refused" : null).stats(stats).models(models)
        .build();
  }

  @Test
  void entryJson_writesTheStatisticsInlineInSnapshotOrder() throws Exception {
    ServerStats s = ServerStats.builder().running(5).waiting(1).kvCacheUsage(0.61)
        .prefixHitRatio(0.55).requestsPerSecond(4.0).promptTokensPerSecond(900.0)
        .generationTokensPerSecond(1100.0).preemptionsPerSecond(0.3).ttft(L).itl(L).e2e(L).queue(L)
        .ttftApproxMean(0.35).build();
    Map<String, ServerStats> models = new LinkedHashMap<>();
    models.put("a", s);
    models.put("b", ServerStats.EMPTY);
    SnapshotBuilder b = new SnapshotBuilder();
    b.add(server("chat", ServerSource.CONFIGURED, ServerState.UP, s, models));
    InferenceSnapshot snap = b.build(new DiscoverySection(List.of(), List.of()));

    JsonNode entry = new ObjectMapper().valueToTree(snap.servers().get(0));
    assertThat(fieldNames(entry)).containsExactly("name", "engine", "servedModels", "url", "source", "state",
        "error", "gpus", "pids", "running", "waiting", "kvCacheUsage", "prefixHitRatio",
        "requestsPerSecond", "promptTokensPerSecond", "generationTokensPerSecond",
        "preemptionsPerSecond", "ttft", "itl", "tpot", "e2e", "queue", "ttftApproxMean", "failedRequestsPerSecond", "abortedRequestsPerSecond", "specDecodeAcceptanceRate", "prefill", "decode", "finishReasons", "slo", "requestLengths", "models",
          "unreadFamilies", "missing", "unavailable", "efficiency");
    assertThat(entry.get("running").asInt()).isEqualTo(5);
    assertThat(entry.get("servedModels")).extracting(JsonNode::asText).containsExactly("a", "b");
    assertThat(entry.get("ttft").get("p99").asDouble()).isEqualTo(0.4);
    JsonNode model = entry.get("models").get(1);
    assertThat(fieldNames(model)).containsExactly("name", "engine", "state", "error", "running",
        "waiting", "kvCacheUsage", "prefixHitRatio", "requestsPerSecond", "promptTokensPerSecond",
        "generationTokensPerSecond", "preemptionsPerSecond", "ttft", "itl", "tpot", "e2e", "queue",
        "ttftApproxMean", "failedRequestsPerSecond", "abortedRequestsPerSecond", "specDecodeAcceptanceRate", "prefill", "decode", "finishReasons", "slo", "requestLengths");
    assertThat(model.get("name").asText()).isEqualTo("b");
    assertThat(model.get("running").isNull()).isTrue();
  }

  @Test
  void build_pointsAreServerTotalsThenModels() {
    ServerStats total = ServerStats.builder().running(3).build();
    ServerStats a = ServerStats.builder().running(2).build();
    SnapshotBuilder b = new SnapshotBuilder();
    b.add(server("one", ServerSource.DISCOVERED, ServerState.UP, total, Map.of("a", a, "b", a)));
    b.add(server("two", ServerSource.DISCOVERED, ServerState.UP, total, Map.of()));
    InferenceSnapshot snap = b.build(new DiscoverySection(List.of(), List.of()));
    assertThat(snap.points()).extracting(p -> p.attributes().get(StatsPoint.SERVER))
        .containsExactly("one", "two", "one", "one");
    assertThat(snap.owners()).containsEntry(42L, "one");
    assertThat(snap.up()).hasSize(2).containsValue(1L);
  }

  @Test
  void build_configuredDownIsUnhealthyWithAnAlert_fullKvCacheAlerts() {
    ServerStats full = ServerStats.builder().running(4).waiting(2).kvCacheUsage(0.97).build();
    SnapshotBuilder b = new SnapshotBuilder();
    b.add(server("gone", ServerSource.CONFIGURED, ServerState.DOWN, ServerStats.EMPTY, Map.of()));
    b.add(server("busy", ServerSource.DISCOVERED, ServerState.UP, full, Map.of()));
    b.add(server("lost", ServerSource.DISCOVERED, ServerState.DOWN, ServerStats.EMPTY, Map.of()));
    InferenceSnapshot snap = b.build(new DiscoverySection(List.of(), List.of()));
    assertThat(snap.alerts()).extracting(Alert::name, Alert::server).containsExactly(
        org.assertj.core.groups.Tuple.tuple("inference_unhealthy", "gone"),
        org.assertj.core.groups.Tuple.tuple("kv_cache_full", "busy"));
    assertThat(snap.alerts().get(1).message()).isEqualTo("KV cache 97% used while 2 requests wait");
    assertThat(snap.health()).isEqualTo(HealthStatus.unhealthy(List.of(
        "configured endpoint gone (http://h:1/metrics) can't be scraped: connection refused")));
    assertThat(snap.up().values()).containsExactlyInAnyOrder(0L, 1L, 0L);
    // The state set: every state of every server, one at 1 each.
    assertThat(snap.states()).hasSize(9);
    assertThat(snap.states().get(StatsPoint.stateAttributes("gone", "vllm", null).get(2))).isEqualTo(1L);
    assertThat(snap.states().get(StatsPoint.stateAttributes("gone", "vllm", null).get(0))).isEqualTo(0L);
    assertThat(snap.states().get(StatsPoint.stateAttributes("busy", "vllm", null).get(0))).isEqualTo(1L);
    assertThat(snap.states().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(3);
  }

  @Test
  void overview_worstAndTotalsOverTheServersThatHaveThem() {
    LatencyStats slow = new LatencyStats(0.5, 0.4, 0.8, 0.9, 3L);
    ServerStats x = ServerStats.builder().waiting(2).generationTokensPerSecond(100.0).ttft(L)
        .itl(slow).build();
    ServerStats y = ServerStats.builder().waiting(3).generationTokensPerSecond(50.0).ttft(slow)
        .itl(L).build();
    SnapshotBuilder b = new SnapshotBuilder();
    b.add(server("x", ServerSource.DISCOVERED, ServerState.UP, x, Map.of()));
    b.add(server("y", ServerSource.DISCOVERED, ServerState.UP, y, Map.of()));
    b.add(server("z", ServerSource.DISCOVERED, ServerState.DOWN, ServerStats.EMPTY, Map.of()));
    ServingOverview o = b.build(new DiscoverySection(List.of(), List.of())).overview();
    assertThat(o).isEqualTo(new ServingOverview(0.9, 0.4, 150.0, 5, null, null, null));
    assertThat(new SnapshotBuilder().build(new DiscoverySection(List.of(), List.of())).overview())
        .isEqualTo(new ServingOverview(null, null, null, null, null, null, null));
  }

  @Test
  void entryJson_carriesTheNewestScrapesDrift() throws Exception {
    // A trtllm-serve 2026 server whose generation-token counter was renamed by an upgrade.
    String text = "# TYPE trtllm_prompt_tokens_total counter\n"
        + "trtllm_prompt_tokens_total{model_name=\"m\"} 10\n"
        + "# TYPE trtllm_request_prefill_time_seconds histogram\n"
        + "trtllm_request_prefill_time_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 1\n"
        + "trtllm_request_prefill_time_seconds_sum{model_name=\"m\"} 0.2\n"
        + "trtllm_request_prefill_time_seconds_count{model_name=\"m\"} 1\n"
        + "# TYPE trtllm_completion_tokens_total counter\n"
        + "trtllm_completion_tokens_total{model_name=\"m\"} 7\n";
    dev.gputop.inference.window.ServerWindow w = new dev.gputop.inference.window.ServerWindow(java.time.Duration.ofMinutes(1), 4);
    w.add(1, 1, new dev.gputop.inference.engine.EngineMapper().map(dev.gputop.inference.testing.TextExpositions.parse(text)));
    SnapshotBuilder b = new SnapshotBuilder();
    b.add(SnapshotBuilder.Server.builder("t", "http://h:1/metrics", ServerSource.CONFIGURED)
        .engine(Engine.of("trtllm")).state(ServerState.STARTING, null).window(w).build());
    b.add(SnapshotBuilder.Server.builder("gone", "http://h:2/metrics", ServerSource.CONFIGURED)
        .engine(Engine.of("trtllm")).state(ServerState.DOWN, "refused").window(w).build());
    InferenceSnapshot snap = b.build(new DiscoverySection(List.of(), List.of()));
    JsonNode entry = new ObjectMapper().valueToTree(snap.servers().get(0));
    assertThat(entry.get("unreadFamilies").toString())
        .isEqualTo("{\"count\":1,\"names\":[\"trtllm_completion_tokens_total\"]}");
    assertThat(entry.get("missing").toString()).contains(
        "{\"concept\":\"generationTokens\",\"expected\":\"counter trtllm_generation_tokens\",\"since\":\"2026 (050f80de)\"}");
    // A server that is down shows no drift: its last scrape is old news.
    JsonNode down = new ObjectMapper().valueToTree(snap.servers().get(1));
    assertThat(down.get("unreadFamilies").get("count").asInt()).isZero();
    assertThat(down.get("missing").size()).isZero();
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
