package dev.gputop.agent.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.gputop.agent.top.SnapshotView;
import dev.gputop.agent.top.TopScreen;
import dev.gputop.agent.MapEntries;
import dev.gputop.agent.FakeProvider;
import dev.gputop.agent.FakeReceiver;
import dev.gputop.agent.SnapshotSchema;
import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.agent.runtime.AgentRuntimeTest;
import dev.gputop.agent.runtime.SnapshotAssembler;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigLoader;
import dev.gputop.inference.export.ServerEntry;
import dev.gputop.inference.export.ServerSource;
import dev.gputop.inference.export.ServerState;
import dev.gputop.inference.stats.LatencyStats;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.nvml.GpuEntry;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.ServingOverview;
import dev.gputop.testing.LogCapture;
import dev.gputop.testing.ManualClock;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class HistoryTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long T0 = 1_780_000_000_000L;

  /** One receiver's servers and another's GPUs, as entries of a receiver other than the agent's own. */
  private static List<Contribution> snapshot(List<Map<String, Object>> servers, List<Map<String, Object>> gpus) {
    return List.of(MapEntries.servers(servers), MapEntries.gpus(gpus));
  }

  /** Where the snapshot document has a server's series ({@code ttftP50}: {@code ttft.p50}), as a client reads it. */
  static JsonNode documentValue(History.ServerSeries series, JsonNode server) {
    String name = series.json;
    if (name.endsWith("P50") || name.endsWith("P99")) {
      return server.path(name.substring(0, name.length() - 3)).get("p" + name.substring(name.length() - 2));
    }
    return server.get(name);
  }

  private static Map<String, Object> gpu(int index, Integer mig, Double utilization) {
    Map<String, Object> g = new LinkedHashMap<>();
    g.put("index", index);
    if (mig != null) {
      g.put("migIndex", mig);
    }
    g.put("utilization", utilization);
    g.put("memoryUsedBytes", 42_000_000_000L);
    g.put("powerWatts", 310.5);
    g.put("temperatureCelsius", null);
    return g;
  }

  /** The GPU entry's key as top reads it: from the entry's JSON text, into its typed row. */
  private static String gpuKey(JsonNode gpu) {
    try {
      String doc = "{\"gpus\":[" + gpu + "]}";
      return TopScreen.gpuKey(SnapshotView.parse(doc.getBytes(java.nio.charset.StandardCharsets.UTF_8)).gpus().get(0));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The document as a client reads it: written as JSON text and parsed back. */
  private static JsonNode asServed(JsonNode doc) {
    try {
      return JSON.readTree(JSON.writeValueAsString(doc));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void record_keepsEveryValueOfEachServerAndGpuWithNullsAsNull() {
    History h = History.forRefresh(Duration.ofSeconds(3));
    Map<String, Object> chat = AgentRuntimeTest.server("chat", "vllm");
    h.record(T0, snapshot(List.of(chat, AgentRuntimeTest.server("code", "sglang")),
        List.of(gpu(0, null, 0.75), gpu(1, 2, null))));

    JsonNode doc = asServed(h.server("chat", T0));
    assertThat(SnapshotSchema.historyErrors(doc)).isEmpty();
    assertThat(doc.get("server").asText()).isEqualTo("chat");
    assertThat(doc.get("intervalSeconds").asDouble()).isEqualTo(3.0);
    assertThat(doc.get("spanSeconds").asInt()).isEqualTo(600);
    assertThat(doc.get("times")).hasSize(1);
    assertThat(doc.get("times").get(0).asLong()).isEqualTo(T0);
    JsonNode s = doc.get("series");
    assertThat(s.get("running").get(0).asDouble()).isEqualTo(12);
    assertThat(s.get("waiting").get(0).asDouble()).isEqualTo(3);
    assertThat(s.get("kvCacheUsage").get(0).asDouble()).isEqualTo(0.42);
    assertThat(s.get("requestsPerSecond").get(0).asDouble()).isEqualTo(5.5);
    assertThat(s.get("generationTokensPerSecond").get(0).asDouble()).isEqualTo(880.0);
    assertThat(s.get("preemptionsPerSecond").get(0).asDouble()).isEqualTo(0.0); // a real 0 stays 0
    assertThat(s.get("ttftP50").get(0).asDouble()).isEqualTo(0.06);
    assertThat(s.get("ttftP99").get(0).asDouble()).isEqualTo(0.4);
    assertThat(s.get("e2eP99").get(0).asDouble()).isEqualTo(9.5);
    assertThat(s.get("prefixHitRatio").get(0).isNull()).isTrue(); // N/A stays N/A
    assertThat(s.get("queueP50").get(0).isNull()).isTrue(); // a latency the server lacks
    assertThat(History.serverSeriesNames()).allSatisfy(n -> assertThat(s.get(n)).hasSize(1));

    JsonNode g0 = asServed(h.gpu("0", T0));
    assertThat(SnapshotSchema.historyErrors(g0)).isEmpty();
    assertThat(g0.get("series").get("utilization").get(0).asDouble()).isEqualTo(0.75);
    assertThat(g0.get("series").get("powerWatts").get(0).asDouble()).isEqualTo(310.5);
    assertThat(g0.get("series").get("temperatureCelsius").get(0).isNull()).isTrue();
    // 32-bit floats: about seven significant digits of 42 GB
    assertThat(g0.get("series").get("memoryUsedBytes").get(0).asDouble()).isCloseTo(42e9, org.assertj.core.data.Offset.offset(42e9 * 1e-6));
    JsonNode mig = h.gpu("1:2", T0);
    assertThat(mig.get("gpu").asText()).isEqualTo("1:2");
    assertThat(mig.get("series").get("utilization").get(0).isNull()).isTrue();

    JsonNode index = h.index();
    assertThat(SnapshotSchema.historyErrors(index)).isEmpty();
    assertThat(index.get("servers").toString()).isEqualTo("[\"chat\",\"code\"]");
    assertThat(index.get("gpus").toString()).isEqualTo("[\"0\",\"1:2\"]");
    assertThat(h.server("nope", T0)).isNull();
    assertThat(h.gpu("7", T0)).isNull();
  }

  @Test
  void ring_holdsTenMinutesAtTheRefreshIntervalOldestFirst() {
    History h = History.forRefresh(Duration.ofSeconds(3));
    assertThat(h.capacity()).isEqualTo(201);
    long t = T0;
    for (int i = 0; i < 500; i++) {
      Map<String, Object> s = AgentRuntimeTest.server("chat", "vllm");
      s.put("running", i);
      h.record(t, snapshot(List.of(s), List.of()));
      t += 3000;
    }
    long now = t - 3000;
    JsonNode doc = h.server("chat", now);
    ArrayNode times = (ArrayNode) doc.get("times");
    assertThat(times).hasSize(201);
    assertThat(times.get(0).asLong()).isEqualTo(now - 600_000);
    assertThat(times.get(200).asLong()).isEqualTo(now);
    assertThat(doc.get("series").get("running").get(0).asInt()).isEqualTo(299);
    assertThat(doc.get("series").get("running").get(200).asInt()).isEqualTo(499);
    assertThat(SnapshotSchema.historyErrors(doc)).isEmpty();
  }

  @Test
  void forRefresh_fasterThanHalfASecondRecordsEvery500msAtMost1201Points() {
    History fast = History.forRefresh(Duration.ofMillis(100));
    assertThat(fast.intervalMillis()).isEqualTo(500);
    assertThat(fast.capacity()).isEqualTo(1201);
    assertThat(History.forRefresh(Duration.ofSeconds(1)).capacity()).isEqualTo(601);
    assertThat(History.forRefresh(Duration.ofMinutes(1)).capacity()).isEqualTo(11);
  }

  @Test
  void serverThatLeaves_keepsItsHistoryUntilItAgesOut() {
    History h = History.forRefresh(Duration.ofSeconds(10));
    h.record(T0, snapshot(List.of(AgentRuntimeTest.server("gone", "tgi"), AgentRuntimeTest.server("stays", "vllm")), List.of(gpu(0, null, 0.5))));
    long t = T0;
    for (int i = 1; i <= 60; i++) {
      t = T0 + i * 10_000L;
      h.record(t, snapshot(List.of(AgentRuntimeTest.server("stays", "vllm")), List.of()));
    }
    // 600 s later: the last point of "gone" and of GPU 0 is exactly one span old, still shown
    assertThat(h.server("gone", t).get("times")).hasSize(1);
    assertThat(h.gpu("0", t).get("times")).hasSize(1);
    h.record(t + 10_000, snapshot(List.of(AgentRuntimeTest.server("stays", "vllm")), List.of()));
    assertThat(h.server("gone", t + 10_000)).isNull();
    assertThat(h.gpu("0", t + 10_000)).isNull();
    assertThat(h.serverNames()).containsExactly("stays");
    // Read later than recorded: points older than the span are left out of the document.
    assertThat(h.server("stays", t + 10_000 + 300_000).get("times")).hasSize(31);
  }

  @Test
  void record_beyondMaxServersKeepsNoHistoryForTheNewOnes() {
    History h = History.forRefresh(Duration.ofMinutes(1));
    List<Map<String, Object>> servers = new ArrayList<>();
    for (int i = 0; i < History.MAX_SERVERS + 5; i++) {
      servers.add(AgentRuntimeTest.server("s" + i, "vllm"));
    }
    h.record(T0, snapshot(servers, List.of()));
    assertThat(h.serverNames()).hasSize(History.MAX_SERVERS);
    assertThat(h.server("s0", T0)).isNotNull();
    assertThat(h.server("s" + (History.MAX_SERVERS + 4), T0)).isNull();
  }

  /**
   * The memory figures of docs/PERFORMANCE.md: the heap a full history takes for 8 and 500
   * servers (and 8 GPUs), measured as the bytes the recording thread allocated, which must match
   * what the arrays alone take: the rings are allocated once, and recording allocates nothing
   * per point.
   */
  @Test
  void memory_ofFullHistoryIsTheRingArraysAndRecordingAllocatesNothingPerPoint() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    for (Duration refresh : List.of(Duration.ofSeconds(3), Duration.ofSeconds(1))) {
      for (int n : new int[] {8, 500}) {
        List<Map<String, Object>> servers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          servers.add(AgentRuntimeTest.server("server-" + i, "vllm"));
        }
        List<Map<String, Object>> gpus = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          gpus.add(gpu(i, null, 0.5));
        }
        List<Contribution> snap = snapshot(servers, gpus);
        History h = History.forRefresh(refresh);
        long before = threads.getThreadAllocatedBytes(thread);
        h.record(T0, snap);
        long first = threads.getThreadAllocatedBytes(thread) - before;
        long t = T0;
        before = threads.getThreadAllocatedBytes(thread);
        for (int k = 1; k < h.capacity() * 2; k++) {
          t += h.intervalMillis();
          h.record(t, snap);
        }
        long steady = (threads.getThreadAllocatedBytes(thread) - before) / (h.capacity() * 2 - 1);
        long arrays = h.arrayBytes();
        System.out.printf("history: refresh %s, %d servers + 8 GPUs, %d points: arrays %d bytes (%.1f KiB per server), "
                + "allocated by the first record %d bytes, per later record %d bytes%n",
            refresh, n, h.capacity(), arrays, arrays / 1024.0 / (n + 8), first, steady);
        // The first record allocates the rings plus a map entry and little else per entity.
        assertThat(first).isBetween(arrays, arrays + 512L * (n + 8));
        // Later records only write into the rings (an iterator or two per record, nothing per point).
        assertThat(steady).isLessThan(1024);
      }
    }
  }

  // ---- recording the receivers' own entries ----

  private static LatencyStats latency(double base) {
    return new LatencyStats(base * 1.1, base, base * 2, base * 4, 330L);
  }

  /** A server entry as the inference receiver publishes it, its values moved by {@code k}. */
  static ServerEntry typedServer(String name, int k) {
    ServerStats stats = ServerStats.builder().running(12 + k).waiting(k % 4)
        .kvCacheUsage(0.42 + k * 1e-3).prefixHitRatio(k % 3 == 0 ? null : 0.25)
        .requestsPerSecond(5.5 + k).promptTokensPerSecond(2100.0 + k / 7.0)
        .generationTokensPerSecond(880.123456789 + k).preemptionsPerSecond(0.0)
        .ttft(latency(0.06 + k * 1e-4)).itl(latency(0.018)).e2e(latency(3.5))
        .queue(k % 2 == 0 ? null : latency(0.2)).failedRequestsPerSecond(0.1)
        .abortedRequestsPerSecond(0.05).specDecodeAcceptanceRate(0.7).prefill(latency(0.01)).build();
    return new ServerEntry(name, "vllm", "http://127.0.0.1:8000/metrics", ServerSource.CONFIGURED, ServerState.UP, null,
        List.of(0, 1), List.of(4242L), stats, List.of(), null);
  }

  /** A GPU (or, with {@code mig}, a MIG instance) entry as the NVML receiver publishes it. */
  static GpuEntry typedGpu(int index, Integer mig, Double utilization, Long memoryUsed, Double power, Integer temperature) {
    return new GpuEntry(index, "GPU-" + index + (mig == null ? "" : "-" + mig), "NVIDIA H100 80GB HBM3",
        "00000000:28:00.0", "ok", utilization, memoryUsed, 85_520_809_984L, power, temperature, List.of(),
        mig == null ? null : "GPU-" + index, mig, null, null, null, null, null, null, null, null, null,
        null, null, null, null);
  }

  /** History warnings of one recording, for the once-logged overflow. */
  private static List<String> warnings(Runnable recording) {
    LogCapture capture = LogCapture.attach(Logger.getLogger(History.class.getName()), Level.WARNING);
    try {
      recording.run();
    } finally {
      capture.close();
    }
    return capture.records().stream().map(LogRecord::getMessage).toList();
  }

  /** The newest point of each of an entity's series, null for null, from its history document. */
  private static void assertNewestPointIs(JsonNode history, long at, Map<String, JsonNode> expected, String what) {
    JsonNode times = history.get("times");
    assertThat(times.get(times.size() - 1).asLong()).as(what).isEqualTo(at);
    expected.forEach((series, value) -> {
      JsonNode column = history.get("series").get(series);
      JsonNode point = column.get(column.size() - 1);
      if (value == null || !value.isNumber()) {
        assertThat(point.isNull()).as(what + " " + series).isTrue();
      } else {
        assertThat(point.isNull()).as(what + " " + series).isFalse();
        assertThat((float) point.asDouble()).as(what + " " + series).isEqualTo((float) value.asDouble());
      }
    });
  }

  /** A key seen in a document at {@code at}: kept in first-seen order, at most {@code max} of them. */
  private static void seen(Map<String, Long> keys, String key, long at, int max) {
    if (keys.containsKey(key) || keys.size() < max) {
      keys.put(key, at);
    }
  }

  @Test
  void record_holdsWhatTheSnapshotShowsThroughLeavingBoundsAndNonFiniteValues() {
    SnapshotAssembler assembler = new SnapshotAssembler(new ManualClock(Instant.ofEpochMilli(T0)));
    History typed = History.forRefresh(Duration.ofSeconds(10));
    List<String> typedWarnings = new ArrayList<>();
    // What a client of the documents would keep: each name and key with when it was last shown.
    Map<String, Long> shownServers = new LinkedHashMap<>();
    Map<String, Long> shownGpus = new LinkedHashMap<>();
    long t = T0;
    for (int step = 0; step < 70; step++) {
      t = T0 + step * 10_000L;
      List<ServerEntry> first = new ArrayList<>();
      for (int i = 0; i < (step < 3 ? History.MAX_SERVERS + 3 : 4); i++) {
        first.add(typedServer("s" + i, step + i)); // beyond MAX_SERVERS at first, then most leave
      }
      if (step < 20) {
        first.add(typedServer("leaves-at-20", step));
      }
      first.add(new ServerEntry("down", "unknown", "http://127.0.0.1:1/metrics", ServerSource.CONFIGURED, ServerState.DOWN,
          "connection refused", List.of(), List.of(), ServerStats.EMPTY, List.of(), null));
      first.add(new ServerEntry(null, "vllm", "http://x/metrics", ServerSource.CONFIGURED, ServerState.UP, null, List.of(),
          List.of(), ServerStats.EMPTY, List.of(), null)); // no name: no history, as in the document
      ServerEntry odd = typedServer("odd", step);
      ServerStats o = odd.stats();
      first.add(new ServerEntry("odd", "vllm", odd.url(), odd.source(), odd.state(), null, List.of(), List.of(),
          ServerStats.builder().running(o.running()).waiting(o.waiting()).kvCacheUsage(Double.NaN)
              .prefixHitRatio(Double.POSITIVE_INFINITY).requestsPerSecond(1e300)
              .promptTokensPerSecond(-0.0).generationTokensPerSecond(Double.MIN_VALUE)
              .preemptionsPerSecond(Double.NEGATIVE_INFINITY)
              .ttft(new LatencyStats(null, Double.NaN, null, 1e-45, 0L)).build(), List.of(), null));
      List<ServerEntry> second = List.of(typedServer("second-receiver", step), typedServer("s1", -step));
      List<GpuEntry> gpus = new ArrayList<>();
      for (int i = 0; i < (step == 5 ? History.MAX_GPUS + 2 : 2); i++) {
        gpus.add(typedGpu(i, null, 0.5 + step * 1e-3, 42_000_000_123L + step, 310.5, 40 + step % 5));
      }
      gpus.add(typedGpu(1, 0, null, 9_999_999_999L, null, null));
      gpus.add(typedGpu(1, 6, Double.NaN, (1L << 53) + 1, Double.POSITIVE_INFINITY, -3));
      gpus.add(typedGpu(70, 9, 0.1, 1L, 2.0, 3)); // outside the made-once keys
      List<Contribution> contributions = List.of(
          Contribution.ofGpus(gpus, List.of()),
          Contribution.NONE, // as a receiver that published nothing
          Contribution.ofServers(first, List.of(), ServingOverview.NONE, Map.of()),
          Contribution.ofServers(second, List.of(), null, Map.of()));
      long now = t;
      typedWarnings.addAll(warnings(() -> typed.record(now, contributions)));
      JsonNode doc = asServed(assembler.assemble(contributions, Map.of("inference", HealthStatus.healthy())));

      // What the document shows, entity by entity: the last entry of a name is the newest point.
      Map<String, JsonNode> lastServer = new LinkedHashMap<>();
      for (JsonNode s : doc.get("inference")) {
        if (s.hasNonNull("name")) {
          lastServer.put(s.get("name").asText(), s);
          seen(shownServers, s.get("name").asText(), now, History.MAX_SERVERS);
        }
      }
      Map<String, JsonNode> lastGpu = new LinkedHashMap<>();
      for (JsonNode g : doc.get("gpus")) {
        lastGpu.put(gpuKey(g), g);
        seen(shownGpus, gpuKey(g), now, History.MAX_GPUS);
      }
      shownServers.values().removeIf(last -> last < now - History.SPAN.toMillis());
      shownGpus.values().removeIf(last -> last < now - History.SPAN.toMillis());
      assertThat(typed.serverNames()).as("step " + step).containsExactlyElementsOf(shownServers.keySet());
      assertThat(typed.index().get("gpus")).extracting(JsonNode::asText).as("step " + step)
          .containsExactlyElementsOf(shownGpus.keySet());
      for (String name : typed.serverNames()) {
        JsonNode entry = lastServer.get(name);
        if (entry == null) {
          continue; // not in this document: keeps its older points
        }
        Map<String, JsonNode> expected = new LinkedHashMap<>();
        for (History.ServerSeries series : History.ServerSeries.values()) {
          expected.put(series.json, documentValue(series, entry));
        }
        assertNewestPointIs(asServed(typed.server(name, now)), now, expected, name + " at step " + step);
      }
      for (String key : shownGpus.keySet()) {
        JsonNode entry = lastGpu.get(key);
        if (entry == null) {
          continue;
        }
        Map<String, JsonNode> expected = new LinkedHashMap<>();
        for (String series : History.gpuSeriesNames()) {
          expected.put(series, entry.get(series));
        }
        assertNewestPointIs(asServed(typed.gpu(key, now)), now, expected, "GPU " + key + " at step " + step);
      }
    }
    // Entities that left are gone ten minutes after their last point.
    assertThat(typed.serverNames()).containsExactly("s0", "s1", "s2", "s3", "down", "odd", "second-receiver");
    assertThat(typed.index().get("gpus").toString()).isEqualTo("[\"0\",\"1\",\"1:0\",\"1:6\",\"70:9\"]");
    JsonNode odd = asServed(typed.server("odd", t)).get("series");
    assertThat(odd.get("kvCacheUsage").get(0).isNull()).isTrue(); // NaN: null in the snapshot
    assertThat(odd.get("prefixHitRatio").get(0).isNull()).isTrue(); // infinity: null in the snapshot
    assertThat(odd.get("promptTokensPerSecond").get(0).asDouble()).isEqualTo(-0.0);
    assertThat(odd.get("ttftP99").get(0).asDouble()).isEqualTo(1e-45, org.assertj.core.data.Offset.offset(1e-45));
    // The overflow is logged once per kind.
    assertThat(typedWarnings).hasSize(2);
    assertThat(typedWarnings.get(0)).contains("more than 1024 servers");
    assertThat(typedWarnings.get(1)).contains("more than 256 GPUs");
  }

  /**
   * The recorder's allocation at 500 servers and 8 GPUs (docs/PERFORMANCE.md, "History memory"):
   * the bytes the recording thread allocates per {@code AgentRuntime.recordHistory()} once the
   * rings exist, from the receivers' typed contributions, against writing the snapshot document
   * (what each record cost when the history read the document).
   */
  @Test
  void memory_recordingFromTypedContributionsAllocatesNothingPerPoint() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    int n = 500;
    List<ServerEntry> servers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      servers.add(typedServer("server-" + i, i));
    }
    List<GpuEntry> gpus = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      gpus.add(typedGpu(i, null, 0.5, 42_000_000_000L, 310.5, 41));
    }
    FakeReceiver inference = new FakeReceiver("inference");
    inference.contribution.set(Contribution.ofServers(servers, List.of(), null, Map.of()));
    FakeReceiver nvml = new FakeReceiver("nvml");
    nvml.contribution.set(Contribution.ofGpus(gpus, List.of()));
    AgentConfig hourly = new ConfigLoader().parse("refresh:\n  normal: 3s\nlisten: 'off'\n", Map.of());
    try (AgentRuntime runtime = AgentRuntime.builder(hourly)
        .setProviders(List.of(FakeProvider.of(nvml, 100), FakeProvider.of(inference, 200))).build()) {
      runtime.start();
      runtime.recordHistory(); // the rings
      int records = 2 * runtime.history().capacity();
      long before = threads.getThreadAllocatedBytes(thread);
      for (int k = 0; k < records; k++) {
        runtime.recordHistory();
      }
      long typed = (threads.getThreadAllocatedBytes(thread) - before) / records;

      runtime.snapshot();
      int documents = 20;
      before = threads.getThreadAllocatedBytes(thread);
      for (int k = 1; k <= documents; k++) {
        runtime.snapshot();
      }
      long document = (threads.getThreadAllocatedBytes(thread) - before) / documents;
      int points = n + gpus.size();
      System.out.printf("history: %d servers + 8 GPUs, per record (%d points): from the typed contributions %d bytes"
              + " (%.2f per point), writing the snapshot document %d bytes (%.0f per point)%n",
          n, points, typed, (double) typed / points, document, (double) document / points);
      // A few small objects per record (the contributions and their list, the age-out's lambda), none per point.
      assertThat(typed).isLessThan(1024);
      assertThat(document).isGreaterThan(100L * points); // what it was: the document of every server
    }
  }
}
