package dev.gputop.inference.export;

import dev.gputop.receiver.ExportedCounter;
import dev.gputop.receiver.ExportedHistogram;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.inference.engine.Engine;
import dev.gputop.inference.stats.Efficiency;
import dev.gputop.inference.stats.LatencyStats;
import dev.gputop.inference.stats.ServerCounters;
import dev.gputop.inference.stats.ServerEnergy;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.stats.SloKind;
import dev.gputop.inference.stats.SloStats;
import dev.gputop.inference.window.ServerWindow;
import dev.gputop.receiver.Alert;
import dev.gputop.receiver.ServingOverview;
import io.opentelemetry.api.common.Attributes;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Builds one {@link InferenceSnapshot} from what a refresh learned about each server: the JSON
 * entries (with their models), the gauge points, the {@code up} points, the re-exported
 * histograms, the alerts, the serving overview, health and the PID owners. The one place that
 * turns statistics into outputs; the receiver only hands it a {@link Server} per target.
 *
 * <p>Used by one thread for one refresh, then discarded. Not thread-safe.
 */
public final class SnapshotBuilder {

  /** KV-cache usage from which a server with waiting requests raises {@code kv_cache_full}. */
  public static final double KV_CACHE_FULL = 0.95;

  private final List<ServerEntry> entries = new ArrayList<>();
  private final List<StatsPoint> points = new ArrayList<>();
  private final List<StatsPoint> modelPoints = new ArrayList<>();
  private final List<EfficiencyPoint> efficiency = new ArrayList<>();
  private final Map<Attributes, Long> up = new HashMap<>();
  private final Map<Attributes, Long> info = new HashMap<>();
  private final Map<Attributes, Long> states = new HashMap<>();
  private final List<ExportedHistogram> histograms = new ArrayList<>();
  private final List<ExportedCounter> counters = new ArrayList<>();
  private final List<Alert> alerts = new ArrayList<>();
  private final List<String> unhealthy = new ArrayList<>();
  private final Map<Long, String> owners = new HashMap<>();
  private final Map<Long, dev.gputop.config.PodIdentity> pods = new HashMap<>();
  private final ExportCache cache;

  /** A builder whose attribute sets are built for this refresh only. */
  public SnapshotBuilder() {
    this(new ExportCache());
  }

  /**
   * A builder that takes the servers' attribute sets from {@code cache} (kept by the receiver
   * from one refresh to the next) and builds only those that changed.
   */
  public SnapshotBuilder(ExportCache cache) {
    this.cache = Objects.requireNonNull(cache, "cache");
  }

