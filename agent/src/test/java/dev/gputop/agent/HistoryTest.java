package dev.gputop.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HistoryTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long T0 = 1_780_000_000_000L;

  private static ObjectNode snapshot(List<Map<String, Object>> servers, List<Map<String, Object>> gpus) {
    ObjectNode doc = JSON.createObjectNode();
    doc.set("inference", JSON.valueToTree(servers));
    doc.set("gpus", JSON.valueToTree(gpus));
    return doc;
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
        ObjectNode snap = snapshot(servers, gpus);
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
}
