package dev.gputop.agent;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.GpuReport;
import dev.gputop.receiver.ServerReport;
import java.util.List;
import java.util.Map;

/**
 * Entries of a receiver other than the agent's own: written as the maps they wrap (any shape a
 * test needs, valid or not) and read through the contract's interfaces from the same maps, as a
 * third receiver's entry types would be. Reading allocates nothing (the history's allocation tests
 * use them): a number of the map's own type is returned as it is, latencies are read once.
 */
public final class MapEntries {

  private MapEntries() {}

  /** An {@code inference[]} entry written as {@code fields}. */
  public static Server server(Map<String, Object> fields) {
    return new Server(fields);
  }

  /** A {@code gpus[]} entry written as {@code fields}. */
  public static Gpu gpu(Map<String, Object> fields) {
    return new Gpu(fields);
  }

  /** A contribution of these servers only. */
  public static Contribution servers(List<Map<String, Object>> servers) {
    return Contribution.ofServers(servers.stream().map(MapEntries::server).toList(), List.of(), null, Map.of());
  }

  /** A contribution of these GPUs only. */
  public static Contribution gpus(List<Map<String, Object>> gpus) {
    return Contribution.ofGpus(gpus.stream().map(MapEntries::gpu).toList(), List.of());
  }

  public static final class Server implements ServerReport, ServerReport.Stats {
    private final Map<String, Object> fields;
    private final Latency ttft;
    private final Latency itl;
    private final Latency e2e;
    private final Latency queue;

    Server(Map<String, Object> fields) {
      this.fields = fields;
      this.ttft = latency(fields.get("ttft"));
      this.itl = latency(fields.get("itl"));
      this.e2e = latency(fields.get("e2e"));
      this.queue = latency(fields.get("queue"));
    }

    @JsonValue
    Map<String, Object> fields() {
      return fields;
    }

    @Override
    public String name() {
      Object v = fields.get("name");
      return v == null ? null : v.toString();
    }

    @Override
    public Stats stats() {
      return this;
    }

    @Override
    public Integer running() {
      return integer(fields.get("running"));
    }

    @Override
    public Integer waiting() {
      return integer(fields.get("waiting"));
    }

    @Override
    public Double kvCacheUsage() {
      return real(fields.get("kvCacheUsage"));
    }

    @Override
    public Double prefixHitRatio() {
      return real(fields.get("prefixHitRatio"));
    }

    @Override
    public Double requestsPerSecond() {
      return real(fields.get("requestsPerSecond"));
    }

    @Override
    public Double promptTokensPerSecond() {
      return real(fields.get("promptTokensPerSecond"));
    }

    @Override
    public Double generationTokensPerSecond() {
      return real(fields.get("generationTokensPerSecond"));
    }

    @Override
    public Double preemptionsPerSecond() {
      return real(fields.get("preemptionsPerSecond"));
    }

    @Override
    public Latency ttft() {
      return ttft;
    }

    @Override
    public Latency itl() {
      return itl;
    }

    @Override
    public Latency e2e() {
      return e2e;
    }

    @Override
    public Latency queue() {
      return queue;
    }

    private static Latency latency(Object value) {
      if (!(value instanceof Map<?, ?> m)) {
        return null;
      }
      return new Quantiles(real(m.get("p50")), real(m.get("p99")));
    }

    private record Quantiles(Double p50, Double p99) implements Latency {}
  }

  public static final class Gpu implements GpuReport {
    private final Map<String, Object> fields;

    Gpu(Map<String, Object> fields) {
      this.fields = fields;
    }

    @JsonValue
    Map<String, Object> fields() {
      return fields;
    }

    @Override
    public int index() {
      return ((Number) fields.get("index")).intValue();
    }

    @Override
    public Integer migIndex() {
      return integer(fields.get("migIndex"));
    }

    @Override
    public Double utilization() {
      return real(fields.get("utilization"));
    }

    @Override
    public Long memoryUsedBytes() {
      Object v = fields.get("memoryUsedBytes");
      return v instanceof Long l ? l : v instanceof Number n ? n.longValue() : null;
    }

    @Override
    public Double powerWatts() {
      return real(fields.get("powerWatts"));
    }

    @Override
    public Integer temperatureCelsius() {
      return integer(fields.get("temperatureCelsius"));
    }
  }

  private static Integer integer(Object v) {
    return v instanceof Integer i ? i : v instanceof Number n ? n.intValue() : null;
  }

  private static Double real(Object v) {
    return v instanceof Double d ? d : v instanceof Number n ? n.doubleValue() : null;
  }
}
