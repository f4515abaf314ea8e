package dev.gputop.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * The last ten minutes of every inference server's and every GPU's values, in memory only: one
 * bounded ring per entity, with one {@code long[]} of times and one {@code float[]} per series,
 * all allocated when the entity is first seen. A point is recorded every {@link #intervalMillis()}
 * (the refresh interval, but never more than {@link #MAX_POINTS} points per span) from the
 * snapshot document, so the history holds exactly what {@code /api/snapshot} showed. A server or
 * GPU that leaves the snapshot keeps its points until they are older than {@link #SPAN}; then it
 * is dropped. At most {@link #MAX_SERVERS} servers and {@link #MAX_GPUS} GPUs are kept; one seen
 * beyond that has no history (logged once).
 *
 * <p>Values are stored as 32-bit floats (about seven significant digits); null (not available) is
 * stored as NaN and read back as null.
 *
 * <p>Thread-safe: the recorder and HTTP threads synchronize on the history.
 *
 * <pre>{@code
 * History h = History.forRefresh(Duration.ofSeconds(3));
 * h.record(System.currentTimeMillis(), runtime.snapshot());
 * ObjectNode doc = h.server("chat-api", System.currentTimeMillis()); // null when unknown
 * }</pre>
 */
final class History {

  private static final Logger logger = Logger.getLogger(History.class.getName());

  /** How far back the history reaches. */
  static final Duration SPAN = Duration.ofMinutes(10);

  /** The most points one series holds over {@link #SPAN} (so at most one every 500 ms). */
  static final int MAX_POINTS = 1200;

  /** The most servers with a history; later ones have none. */
  static final int MAX_SERVERS = 1024;

  /** The most GPUs (and MIG instances) with a history. */
  static final int MAX_GPUS = 256;

  /** A server's series, in the order the JSON lists them, each with where the snapshot has it. */
  enum ServerSeries {
    RUNNING("running", s -> s.get("running")),
    WAITING("waiting", s -> s.get("waiting")),
    KV_CACHE_USAGE("kvCacheUsage", s -> s.get("kvCacheUsage")),
    PREFIX_HIT_RATIO("prefixHitRatio", s -> s.get("prefixHitRatio")),
    REQUESTS_PER_SECOND("requestsPerSecond", s -> s.get("requestsPerSecond")),
    PROMPT_TOKENS_PER_SECOND("promptTokensPerSecond", s -> s.get("promptTokensPerSecond")),
    GENERATION_TOKENS_PER_SECOND("generationTokensPerSecond", s -> s.get("generationTokensPerSecond")),
    PREEMPTIONS_PER_SECOND("preemptionsPerSecond", s -> s.get("preemptionsPerSecond")),
    TTFT_P50("ttftP50", s -> s.path("ttft").get("p50")),
    TTFT_P99("ttftP99", s -> s.path("ttft").get("p99")),
    ITL_P50("itlP50", s -> s.path("itl").get("p50")),
    ITL_P99("itlP99", s -> s.path("itl").get("p99")),
    E2E_P50("e2eP50", s -> s.path("e2e").get("p50")),
    E2E_P99("e2eP99", s -> s.path("e2e").get("p99")),
    QUEUE_P50("queueP50", s -> s.path("queue").get("p50")),
    QUEUE_P99("queueP99", s -> s.path("queue").get("p99"));

    final String json;
    final Function<JsonNode, JsonNode> read;

    ServerSeries(String json, Function<JsonNode, JsonNode> read) {
      this.json = json;
      this.read = read;
    }
  }

  /** A GPU's series, in the order the JSON lists them. */
  enum GpuSeries {
    UTILIZATION("utilization"),
    MEMORY_USED_BYTES("memoryUsedBytes"),
    POWER_WATTS("powerWatts"),
    TEMPERATURE_CELSIUS("temperatureCelsius");

    final String json;

    GpuSeries(String json) {
      this.json = json;
    }
  }

  private static final ServerSeries[] SERVER_SERIES = ServerSeries.values();
  private static final GpuSeries[] GPU_SERIES = GpuSeries.values();

  private final long intervalMillis;
  private final int capacity;
  private final Map<String, Ring> servers = new LinkedHashMap<>();
  private final Map<String, Ring> gpus = new LinkedHashMap<>();
  private boolean serverLimitLogged;
  private boolean gpuLimitLogged;

  private History(long intervalMillis) {
    this.intervalMillis = intervalMillis;
    // One point more than the span holds, so a full ring covers the whole span.
    this.capacity = (int) Math.min(MAX_POINTS + 1, SPAN.toMillis() / intervalMillis + 1);
  }

  /** A history sampled every {@code refresh}, or every 500 ms when the refresh is faster. */
  static History forRefresh(Duration refresh) {
    long floor = SPAN.toMillis() / MAX_POINTS;
    return new History(Math.max(floor, Math.max(1, refresh.toMillis())));
  }

  /** How often a point should be recorded. */
  long intervalMillis() {
    return intervalMillis;
  }

  /** Points one series can hold. */
  int capacity() {
    return capacity;
  }

  /**
   * Records one point per server ({@code inference[].name}) and GPU ({@code gpus[].index}, with
   * {@code :migIndex} for a MIG instance) of {@code snapshot} at {@code epochMillis}, and drops
   * entities whose newest point is older than {@link #SPAN}.
   */
  synchronized void record(long epochMillis, JsonNode snapshot) {
    for (JsonNode s : snapshot.path("inference")) {
      String name = s.path("name").asText(null);
      if (name == null) {
        continue;
      }
      Ring ring = ring(servers, name, SERVER_SERIES.length, MAX_SERVERS, true);
      if (ring != null) {
        int slot = ring.append(epochMillis);
        for (int i = 0; i < SERVER_SERIES.length; i++) {
          ring.values[i][slot] = value(SERVER_SERIES[i].read.apply(s));
        }
      }
    }
    for (JsonNode g : snapshot.path("gpus")) {
      String key = gpuKey(g);
      if (key == null) {
        continue;
      }
      Ring ring = ring(gpus, key, GPU_SERIES.length, MAX_GPUS, false);
      if (ring != null) {
        int slot = ring.append(epochMillis);
        for (int i = 0; i < GPU_SERIES.length; i++) {
          ring.values[i][slot] = value(g.get(GPU_SERIES[i].json));
        }
      }
    }
    long oldest = epochMillis - SPAN.toMillis();
    servers.values().removeIf(r -> r.newest() < oldest);
    gpus.values().removeIf(r -> r.newest() < oldest);
  }

  /** The history document of one server as of {@code nowMillis}, or null when it has none. */
  synchronized ObjectNode server(String name, long nowMillis) {
    Ring ring = servers.get(name);
    if (ring == null) {
      return null;
    }
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    doc.put("server", name);
    String[] names = new String[SERVER_SERIES.length];
    for (int i = 0; i < names.length; i++) {
      names[i] = SERVER_SERIES[i].json;
    }
    fill(doc, ring, names, nowMillis);
    return doc;
  }

  /** The history document of one GPU ({@code 0}, or {@code 0:1} for a MIG instance), or null. */
  synchronized ObjectNode gpu(String key, long nowMillis) {
    Ring ring = gpus.get(key);
    if (ring == null) {
      return null;
    }
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    doc.put("gpu", key);
    String[] names = new String[GPU_SERIES.length];
    for (int i = 0; i < names.length; i++) {
      names[i] = GPU_SERIES[i].json;
    }
    fill(doc, ring, names, nowMillis);
    return doc;
  }

  /** What has a history: the servers' names and the GPUs' keys, oldest first. */
  synchronized ObjectNode index() {
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    header(doc);
    ArrayNode s = doc.putArray("servers");
    servers.keySet().forEach(s::add);
    ArrayNode g = doc.putArray("gpus");
    gpus.keySet().forEach(g::add);
    return doc;
  }

  /** The servers with a history, oldest first. */
  synchronized List<String> serverNames() {
    return List.copyOf(new ArrayList<>(servers.keySet()));
  }

  /**
   * The bytes the rings' arrays take on the heap (array headers and elements, as a 64-bit JVM
   * with compressed oops lays them out), for docs/PERFORMANCE.md.
   */
  synchronized long arrayBytes() {
    long total = 0;
    for (Ring r : servers.values()) {
      total += r.arrayBytes();
    }
    for (Ring r : gpus.values()) {
      total += r.arrayBytes();
    }
    return total;
  }

  /** The key of a GPU entry: its index, with {@code :migIndex} for a MIG instance; null without an index. */
  static String gpuKey(JsonNode gpu) {
    JsonNode index = gpu.get("index");
    if (index == null || !index.canConvertToInt()) {
      return null;
    }
    JsonNode mig = gpu.get("migIndex");
    return mig != null && mig.canConvertToInt() ? index.asInt() + ":" + mig.asInt() : Integer.toString(index.asInt());
  }

  private void header(ObjectNode doc) {
    doc.put("intervalSeconds", intervalMillis / 1000.0);
    doc.put("spanSeconds", SPAN.toSeconds());
  }

  private void fill(ObjectNode doc, Ring ring, String[] names, long nowMillis) {
    header(doc);
    long oldest = nowMillis - SPAN.toMillis();
    ArrayNode times = doc.putArray("times");
    ObjectNode series = doc.putObject("series");
    ArrayNode[] columns = new ArrayNode[names.length];
    for (int i = 0; i < names.length; i++) {
      columns[i] = series.putArray(names[i]);
    }
    for (int k = 0; k < ring.size; k++) {
      int slot = ring.slot(k);
      long t = ring.times[slot];
      if (t < oldest || t > nowMillis) {
        continue;
      }
      times.add(t);
      for (int i = 0; i < names.length; i++) {
        float v = ring.values[i][slot];
        if (Float.isNaN(v)) {
          columns[i].addNull();
        } else {
          columns[i].add(v);
        }
      }
    }
  }

  private Ring ring(Map<String, Ring> map, String key, int series, int max, boolean isServer) {
    Ring ring = map.get(key);
    if (ring != null) {
      return ring;
    }
    if (map.size() >= max) {
      if (isServer ? !serverLimitLogged : !gpuLimitLogged) {
        logger.warning(() -> "history: more than " + max + (isServer ? " servers" : " GPUs")
            + "; " + key + " and any later ones have no history");
        if (isServer) {
          serverLimitLogged = true;
        } else {
          gpuLimitLogged = true;
        }
      }
      return null;
    }
    ring = new Ring(capacity, series);
    map.put(key, ring);
    return ring;
  }

  private static float value(JsonNode v) {
    return v == null || !v.isNumber() ? Float.NaN : (float) v.asDouble();
  }

  /** Fixed-size rings of times and values, oldest overwritten first. Guarded by the History. */
  private static final class Ring {
    final long[] times;
    final float[][] values;
    /** Where the oldest point is. */
    int head;
    int size;

    Ring(int capacity, int series) {
      times = new long[capacity];
      values = new float[series][capacity];
    }

    /** Makes room for a point at {@code t} and returns its slot. */
    int append(long t) {
      int slot;
      if (size < times.length) {
        slot = (head + size) % times.length;
        size++;
      } else {
        slot = head;
        head = (head + 1) % times.length;
      }
      times[slot] = t;
      return slot;
    }

    int slot(int k) {
      return (head + k) % times.length;
    }

    long newest() {
      return size == 0 ? Long.MIN_VALUE : times[slot(size - 1)];
    }

    long arrayBytes() {
      long bytes = align(16 + 8L * times.length) + align(16 + 4L * values.length);
      for (float[] v : values) {
        bytes += align(16 + 4L * v.length);
      }
      return bytes;
    }

    private static long align(long bytes) {
      return (bytes + 7) / 8 * 8;
    }
  }

  /** For iteration in tests: the series names of a server, in JSON order. */
  static List<String> serverSeriesNames() {
    List<String> out = new ArrayList<>();
    for (ServerSeries s : SERVER_SERIES) {
      out.add(s.json);
    }
    return out;
  }

  /** For iteration in tests: the series names of a GPU, in JSON order. */
  static List<String> gpuSeriesNames() {
    List<String> out = new ArrayList<>();
    for (GpuSeries s : GPU_SERIES) {
      out.add(s.json);
    }
    return out;
  }
}