  /**
   * What one refresh learned about one server; built with {@link #builder}, whose defaults are
   * a server that nothing but its name, URL and source is known of.
   *
   * @param name the server's name
   * @param url its metrics URL
   * @param source where it comes from
   * @param gpus NVML indices of the GPUs its processes use
   * @param pids its processes
   * @param engine the engine of its outputs; its histograms are re-exported only while it is up
   *     and its engine known (not {@link Engine#UNKNOWN})
   * @param state its state
   * @param error why the last scrape failed, or null
   * @param stats the server's statistics ({@link ServerStats#EMPTY} while down)
   * @param models statistics per served model, in the server's order; empty unless it serves
   *     several
   * @param window the server's window, for the re-exported histograms, or null (never scraped)
   * @param pod the Kubernetes pod and container the server runs in, or null: its entry's {@code
   *     kubernetes}, the {@code k8s.*} attributes of its points and histograms, and the pod of its PIDs
   * @param counters its monotonic totals since the agent's first scrape of it, or null for none
   * @param servedModels the models its newest readable scrape names, sorted (one for most
   *     servers; empty when the engine names none): its entry's {@code servedModels} and its
   *     {@code gputop.inference.served_model} points
   * @param efficiency its GPUs' power and energy per token ({@link Efficiency#NONE}: GPUs unknown)
   * @param energy its GPUs' energy since the agent's first sample, or null where none is
   *     attributed to it (GPUs unknown or shared)
   */
  public record Server(
      String name,
      String url,
      ServerSource source,
      List<Integer> gpus,
      List<Long> pids,
      Engine engine,
      ServerState state,
      String error,
      ServerStats stats,
      Map<String, ServerStats> models,
      ServerWindow window,
      dev.gputop.config.PodIdentity pod,
      ServerCounters counters,
      List<String> servedModels,
      Efficiency efficiency,
      ServerEnergy energy) {

    public Server {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(engine, "engine");
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(stats, "stats");
      gpus = List.copyOf(gpus);
      pids = List.copyOf(pids);
      models = new LinkedHashMap<>(models);
      servedModels = List.copyOf(servedModels);
      efficiency = efficiency == null ? Efficiency.NONE : efficiency;
    }

    /**
     * A server of this name, URL and source, up, of an unknown engine, with no GPUs, processes,
     * statistics, models, window, pod, counters, efficiency or energy until set.
     */
    public static Builder builder(String name, String url, ServerSource source) {
      return new Builder(name, url, source);
    }

    boolean down() {
      return state == ServerState.DOWN;
    }

    /** Collects a {@link Server}'s components by name; {@link #build} validates them. */
    public static final class Builder {
      private final String name;
      private final String url;
      private final ServerSource source;
      private List<Integer> gpus = List.of();
      private List<Long> pids = List.of();
      private Engine engine = Engine.UNKNOWN;
      private ServerState state = ServerState.UP;
      private String error;
      private ServerStats stats = ServerStats.EMPTY;
      private Map<String, ServerStats> models = Map.of();
      private ServerWindow window;
      private dev.gputop.config.PodIdentity pod;
      private ServerCounters counters;
      private List<String> servedModels;
      private Efficiency efficiency = Efficiency.NONE;
      private ServerEnergy energy;

      private Builder(String name, String url, ServerSource source) {
        this.name = name;
        this.url = url;
        this.source = source;
      }

      public Builder gpus(List<Integer> gpus) {
        this.gpus = gpus;
        return this;
      }

      public Builder pids(List<Long> pids) {
        this.pids = pids;
        return this;
      }

      public Builder engine(Engine engine) {
        this.engine = engine;
        return this;
      }

      /** The state, and why the last scrape failed (null unless down). */
      public Builder state(ServerState state, String error) {
        this.state = state;
        this.error = error;
        return this;
      }

      public Builder stats(ServerStats stats) {
        this.stats = stats;
        return this;
      }

      public Builder models(Map<String, ServerStats> models) {
        this.models = models;
        return this;
      }

      public Builder window(ServerWindow window) {
        this.window = window;
        return this;
      }

      public Builder pod(dev.gputop.config.PodIdentity pod) {
        this.pod = pod;
        return this;
      }

      public Builder counters(ServerCounters counters) {
        this.counters = counters;
        return this;
      }

      /** The served models; unset, those of {@link #models}. */
      public Builder servedModels(List<String> servedModels) {
        this.servedModels = servedModels;
        return this;
      }

      public Builder efficiency(Efficiency efficiency) {
        this.efficiency = efficiency;
        return this;
      }

      public Builder energy(ServerEnergy energy) {
        this.energy = energy;
        return this;
      }

      public Server build() {
        return new Server(name, url, source, gpus, pids, engine, state, error, stats, models, window, pod,
            counters, servedModels == null ? List.copyOf(models.keySet()) : servedModels, efficiency, energy);
      }
    }
  }

  /** Adds one server, in target order. */
  public void add(Server s) {
    String engine = s.engine().id();
    ExportCache.Server cached = cache.server(s.name(), engine, s.pod());
    List<ModelEntry> models = s.models().isEmpty() ? List.of() : new ArrayList<>(s.models().size());
    for (Map.Entry<String, ServerStats> m : s.models().entrySet()) {
      models.add(new ModelEntry(m.getKey(), engine, s.state(), null, m.getValue()));
      modelPoints.add(cached.point(m.getKey(), m.getValue()));
    }
    // Drift as the newest scrape showed it; a server that is down shows none.
    dev.gputop.inference.engine.Drift drift = s.down() || s.window() == null
        ? dev.gputop.inference.engine.Drift.NONE : s.window().drift();
    entries.add(new ServerEntry(s.name(), engine, s.servedModels(), s.url(), s.source(), s.state(),
        s.error(), s.gpus(), s.pids(), s.stats(), models, ServerEntry.unreadOf(drift),
        ServerEntry.missingOf(drift), s.pod(), Unavailable.of(s.state(), s.stats(), s.window()),
        s.efficiency()));
    points.add(cached.point(null, s.stats()));
    efficiency.add(new EfficiencyPoint(cached.up(), s.efficiency()));
    up.put(cached.up(), s.down() ? 0L : 1L);
    if (s.servedModels().isEmpty()) {
      info.put(cached.info(""), 1L);
    }
    for (String m : s.servedModels()) {
      info.put(cached.info(m), 1L);
    }
    List<Attributes> stateSet = cached.states();
    for (int i = 0; i < stateSet.size(); i++) {
      states.put(stateSet.get(i), i == s.state().ordinal() ? 1L : 0L);
    }
    if (!s.down() && s.engine() != Engine.UNKNOWN && s.window() != null) {
      HistogramExports.addTo(histograms, cached, s.window());
    }
    if (s.counters() != null && s.counters().started()) {
      CounterExports.addTo(counters, cached, s.counters(), s.models().keySet());
    }
    if (s.energy() != null && s.energy().started()) {
      CounterExports.addEnergy(counters, cached, s.energy());
    }
    for (Long pid : s.pids()) {
      if (owners.putIfAbsent(pid, s.name()) == null && s.pod() != null) {
        pods.put(pid, s.pod());
      }
    }
    ServerStats stats = s.stats();
    if (stats.kvCacheUsage() != null && stats.kvCacheUsage() >= KV_CACHE_FULL
        && stats.waiting() != null && stats.waiting() > 0) {
      alerts.add(new Alert("kv_cache_full", s.name(), String.format(Locale.ROOT,
          "KV cache %.0f%% used while %d requests wait", stats.kvCacheUsage() * 100, stats.waiting())));
    }
    String breach = sloBreach(stats);
    if (breach != null) {
      alerts.add(new Alert("slo_breach", s.name(), breach));
    }
    if (s.source() == ServerSource.CONFIGURED && s.down()) {
      String why = "configured endpoint " + s.name() + " (" + s.url() + ") can't be scraped: " + s.error();
      alerts.add(new Alert("inference_unhealthy", s.name(), why));
      unhealthy.add(why);
    }
  }

