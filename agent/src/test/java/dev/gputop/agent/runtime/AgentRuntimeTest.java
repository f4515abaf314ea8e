package dev.gputop.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gputop.agent.MapEntries;
import dev.gputop.agent.FakeProvider;
import dev.gputop.agent.FakeReceiver;
import dev.gputop.agent.ServiceLoadedTestProvider;
import dev.gputop.agent.SnapshotSchema;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigException;
import dev.gputop.config.ConfigLoader;
import dev.gputop.receiver.Alert;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.ServingOverview;
import dev.gputop.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

public class AgentRuntimeTest {

  private static final AgentConfig FAST =
      new ConfigLoader().parse("refresh:\n  normal: 20ms\nlisten: 'off'\n", Map.of());

  private final List<AgentRuntime> runtimes = new ArrayList<>();

  @AfterEach
  void closeAll() {
    runtimes.forEach(AgentRuntime::close);
    ServiceLoadedTestProvider.receiver = null;
  }

  private AgentRuntime start(AgentConfig config, FakeProvider... providers) {
    AgentRuntime rt = AgentRuntime.builder(config).setProviders(List.of(providers)).build();
    runtimes.add(rt);
    rt.start();
    return rt;
  }

  @Test
  void build_findsProvidersThroughServiceLoader() throws Exception {
    FakeReceiver r = new FakeReceiver("service-loaded-test");
    ServiceLoadedTestProvider.receiver = r;
    AgentRuntime rt = AgentRuntime.builder(FAST).build();
    runtimes.add(rt);
    rt.start();
    assertThat(rt.receiverNames()).contains("service-loaded-test");
    assertThat(r.refreshed.await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void start_createsInOrderAndShareServicesThroughContext() {
    List<String> created = new ArrayList<>();
    FakeProvider second =
        new FakeProvider("second", 200, true, ctx -> {
          created.add("second saw " + ctx.lookup(String.class));
          return new FakeReceiver("second");
        });
    FakeProvider first =
        new FakeProvider("first", 100, true, ctx -> {
          ctx.publish(String.class, "from-first");
          created.add("first");
          return new FakeReceiver("first");
        });
    AgentRuntime rt = start(FAST, second, first);
    assertThat(created).containsExactly("first", "second saw from-first");
    assertThat(rt.receiverNames()).containsExactly("first", "second");
    assertThat(rt.lookup(String.class)).isEqualTo("from-first");
  }

  @Test
  void start_refreshesAtOnceAndThenEveryInterval() throws Exception {
    AgentConfig slow = new ConfigLoader().parse("refresh:\n  normal: 1h\ninference:\n  window: 2h\n", Map.of());
    FakeReceiver r = new FakeReceiver("inference");
    AgentRuntime rt = start(slow, FakeProvider.of(r, 200));
    // The first refresh does not wait for the interval (1 h here).
    assertThat(rt.awaitFirstRefresh(Duration.ofSeconds(5))).isTrue();
    assertThat(r.refreshes.get()).isEqualTo(1);

    FakeReceiver fast = new FakeReceiver("nvml");
    fast.refreshed = new CountDownLatch(5);
    start(FAST, FakeProvider.of(fast, 100));
    assertThat(fast.refreshed.await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void refresh_slowReceiverDoesNotDelayAnother() throws Exception {
    FakeReceiver slow = new FakeReceiver("inference");
    slow.block = new CountDownLatch(1);
    FakeReceiver fast = new FakeReceiver("nvml");
    fast.refreshed = new CountDownLatch(5);
    start(FAST, FakeProvider.of(fast, 100), FakeProvider.of(slow, 200));
    try {
      assertThat(fast.refreshed.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(slow.refreshes.get()).isEqualTo(1);
    } finally {
      slow.block.countDown();
    }
  }

  @Test
  void start_firstRefreshWaitsForTheFirstRefreshOfTheReceiverStartedBefore() throws Exception {
    // As discovery (inference, 200) needs NVML's (100) first sample of the GPU processes.
    FakeReceiver nvml = new FakeReceiver("nvml");
    nvml.block = new CountDownLatch(1);
    FakeReceiver inference = new FakeReceiver("inference");
    start(FAST, FakeProvider.of(inference, 200), FakeProvider.of(nvml, 100));
    try {
      assertThat(nvml.refreshed.await(5, TimeUnit.SECONDS)).isTrue();
      // The event, not a guessed sleep: inference's thread is parked waiting for NVML's first refresh.
      assertThat(awaitParkedInFirstRefreshWait("inference")).isTrue();
      assertThat(inference.refreshes.get()).isZero();
    } finally {
      nvml.block.countDown();
    }
    assertThat(inference.refreshed.await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void start_firstRefreshWaitsForTheReceiverBeforeAtMostTwoSeconds() throws Exception {
    FakeReceiver hung = new FakeReceiver("nvml");
    hung.block = new CountDownLatch(1);
    FakeReceiver inference = new FakeReceiver("inference");
    inference.refreshed = new CountDownLatch(3);
    long t0 = System.nanoTime();
    start(FAST, FakeProvider.of(hung, 100), FakeProvider.of(inference, 200));
    try {
      assertThat(inference.refreshed.await(10, TimeUnit.SECONDS)).isTrue();
      long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertThat(waited).isBetween(AgentRuntime.FIRST_REFRESH_WAIT.toMillis() - 50, 9_000L);
      assertThat(hung.refreshes.get()).isEqualTo(1); // still in its first refresh
    } finally {
      hung.block.countDown();
    }
  }

  @Test
  void refresh_throwingReceiverKeepsItsSchedule() throws Exception {
    FakeReceiver r = new FakeReceiver("inference");
    r.throwOnRefresh = new IllegalStateException("boom");
    r.refreshed = new CountDownLatch(3);
    start(FAST, FakeProvider.of(r, 200));
    assertThat(r.refreshed.await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void snapshot_concatenatesEntriesAndTakesTheLaterOverviewAndSection() {
    FakeReceiver nvml = new FakeReceiver("nvml");
    nvml.contribution.set(new Contribution(
        List.of(MapEntries.gpu(Map.of("index", 0))), List.of(),
        List.of(alert("gpu_failed", null, "GPU 0 fell off the bus")),
        new ServingOverview(null, null, null, 1, null, null, null),
        Map.of("discovery", Map.of("found", 1, "note", "nvml"))));
    FakeReceiver inference = new FakeReceiver("inference");
    inference.contribution.set(new Contribution(
        List.of(), List.of(MapEntries.server(Map.of("name", "a"))),
        List.of(alert("kv_cache_full", "a", "KV cache 97% used, 4 waiting")),
        new ServingOverview(0.25, null, null, 4, null, null, null),
        Map.of("discovery", Map.of("skipped", 2, "note", "inference"))));
    AgentRuntime rt = start(FAST, FakeProvider.of(inference, 200), FakeProvider.of(nvml, 100));

    ObjectNode doc = rt.snapshot();

    assertThat(doc.get("gpus")).hasSize(1);
    assertThat(doc.get("inference").get(0).get("name").asText()).isEqualTo("a");
    assertThat(doc.get("alerts")).extracting(a -> a.get("name").asText())
        .containsExactly("gpu_failed", "kv_cache_full");
    JsonNode serving = doc.get("overview").get("serving");
    assertThat(serving.get("waiting").asInt()).isEqualTo(4); // the later receiver's overview
    assertThat(serving.get("worstTtftP99").asDouble()).isEqualTo(0.25);
    assertThat(serving.get("worstItlP50").isNull()).isTrue();
    assertThat(serving.get("generationTokensPerSecond").isNull()).isTrue();
    assertThat(doc.get("overview").fieldNames()).toIterable().containsExactly("serving");
    JsonNode discovery = doc.get("discovery"); // a further section: the later receiver's
    assertThat(discovery.has("found")).isFalse();
    assertThat(discovery.get("skipped").asInt()).isEqualTo(2);
    assertThat(discovery.get("note").asText()).isEqualTo("inference");
    List<String> fields = new ArrayList<>();
    doc.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactly("timestamp", "gpus", "inference", "overview", "alerts", "health", "discovery");
  }

  @Test
  void snapshot_withoutReceiversHasTheFixedShapeAndValidates() {
    ManualClock clock = new ManualClock(0, Instant.parse("2026-03-04T05:06:07.891234Z").getEpochSecond() * 1_000_000_000L + 891_234_000L);
    AgentRuntime rt = AgentRuntime.builder(FAST).setProviders(List.of()).setClock(clock).build();
    runtimes.add(rt);
    rt.start();

    ObjectNode doc = rt.snapshot();

    assertThat(doc.get("timestamp").asText()).isEqualTo("2026-03-04T05:06:07.891Z");
    // The fields the assembler writes are the ones a receiver's further section may not take.
    List<String> fields = new ArrayList<>();
    doc.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactlyInAnyOrderElementsOf(Contribution.FIXED_SECTIONS);
    assertThat(doc.get("gpus")).isEmpty();
    assertThat(doc.get("inference")).isEmpty();
    assertThat(doc.get("alerts")).isEmpty();
    JsonNode serving = doc.get("overview").get("serving");
    for (String f : List.of("worstTtftP99", "worstItlP50", "generationTokensPerSecond", "waiting", "worstSloAttainment")) {
      assertThat(serving.get(f).isNull()).as(f).isTrue();
    }
    for (String r : List.of("inference", "nvml")) {
      assertThat(doc.get("health").get(r).get("state").asText()).isEqualTo("unavailable");
      assertThat(doc.get("health").get(r).get("reasons").get(0).asText()).isEqualTo("disabled");
    }
    assertThat(SnapshotSchema.errors(doc)).isEmpty();
  }

  @Test
  void snapshot_fullDocumentValidatesAndNonFiniteBecomesNull() throws Exception {
    FakeReceiver inference = new FakeReceiver("inference");
    Map<String, Object> server = server("chat", "vllm");
    server.put("kvCacheUsage", Double.NaN);
    inference.contribution.set(MapEntries.servers(List.of(server)));
    FakeReceiver nvml = new FakeReceiver("nvml");
    nvml.contribution.set(MapEntries.gpus(List.of(gpu())));
    AgentRuntime rt = start(FAST, FakeProvider.of(nvml, 100), FakeProvider.of(inference, 200));
    rt.awaitFirstRefresh(Duration.ofSeconds(5));

    ObjectNode doc = rt.snapshot();

    assertThat(doc.get("inference").get(0).get("kvCacheUsage").isNull()).isTrue();
    assertThat(SnapshotSchema.errors(doc)).isEmpty();
    assertThat(doc.get("health").get("inference").get("state").asText()).isEqualTo("healthy");

    server.put("kvCacheUsage", 0.5);
    server.put("engine", "Not an engine id"); // ids are lower case: any profile's id is valid
    inference.contribution.set(MapEntries.servers(List.of(server)));
    assertThat(SnapshotSchema.errors(rt.snapshot())).anyMatch(e -> e.contains("engine"));

    // inference.quantiles: [0.5, 0.95, 0.999] gives p50, p95, p99_9 (docs/json-schema.md).
    server.put("engine", "vllm");
    Map<String, Object> quantiles = new LinkedHashMap<>();
    quantiles.put("mean", 0.08);
    quantiles.put("p50", 0.06);
    quantiles.put("p95", 0.3);
    quantiles.put("p99_9", 0.45);
    quantiles.put("count", 330);
    server.put("ttft", quantiles);
    inference.contribution.set(MapEntries.servers(List.of(server)));
    assertThat(SnapshotSchema.errors(rt.snapshot())).isEmpty();
    quantiles.put("p99.9", 0.45);
    inference.contribution.set(MapEntries.servers(List.of(server)));
    assertThat(SnapshotSchema.errors(rt.snapshot())).anyMatch(e -> e.contains("p99.9"));
  }

  @Test
  void health_reportsDisabledFailedStartingAndUnhealthy() throws Exception {
    FakeReceiver inference = new FakeReceiver("inference");
    inference.block = new CountDownLatch(1);
    inference.refreshed = new CountDownLatch(1);
    FakeProvider nvmlOff = new FakeProvider("nvml", 100, false, ctx -> new FakeReceiver("nvml"));
    FakeProvider broken = new FakeProvider("k8s", 300, true, ctx -> {
      throw new IllegalStateException("no pods");
    });
    AgentRuntime rt = start(FAST, nvmlOff, FakeProvider.of(inference, 200), broken);
    try {
      assertThat(inference.refreshed.await(5, TimeUnit.SECONDS)).isTrue();
      Map<String, HealthStatus> h = rt.health();
      assertThat(h.get("nvml")).isEqualTo(HealthStatus.unavailable("disabled"));
      assertThat(h.get("k8s").state()).isEqualTo(HealthStatus.State.UNAVAILABLE);
      assertThat(h.get("k8s").reasons().get(0)).contains("failed to start").contains("no pods");
      // Healthy by its own word, but its first refresh is still running.
      assertThat(h.get("inference").state()).isEqualTo(HealthStatus.State.UNHEALTHY);
      assertThat(h.get("inference").reasons()).containsExactly("starting: first refresh not complete");
    } finally {
      inference.block.countDown();
    }
    assertThat(rt.awaitFirstRefresh(Duration.ofSeconds(5))).isTrue();
    assertThat(rt.health().get("inference")).isEqualTo(HealthStatus.healthy());
    inference.health.set(HealthStatus.unhealthy(List.of("endpoint chat: connection refused")));
    assertThat(rt.health().get("inference").reasons()).containsExactly("endpoint chat: connection refused");
  }

  @Test
  void prepareReceivers_preparesTheEnabledInOrderBeforeAnyIsCreated_aThrowingOneIsStillCreated() {
    List<String> calls = new ArrayList<>();
    FakeProvider inference = new FakeProvider("inference", 200, true, ctx -> {
      calls.add("create inference");
      return new FakeReceiver("inference");
    });
    inference.onPrepare = () -> calls.add("prepare inference");
    FakeProvider nvml = new FakeProvider("nvml", 100, true, ctx -> {
      calls.add("create nvml");
      return new FakeReceiver("nvml");
    });
    nvml.onPrepare = () -> {
      calls.add("prepare nvml");
      throw new IllegalStateException("no warm-up today");
    };
    FakeProvider off = new FakeProvider("off", 50, false, ctx -> {
      calls.add("create off");
      return new FakeReceiver("off");
    });
    off.onPrepare = () -> calls.add("prepare off");

    AgentRuntime.Builder builder =
        AgentRuntime.builder(FAST).setProviders(List.of(inference, off, nvml)).prepareReceivers();
    assertThat(calls).containsExactly("prepare nvml", "prepare inference");

    AgentRuntime rt = builder.build();
    runtimes.add(rt);
    rt.start();
    assertThat(calls).containsExactly("prepare nvml", "prepare inference", "create nvml", "create inference");
    assertThat(rt.receiverNames()).containsExactly("nvml", "inference");
  }

  @Test
  void start_configExceptionFromProviderPropagatesAndClosesEarlierReceivers() {
    FakeReceiver first = new FakeReceiver("nvml");
    FakeProvider bad = new FakeProvider("inference", 200, true, ctx -> {
      throw new ConfigException("inference.endpoints[0].url", 7, "unsupported");
    });
    AgentRuntime rt = AgentRuntime.builder(FAST).setProviders(List.of(FakeProvider.of(first, 100), bad)).build();
    runtimes.add(rt);
    assertThatThrownBy(rt::start).isInstanceOf(ConfigException.class).hasMessageContaining("line 7");
    assertThat(first.closes.get()).isEqualTo(1);
  }

  @Test
  void close_isIdempotentStopsRefreshingAndClosesReceivers() throws Exception {
    FakeReceiver r = new FakeReceiver("inference");
    r.refreshed = new CountDownLatch(2);
    AgentRuntime rt = start(FAST, FakeProvider.of(r, 200));
    assertThat(r.refreshed.await(5, TimeUnit.SECONDS)).isTrue();
    rt.close();
    rt.close();
    assertThat(r.closes.get()).isEqualTo(1);
    int after = r.refreshes.get();
    // Two more intervals pass; no refresh may run after close.
    r.refreshed = new CountDownLatch(1);
    assertThat(r.refreshed.await(100, TimeUnit.MILLISECONDS)).isFalse();
    assertThat(r.refreshes.get()).isEqualTo(after);
    assertThatThrownBy(rt::start).isInstanceOf(IllegalStateException.class);
  }

  static Alert alert(String name, String server, String message) {
    return new Alert(name, server, message);
  }

  /** A server entry with every field of SPEC.md section 4. */
  public static Map<String, Object> server(String name, String engine) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("name", name);
    s.put("engine", engine);
    s.put("url", "http://127.0.0.1:8000/metrics");
    s.put("source", "configured");
    s.put("state", "up");
    s.put("error", null);
    s.put("gpus", List.of(0, 1));
    s.put("pids", List.of(4242));
    s.put("running", 12);
    s.put("waiting", 3);
    s.put("kvCacheUsage", 0.42);
    s.put("prefixHitRatio", null);
    s.put("requestsPerSecond", 5.5);
    s.put("promptTokensPerSecond", 2100.0);
    s.put("generationTokensPerSecond", 880.0);
    s.put("preemptionsPerSecond", 0.0);
    s.put("ttft", latency(0.08, 0.06, 0.2, 0.4, 330));
    s.put("itl", latency(0.02, 0.018, 0.03, 0.05, 330));
    s.put("e2e", latency(4.1, 3.5, 7.0, 9.5, 330));
    s.put("queue", null);
    Map<String, Object> slo = new LinkedHashMap<>();
    slo.put("ttft", Map.of("target", 0.5, "objective", 0.99, "attainment", 0.97, "burnRate", 3.0));
    slo.put("itl", null);
    slo.put("e2e", null);
    slo.put("queue", null);
    s.put("slo", slo);
    s.put("unavailable", Map.of("prefixHitRatio", "not_exported", "queue", "not_exported"));
    return s;
  }

  static Map<String, Object> latency(double mean, double p50, double p90, double p99, double count) {
    Map<String, Object> l = new LinkedHashMap<>();
    l.put("mean", mean);
    l.put("p50", p50);
    l.put("p90", p90);
    l.put("p99", p99);
    l.put("count", count);
    return l;
  }

  static Map<String, Object> gpu() {
    Map<String, Object> process = new LinkedHashMap<>();
    process.put("pid", 4242);
    process.put("usedMemoryBytes", 70_000_000_000L);
    process.put("server", "chat");
    Map<String, Object> g = new LinkedHashMap<>();
    g.put("index", 0);
    g.put("uuid", "GPU-5c2b1f63-1d7f-4a3c-9c8e-000000000000");
    g.put("name", "NVIDIA H100 80GB HBM3");
    g.put("pciBusId", "00000000:18:00.0");
    g.put("state", "ok");
    g.put("utilization", 0.97);
    g.put("memoryUsedBytes", 71_000_000_000L);
    g.put("memoryTotalBytes", 85_899_345_920L);
    g.put("powerWatts", 612.5);
    g.put("temperatureCelsius", 66);
    g.put("processes", List.of(process));
    return g;
  }

  /**
   * Whether the refresh thread of {@code receiver} is (within 5 s) parked in the runtime's wait
   * for the previous receiver's first refresh: its stack is in {@code AgentRuntime}'s schedule
   * lambda and it is TIMED_WAITING.
   */
  private static boolean awaitParkedInFirstRefreshWait(String receiver) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline) {
      for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
        if (e.getKey().getName().equals("gputop-" + receiver)
            && e.getKey().getState() == Thread.State.TIMED_WAITING) {
          for (StackTraceElement frame : e.getValue()) {
            if (frame.getClassName().startsWith(AgentRuntime.class.getName())
                && frame.getMethodName().startsWith("lambda$schedule")) {
              return true;
            }
          }
        }
      }
      Thread.sleep(10);
    }
    return false;
  }
}
