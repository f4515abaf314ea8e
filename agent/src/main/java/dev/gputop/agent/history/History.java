package dev.gputop.agent.history;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.GpuReport;
import dev.gputop.receiver.ServerReport;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * The last ten minutes of every inference server's and every GPU's values, in memory only: one
 * bounded ring per entity, with one {@code long[]} of times and one {@code float[]} per series,
 * all allocated when the entity is first seen. A point is recorded every {@link #intervalMillis()}
 * (the refresh interval, but never more than {@link #MAX_POINTS} points per span) from what the
 * receivers contributed: their entries read in place as {@link ServerReport} and {@link
 * GpuReport}, without building JSON, with the document's rules, so the history holds exactly what
 * {@code /api/snapshot} shows for the same state. A server or
 * GPU that leaves the snapshot keeps its points until they are older than {@link #SPAN}; then it
 * is dropped. At most {@link #MAX_SERVERS} servers and {@link #MAX_GPUS} GPUs are kept; one seen
 * beyond that has no history (logged once).
 *
 * <p>Values are stored as 32-bit floats (about seven significant digits); null (not available) and
 * the non-finite numbers the snapshot shows as null are stored as NaN and read back as null.
 *
 * <p>Thread-safe: the recorder and HTTP threads synchronize on the history.
 *
 * <pre>{@code
 * History h = History.forRefresh(Duration.ofSeconds(3));
 * h.record(System.currentTimeMillis(), runtime.contributions());
 * ObjectNode doc = h.server("chat-api", System.currentTimeMillis()); // null when unknown
 * }</pre>
 */
public final class History {

  private static final Logger logger = Logger.getLogger(History.class.getName());

  /** How far back the history reaches. */
  static final Duration SPAN = Duration.ofMinutes(10);

  /** The most points one series holds over {@link #SPAN} (so at most one every 500 ms). */
  static final int MAX_POINTS = 1200;

  /** The most servers with a history; later ones have none. */
  static final int MAX_SERVERS = 1024;

  /** The most GPUs (and MIG instances) with a history. */
  static final int MAX_GPUS = 256;

  /**
   * A server's series, in the order the JSON lists them, each with the statistic it charts ({@link
   * ServerReport.Stats}, written unwrapped into the server's entry).
   */
  enum ServerSeries {
    RUNNING("running", ServerReport.Stats::running),
    WAITING("waiting", ServerReport.Stats::waiting),
    KV_CACHE_USAGE("kvCacheUsage", ServerReport.Stats::kvCacheUsage),
    PREFIX_HIT_RATIO("prefixHitRatio", ServerReport.Stats::prefixHitRatio),
    REQUESTS_PER_SECOND("requestsPerSecond", ServerReport.Stats::requestsPerSecond),
    PROMPT_TOKENS_PER_SECOND("promptTokensPerSecond", ServerReport.Stats::promptTokensPerSecond),
    GENERATION_TOKENS_PER_SECOND("generationTokensPerSecond", ServerReport.Stats::generationTokensPerSecond),
    PREEMPTIONS_PER_SECOND("preemptionsPerSecond", ServerReport.Stats::preemptionsPerSecond),
    TTFT_P50("ttftP50", s -> p50(s.ttft())),
    TTFT_P99("ttftP99", s -> p99(s.ttft())),
    ITL_P50("itlP50", s -> p50(s.itl())),
    ITL_P99("itlP99", s -> p99(s.itl())),
    E2E_P50("e2eP50", s -> p50(s.e2e())),
    E2E_P99("e2eP99", s -> p99(s.e2e())),
    QUEUE_P50("queueP50", s -> p50(s.queue())),
    QUEUE_P99("queueP99", s -> p99(s.queue()));

    final String json;
    /** The statistic as the receiver published it (already boxed there: reading allocates nothing). */
    final Function<ServerReport.Stats, Number> typed;

    ServerSeries(String json, Function<ServerReport.Stats, Number> typed) {
      this.json = json;
      this.typed = typed;
    }

    private static Double p50(ServerReport.Latency l) {
      return l == null ? null : l.p50();
    }

    private static Double p99(ServerReport.Latency l) {
      return l == null ? null : l.p99();
    }
  }

  /** A GPU's series, in the order the JSON lists them, each with the entry's field it is. */
  enum GpuSeries {
    UTILIZATION("utilization", GpuReport::utilization),
    MEMORY_USED_BYTES("memoryUsedBytes", GpuReport::memoryUsedBytes),
    POWER_WATTS("powerWatts", GpuReport::powerWatts),
    TEMPERATURE_CELSIUS("temperatureCelsius", GpuReport::temperatureCelsius);

    final String json;
    final Function<GpuReport, Number> typed;

    GpuSeries(String json, Function<GpuReport, Number> typed) {
      this.json = json;
      this.typed = typed;
    }
  }

  private static final ServerSeries[] SERVER_SERIES = ServerSeries.values();
  private static final GpuSeries[] GPU_SERIES = GpuSeries.values();
  /** The series' JSON names, in order: the columns of each document, named once. */
  private static final String[] SERVER_NAMES = Arrays.stream(SERVER_SERIES).map(s -> s.json).toArray(String[]::new);
  private static final String[] GPU_NAMES = Arrays.stream(GPU_SERIES).map(s -> s.json).toArray(String[]::new);

  private final long intervalMillis;
  private final int capacity;
  private final Map<String, Ring> servers = new LinkedHashMap<>();
  private final Map<String, Ring> gpus = new LinkedHashMap<>();
  /** Keys of GPUs 0-63 and of their MIG instances 0-7, made once, so a record builds no strings. */
  private final String[] gpuKeys = new String[64 * 9];
  private boolean serverLimitLogged;
  private boolean gpuLimitLogged;

  private History(long intervalMillis) {
    this.intervalMillis = intervalMillis;
    // One point more than the span holds, so a full ring covers the whole span.
    this.capacity = (int) Math.min(MAX_POINTS + 1, SPAN.toMillis() / intervalMillis + 1);
  }

  /** A history sampled every {@code refresh}, or every 500 ms when the refresh is faster. */
  public static History forRefresh(Duration refresh) {
    long floor = SPAN.toMillis() / MAX_POINTS;
    return new History(Math.max(floor, Math.max(1, refresh.toMillis())));
  }

  /** How often a point should be recorded. */
  public long intervalMillis() {
    return intervalMillis;
  }

  /** Points one series can hold. */
  int capacity() {
    return capacity;
  }

  /**
   * Records one point per server ({@code inference[].name}) and GPU ({@code gpus[].index}, with
   * {@code :migIndex} for a MIG instance) of the receivers' contributions, in receiver start order
   * as the snapshot lists them, at {@code epochMillis}, with the document's rules (N/A and
   * non-finite: NaN, read back as null); then drops entities whose newest point is older than
   * {@link #SPAN}. Allocates nothing per point once the entities have their rings.
   */
  public synchronized void record(long epochMillis, List<Contribution> contributions) {
    for (int k = 0; k < contributions.size(); k++) {
      List<ServerReport> servers = contributions.get(k).servers();
      for (int e = 0; e < servers.size(); e++) {
        recordServer(epochMillis, servers.get(e));
      }
    }
    for (int k = 0; k < contributions.size(); k++) {
      List<GpuReport> gpus = contributions.get(k).gpus();
      for (int e = 0; e < gpus.size(); e++) {
        recordGpu(epochMillis, gpus.get(e));
      }
    }
    dropOlderThan(epochMillis - SPAN.toMillis());
  }

  private void recordServer(long epochMillis, ServerReport s) {
    if (s.name() == null) {
      return; // the document's entry has no name either: no history, as there
    }
    Ring ring = ring(servers, s.name(), SERVER_SERIES.length, MAX_SERVERS, true);
    if (ring == null) {
      return;
    }
    int slot = ring.append(epochMillis);
    ServerReport.Stats stats = s.stats();
    for (int i = 0; i < SERVER_SERIES.length; i++) {
      ring.values[i][slot] = stats == null ? Float.NaN : value(SERVER_SERIES[i].typed.apply(stats));
    }
  }

  private void recordGpu(long epochMillis, GpuReport g) {
    Ring ring = ring(gpus, gpuKey(g.index(), g.migIndex()), GPU_SERIES.length, MAX_GPUS, false);
    if (ring == null) {
      return;
    }
    int slot = ring.append(epochMillis);
    for (int i = 0; i < GPU_SERIES.length; i++) {
      ring.values[i][slot] = value(GPU_SERIES[i].typed.apply(g));
    }
  }

  private void dropOlderThan(long oldest) {
    servers.values().removeIf(r -> r.newest() < oldest);
    gpus.values().removeIf(r -> r.newest() < oldest);
  }

  /** The history document of one server as of {@code nowMillis}, or null when it has none. */
  public synchronized ObjectNode server(String name, long nowMillis) {
    return document("server", name, servers.get(name), SERVER_NAMES, nowMillis);
  }

  /** The history document of one GPU ({@code 0}, or {@code 0:1} for a MIG instance), or null. */
  public synchronized ObjectNode gpu(String key, long nowMillis) {
    return document("gpu", key, gpus.get(key), GPU_NAMES, nowMillis);
  }

  /** The document of one entity ({@code field} names it {@code key}) with {@code names}' series, or null without a ring. */
  private ObjectNode document(String field, String key, Ring ring, String[] names, long nowMillis) {
    if (ring == null) {
      return null;
    }
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    doc.put(field, key);
    fill(doc, ring, names, nowMillis);
    return doc;
  }

  /** What has a history: the servers' names and the GPUs' keys, oldest first. */
  public synchronized ObjectNode index() {
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    header(doc);
    ArrayNode s = doc.putArray("servers");
    servers.keySet().forEach(s::add);
    ArrayNode g = doc.putArray("gpus");
    gpus.keySet().forEach(g::add);
    return doc;
  }

  /** The servers with a history, oldest first. */
  public synchronized List<String> serverNames() {
    return List.copyOf(servers.keySet());
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

  /** The key of a GPU's history: its index, with {@code :migIndex} for a MIG instance. */
  public static String gpuKeyText(int index, Integer mig) {
    return mig != null ? index + ":" + mig : Integer.toString(index);
  }

  /** {@link #gpuKeyText}, made once per key. Guarded by the History. */
  private String gpuKey(int index, Integer mig) {
    if (index < 0 || index >= 64 || (mig != null && (mig < 0 || mig > 7))) {
      return gpuKeyText(index, mig);
    }
    int k = index * 9 + (mig == null ? 0 : mig + 1);
    String key = gpuKeys[k];
    if (key == null) {
      key = gpuKeyText(index, mig);
      gpuKeys[k] = key;
    }
    return key;
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

  /**
   * A value as a client reads it from the snapshot: through {@code double} (so a {@code long}
   * rounds exactly as the document's number does), with null and non-finite values (null in the
   * document) as NaN.
   */
  private static float value(Number n) {
    if (n == null) {
      return Float.NaN;
    }
    double d = n.doubleValue();
    return Double.isFinite(d) ? (float) d : Float.NaN;
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
    return List.of(SERVER_NAMES);
  }

  /** For iteration in tests: the series names of a GPU, in JSON order. */
  static List<String> gpuSeriesNames() {
    return List.of(GPU_NAMES);
  }
}