  /**
   * The {@code slo_breach} message of a server's total, or null: every SLO whose attainment is
   * under its objective while at least {@code minRequests} requests of that latency completed in
   * the window.
   */
  static String sloBreach(ServerStats stats) {
    SloStats slo = stats.slo();
    StringBuilder why = new StringBuilder();
    for (SloKind k : SloKind.ALL) {
      SloStats.Value v = slo.value(k);
      LatencyStats l = k.latency(stats);
      if (v == null || v.attainment() == null || !(v.attainment() < v.objective())
          || l == null || l.count() == null || l.count() < slo.minRequests()) {
        continue;
      }
      why.append(why.length() == 0 ? "" : "; ").append(String.format(Locale.ROOT,
          "%s: %.1f%% of %d requests within %s, objective %s (burn rate %.1fx)",
          k.jsonName(), v.attainment() * 100, l.count(), seconds(v.target()),
          percent(v.objective()), v.burnRate()));
    }
    return why.length() == 0 ? null : "SLO breached: " + why;
  }

  private static String seconds(double s) {
    return s < 1 ? String.format(Locale.ROOT, "%.0f ms", s * 1000) : String.format(Locale.ROOT, "%.3g s", s);
  }

  private static String percent(double f) {
    return new java.math.BigDecimal(Double.toString(f * 100)).stripTrailingZeros().toPlainString() + "%";
  }

  /** The snapshot of every server added, with this refresh's discovery section. */
  public InferenceSnapshot build(DiscoverySection discovery) {
    cache.endRefresh();
    List<StatsPoint> all = new ArrayList<>(points);
    all.addAll(modelPoints);
    HealthStatus health = unhealthy.isEmpty() ? HealthStatus.healthy() : HealthStatus.unhealthy(unhealthy);
    return new InferenceSnapshot(entries, overview(entries), alerts, discovery, health, all, up,
        info, states, histograms, counters, owners, pods, efficiency);
  }

  /**
   * {@code overview.serving}: the worst TTFT p99 and ITL p50, and the totals of generation
   * throughput and waiting requests, over the servers that have them.
   */
  public static ServingOverview overview(List<ServerEntry> servers) {
    Double worstTtft = null;
    Double worstItl = null;
    Double generation = null;
    Integer waiting = null;
    Double worstSlo = null;
    double efficientTokens = 0;
    double watts = 0;
    Map<SloKind, Double> good = new EnumMap<>(SloKind.class);
    for (ServerEntry e : servers) {
      ServerStats s = e.stats();
      Double perToken = e.efficiency().joulesPerGeneratedToken();
      if (perToken != null && s.generationTokensPerSecond() != null) {
        efficientTokens += s.generationTokensPerSecond();
        watts += s.generationTokensPerSecond() * perToken;
      }
      for (SloKind k : SloKind.ALL) {
        SloStats.Value v = s.slo().value(k);
        if (v != null && v.goodRequestsPerSecond() != null) {
          good.merge(k, v.goodRequestsPerSecond(), Double::sum);
        }
      }
      Double w = s.slo().worstAttainment();
      if (w != null) {
        worstSlo = worstSlo == null ? w : Math.min(worstSlo, w);
      }
      worstTtft = max(worstTtft, s.ttft() == null ? null : s.ttft().p99());
      worstItl = max(worstItl, s.itl() == null ? null : s.itl().p50());
      if (s.generationTokensPerSecond() != null) {
        generation = (generation == null ? 0 : generation) + s.generationTokensPerSecond();
      }
      if (s.waiting() != null) {
        waiting = (waiting == null ? 0 : waiting) + s.waiting();
      }
    }
    // The contract's overview is keyed by the SLOs' JSON names (otel-config can't see SloKind).
    Map<String, Double> goodByName = new LinkedHashMap<>();
    good.forEach((k, v) -> goodByName.put(k.jsonName(), v));
    return new ServingOverview(worstTtft, worstItl, generation, waiting, worstSlo,
        watts > 0 ? efficientTokens / watts : null, goodByName);
  }

  private static Double max(Double a, Double b) {
    if (b == null) {
      return a;
    }
    return a == null ? b : Math.max(a, b);
  }
}
