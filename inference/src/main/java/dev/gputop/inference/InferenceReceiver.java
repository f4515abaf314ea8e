package dev.gputop.inference;

import dev.gputop.config.Endpoint;
import dev.gputop.config.InferenceConfig;
import dev.gputop.config.logging.FailureLog;
import dev.gputop.config.services.GpuPowerSource;
import dev.gputop.config.services.ProcessOwnerLookup;
import dev.gputop.inference.discovery.DiscoveredServer;
import dev.gputop.inference.discovery.DiscoveryResult;
import dev.gputop.inference.discovery.ServerDiscovery;
import dev.gputop.inference.engine.Engine;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.export.DiscoverySection;
import dev.gputop.inference.export.ExportCache;
import dev.gputop.inference.export.InferenceMetrics;
import dev.gputop.inference.export.InferenceSnapshot;
import dev.gputop.inference.export.ServerSource;
import dev.gputop.inference.export.ServerState;
import dev.gputop.inference.export.SnapshotBuilder;
import dev.gputop.inference.parse.ExpositionFormatException;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.parse.ParserTables;
import dev.gputop.inference.scrape.HttpScraper;
import dev.gputop.inference.scrape.ScrapeResult;
import dev.gputop.inference.scrape.Scraper;
import dev.gputop.inference.stats.Efficiency;
import dev.gputop.inference.stats.Quantiles;
import dev.gputop.inference.stats.ServerCounters;
import dev.gputop.inference.stats.ServerEnergy;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.stats.WindowStatistics;
import dev.gputop.inference.window.ServerWindow;
import dev.gputop.receiver.Clock;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.ExportedCounter;
import dev.gputop.receiver.ExportedHistogram;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.Receiver;
import io.opentelemetry.api.OpenTelemetry;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The inference receiver: on each refresh it gathers the targets (configured endpoints, then
 * discovered servers whose URL is not configured), scrapes them all, parses each body with that
 * server's own {@link ExpositionParser}, maps it to concepts ({@link EngineMapper}), adds it to
 * the server's {@link ServerWindow}, computes {@link WindowStatistics} and hands each server to a
 * {@link SnapshotBuilder}, which turns them into the one immutable {@link InferenceSnapshot} it
 * publishes (entries, points, alerts, overview). It orchestrates; the stages own their work. Servers that are no longer targets are dropped at once, with their
 * window and parser, so state is bounded by the number of live servers.
 *
 * <p>Threading: {@link #refresh()} runs on one agent thread at a time; every other method, the
 * metric callbacks and {@link #serverFor(long)} read the latest snapshot through an {@link
 * AtomicReference} and never block. Thread-safe.
 */
final class InferenceReceiver implements Receiver, ProcessOwnerLookup {

  private static final Logger logger = Logger.getLogger(InferenceReceiver.class.getName());

  private final InferenceConfig config;
  /** {@code inference.quantiles}, which every latency reports. */
  private final Quantiles quantiles;
  private final Scraper scraper;
  private final ServerDiscovery discovery;
  private final Clock clock;
  /** Unexpected errors of a cycle's stages (bugs): logged with a trace, throttled per stage. */
  private final FailureLog failures;
  private final int maxScrapes;
  /** The servers' attribute sets, kept from one refresh to the next (refresh thread only). */
  private final ExportCache exportCache = new ExportCache();
  private final EngineMapper mapper;
  private final Map<String, Tracked> states = new LinkedHashMap<>();
  private final AtomicReference<InferenceSnapshot> snapshot =
      new AtomicReference<>(InferenceSnapshot.empty());
  private final InferenceMetrics metrics;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** The NVML receiver's GPU readings, looked up each cycle (null: none, no NVML receiver). */
  private volatile Supplier<GpuPowerSource> gpuPower = () -> null;

  /**
   * @param config {@code inference.*}
   * @param refresh {@code refresh.normal}, to size each server's ring of scrapes
   * @param scraper scrapes every target of a cycle; closed with the receiver
   * @param discovery finds local servers, or null for none; closed with the receiver
   * @param clock the agent's clock; windows are keyed by its monotonic time
   * @param openTelemetry where the gauges are registered
   */
  InferenceReceiver(
      InferenceConfig config,
      Duration refresh,
      Scraper scraper,
      ServerDiscovery discovery,
      Clock clock,
      OpenTelemetry openTelemetry) {
    this(config, refresh, scraper, discovery, clock, openTelemetry, new EngineMapper());
  }

  /** A receiver that maps with these engine profiles (the built-in ones and the user's). */
  InferenceReceiver(
      InferenceConfig config,
      Duration refresh,
      Scraper scraper,
      ServerDiscovery discovery,
      Clock clock,
      OpenTelemetry openTelemetry,
      EngineMapper mapper) {
    this.mapper = Objects.requireNonNull(mapper, "mapper");
    this.config = Objects.requireNonNull(config, "config");
    this.quantiles = Quantiles.of(config.quantiles());
    this.scraper = Objects.requireNonNull(scraper, "scraper");
    this.discovery = discovery;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.failures = FailureLog.create(logger, clock);
    // Enough slots for the window at the refresh rate, with slack for jitter; never unbounded.
    long perWindow = config.window().toNanos() / Math.max(1, refresh.toNanos());
    this.maxScrapes = (int) Math.max(4, Math.min(1024, perWindow * 2 + 4));
    this.metrics = new InferenceMetrics(openTelemetry, snapshot::get);
  }

  /**
   * Reads each server's GPUs (power, energy) from {@code source} on every cycle, for the servers'
   * {@code efficiency}; the supplier may give null (no NVML receiver). Returns this receiver.
   */
  InferenceReceiver withGpuPower(Supplier<GpuPowerSource> source) {
    this.gpuPower = Objects.requireNonNull(source, "source");
    return this;
  }

  @Override
  public String name() {
    return "inference";
  }

  @Override
  public void refresh() {
    if (closed.get()) {
      return;
    }
    try {
      cycle();
      failures.success("refresh", "Inference refresh");
    } catch (RuntimeException e) {
      // A bug must not stop the agent's scheduler: say so in health and keep the last values.
      failures.failure("refresh", "Inference refresh", e);
      snapshot.set(snapshot.get().withHealth(
          HealthStatus.unhealthy(List.of("internal error in the inference receiver: " + e))));
    }
  }

  /**
   * One target of a cycle: the endpoint as configured or discovered (never copied), and what
   * discovery found about it this cycle (null when it did not find a configured endpoint).
   */
  private record Target(Endpoint endpoint, ServerSource source, DiscoveredServer found) {
    String name() {
      return endpoint.name();
    }

    URI url() {
      return endpoint.url();
    }

    String key() {
      return source.jsonName() + " " + endpoint.name() + " " + endpoint.url();
    }

    /** The GPUs configured for the endpoint ({@code gpus:}), else those discovery found. */
    List<Integer> gpus() {
      if (!endpoint.gpus().isEmpty()) {
        return endpoint.gpus();
      }
      return found == null ? List.of() : found.gpus();
    }

    List<Long> pids() {
      return found == null ? List.of() : found.pids();
    }

    dev.gputop.config.PodIdentity pod() {
      return found == null ? null : found.pod();
    }
  }

  private void cycle() {
    long nanos = clock.nanoTime();
    long epoch = clock.epochNanos();
    DiscoveryResult found = discover();
    List<String> notes = new ArrayList<>(found.notes());
    List<Target> targets = targets(found, notes);

    // Each body is parsed by its server's state as the scraper reads it, so a body the parser
    // refuses is a malformed scrape in the scrape counters too (docs/scraping.md, "Outcomes").
    Map<Endpoint, Tracked> readers = new HashMap<>();
    for (Target t : targets) {
      readers.putIfAbsent(t.endpoint(), states.computeIfAbsent(t.key(), k -> newState(t)));
    }
    Map<Endpoint, ScrapeResult> results = scrape(targets, r -> {
      Tracked reader = readers.get(r.target());
      return reader == null ? null : reader.read(r, mapper);
    });

    GpuPowerSource.Readings readings = readings();
    // A GPU that runs two servers can't have its energy split between them (docs/inference.md).
    Map<Integer, Integer> serversPerGpu = new HashMap<>();
    for (Target t : targets) {
      for (Integer g : new HashSet<>(t.gpus())) {
        serversPerGpu.merge(g, 1, Integer::sum);
      }
    }

    Set<String> live = new HashSet<>();
    SnapshotBuilder out = new SnapshotBuilder(exportCache);
    for (Target t : targets) {
      live.add(t.key());
      Tracked st = states.get(t.key());
      st.accept(results.get(t.endpoint()), nanos, epoch, mapper);
      List<Integer> gpus = t.gpus();
      boolean shared = false;
      for (Integer g : gpus) {
        shared |= serversPerGpu.getOrDefault(g, 0) > 1;
      }
      if (st.addedNanos != 0 && !gpus.isEmpty()) {
        st.energy.add(st.addedNanos, st.addedEpochNanos, gpus, shared, readings, st.counters);
      }
      ServerEnergy.Window energyWindow = null;
      if (st.window.size() > 0 && st.energy.started()) {
        st.energy.trim(st.window.nanos(0));
        energyWindow = st.energy.window(st.window.nanos(0));
      }

      ServerState state = st.state();
      boolean down = state == ServerState.DOWN;
      List<String> served = st.window.models();
      String engine = st.outputEngine.id();
      // A server's total is matched with its model when it serves one (docs/inference.md).
      String onlyModel = served.size() == 1 && !served.get(0).isEmpty() ? served.get(0) : null;
      ServerStats stats = down ? ServerStats.EMPTY : WindowStatistics.compute(st.window, null,
          config.slo().resolve(t.name(), engine, onlyModel, t.endpoint().slo()), quantiles);
      Map<String, ServerStats> models = new LinkedHashMap<>();
      if (!down && served.size() > 1) {
        for (String model : served) {
          models.put(model, WindowStatistics.compute(st.window, model,
              config.slo().resolve(t.name(), engine, model, t.endpoint().slo()), quantiles));
        }
      }
      Efficiency efficiency = Efficiency.of(gpus, shared, readings, energyWindow,
          stats.generationTokensPerSecond(), config.costPerGpuHour());
      out.add(SnapshotBuilder.Server.builder(t.name(), t.url().toString(), t.source())
          .gpus(gpus).pids(t.pids()).engine(st.outputEngine).state(state, st.error).stats(stats)
          .models(models).window(st.window).pod(t.pod()).counters(st.counters).servedModels(served)
          .efficiency(efficiency).energy(gpus.isEmpty() || shared ? null : st.energy).build());
    }
    // Servers that left discovery (or config) leave now, with everything they held.
    states.keySet().retainAll(live);

    snapshot.set(out.build(new DiscoverySection(found.skipped(), notes)));
  }

  /** NVML's latest readings, or none (no NVML receiver, or it failed). */
  private GpuPowerSource.Readings readings() {
    try {
      GpuPowerSource source = gpuPower.get();
      GpuPowerSource.Readings r = source == null ? null : source.gpuReadings();
      failures.success("gpus", "Reading the GPUs' power");
      return r == null ? GpuPowerSource.Readings.NONE : r;
    } catch (RuntimeException e) {
      failures.failure("gpus", "Reading the GPUs' power", e);
      return GpuPowerSource.Readings.NONE;
    }
  }

  /**
   * Scrapes every target's endpoint as it is and returns each result under the endpoint it
   * carries; a target without a result (a scraper that failed) is "not scraped".
   */
  private Map<Endpoint, ScrapeResult> scrape(List<Target> targets, Scraper.BodyReader reader) {
    if (targets.isEmpty()) {
      return Map.of();
    }
    List<Endpoint> endpoints = new ArrayList<>(targets.size());
    for (Target t : targets) {
      endpoints.add(t.endpoint());
    }
    Map<Endpoint, ScrapeResult> byTarget = new HashMap<>();
    try {
      for (ScrapeResult r : scraper.scrapeAll(endpoints, reader)) {
        byTarget.putIfAbsent(r.target(), r);
      }
      failures.success("scrape", "Scrape cycle");
    } catch (RuntimeException e) {
      failures.failure("scrape", "Scrape cycle", e);
    }
    return byTarget;
  }

  private DiscoveryResult discover() {
    if (discovery == null) {
      return DiscoveryResult.empty();
    }
    try {
      DiscoveryResult r = discovery.discover();
      failures.success("discovery", "Discovery");
      return r == null ? DiscoveryResult.empty() : r;
    } catch (RuntimeException e) {
      failures.failure("discovery", "Discovery", e);
      return new DiscoveryResult(List.of(), List.of(), List.of("discovery failed: " + e));
    }
  }

  /** Configured endpoints first, then discovered servers that are not configured under their URL. */
  private List<Target> targets(DiscoveryResult found, List<String> notes) {
    Map<String, DiscoveredServer> byUrl = new HashMap<>();
    for (DiscoveredServer d : found.servers()) {
      byUrl.putIfAbsent(sameUrl(d.url()), d);
    }
    List<Target> out = new ArrayList<>();
    Set<String> urls = new HashSet<>();
    Set<String> names = new HashSet<>();
    for (Endpoint e : config.endpoints()) {
      String u = sameUrl(e.url());
      // A configured endpoint that discovery also found gets its GPUs and PIDs.
      DiscoveredServer d = byUrl.get(u);
      out.add(new Target(e, ServerSource.CONFIGURED, d));
      urls.add(u);
      names.add(e.name());
    }
    for (DiscoveredServer d : found.servers()) {
      String u = sameUrl(d.url());
      if (!urls.add(u)) {
        continue; // configured under its URL, or found twice
      }
      if (!names.add(d.name())) {
        notes.add("discovered " + d.name() + " at " + d.url()
            + " is not scraped: another server already has that name");
        continue;
      }
      out.add(new Target(d.endpoint(), ServerSource.DISCOVERED, d));
    }
    return out;
  }

  /**
   * URLs are the same server when they differ only in letter case of scheme and host, in an
   * explicit default port, or in the name of this machine's loopback address: {@code localhost},
   * {@code 127.0.0.1} and {@code [::1]} (a configured {@code http://localhost:8000/metrics} is the
   * server that discovery finds at {@code http://127.0.0.1:8000/metrics}; scraping it twice would
   * count its load twice in the overview).
   */
  static String sameUrl(URI url) {
    URI n = url.normalize();
    String scheme = n.getScheme() == null ? "" : n.getScheme().toLowerCase(Locale.ROOT);
    String host = n.getHost() == null ? "" : n.getHost().toLowerCase(Locale.ROOT);
    if (host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]")) {
      host = "loopback";
    }
    int port = n.getPort();
    if (port == -1) {
      port = scheme.equals("https") ? 443 : scheme.equals("http") ? 80 : -1;
    }
    return scheme + "://" + host + ":" + port + n.getRawPath()
        + (n.getRawQuery() == null ? "" : "?" + n.getRawQuery());
  }

  /** What all servers' parsers share (strings, labels, keys); they parse on the refresh thread. */
  private final ParserTables parserTables = new ParserTables();

  private Tracked newState(Target t) {
    ParserLimits limits = HttpScraper.parserLimits(config.scrape());
    if (logger.isLoggable(Level.INFO)) {
      logger.info("inference server " + t.name() + " (" + t.source().jsonName() + ") at " + t.url());
    }
    return new Tracked(t.name(), t.source() == ServerSource.CONFIGURED,
        t.found() == null ? Engine.UNKNOWN : Engine.of(t.found().engine()),
        new ExpositionParser(limits, parserTables), new ServerWindow(config.window(), maxScrapes),
        new ServerEnergy(maxScrapes));
  }

  @Override
  public HealthStatus health() {
    return snapshot.get().health();
  }

  @Override
  public Contribution contribution() {
    return snapshot.get().contribution();
  }

  @Override
  public List<ExportedHistogram> exportedHistograms() {
    return snapshot.get().histograms();
  }

  @Override
  public List<ExportedCounter> exportedCounters() {
    return snapshot.get().counters();
  }

  /** The latest published snapshot. */
  InferenceSnapshot snapshot() {
    return snapshot.get();
  }

  @Override
  public String serverFor(long pid) {
    return snapshot.get().owners().get(pid);
  }

  @Override
  public dev.gputop.config.PodIdentity podFor(long pid) {
    return snapshot.get().pods().get(pid);
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    metrics.close();
    try {
      scraper.close();
    } finally {
      if (discovery != null) {
        discovery.close();
      }
    }
  }

  /** What the receiver keeps per server between cycles. Used by the refresh thread only. */
  private static final class Tracked {
    final String name;
    final boolean configured;
    final ExpositionParser parser;
    final ServerWindow window;
    /** The server's monotonic totals since the agent first read it (docs/metrics.md, "Counters"). */
    final ServerCounters counters = new ServerCounters();
    /** The energy of its GPUs since the agent's first sample (docs/inference.md, "Efficiency"). */
    final ServerEnergy energy;
    /** The times of the scrape this cycle added to the window and counters, or 0 when none. */
    long addedNanos;
    long addedEpochNanos;
    static final long RESTART_LOG_INTERVAL_NANOS = 60_000_000_000L;

    Engine engine = Engine.UNKNOWN;
    /**
     * The {@code engine} of the server's outputs, kept stable (docs/metrics.md, "Identity"): the
     * engine its latest readable scrape was recognized as, kept while it is down; before the
     * first, what discovery recognized from the command line, or {@code unknown} for a
     * configured endpoint.
     */
    Engine outputEngine;
    long lastRestartLogNanos;
    boolean ok;
    boolean scraped;
    String error;

    Tracked(String name, boolean configured, Engine outputEngine, ExpositionParser parser, ServerWindow window,
        ServerEnergy energy) {
      this.energy = energy;
      this.name = name;
      this.configured = configured;
      this.outputEngine = outputEngine;
      this.parser = parser;
      this.window = window;
    }

    /** The successful result {@link #read} last read, what it read from it, and why not. */
    private ScrapeResult readResult;
    private ServerScrape readScrape;
    private String readError;

    /**
     * Parses and maps {@code r}'s body for the {@link #accept} of this cycle. Returns null when
     * the body reads, else the message of a body the parser refused (the scrape is then
     * {@code malformed}); a mapping bug leaves the scrape a success and the server down.
     */
    String read(ScrapeResult r, EngineMapper mapper) {
      readResult = r;
      readScrape = null;
      readError = null;
      try {
        readScrape = mapper.map(parser.parse(r.body(), 0, r.length()));
        return null;
      } catch (ExpositionFormatException ex) {
        readError = dev.gputop.inference.scrape.UnreadableBody.message(r, ex);
        return readError;
      } catch (RuntimeException ex) {
        readError = "can't read exposition: " + ex;
        return null;
      }
    }

    void accept(ScrapeResult r, long nanos, long epoch, EngineMapper mapper) {
      boolean wasOk = ok;
      boolean first = !scraped;
      String failure = null;
      addedNanos = 0;
      if (r == null) {
        failure = "not scraped";
      } else if (!r.ok()) {
        failure = r.error() != null ? r.error() : r.outcome().attributeValue();
      } else {
        if (r != readResult) {
          read(r, mapper); // a result no reader saw (another target with the same endpoint)
        }
        ServerScrape s = readScrape;
        failure = readError;
        readResult = null;
        readScrape = null;
        readError = null;
        if (failure == null) {
          failure = add(r, s, nanos, epoch);
        }
      }
      scraped = true;
      ok = failure == null;
      error = failure;
      // Log transitions only: a server that stays down does not flood the log. The scraper
      // already logs (throttled) why a scrape failed, a body the parser refused included; what it
      // can't see is a body we failed to map (a bug).
      if (!ok && (wasOk || first)) {
        boolean unreadable = r != null && r.ok();
        logger.log(configured && unreadable ? Level.WARNING : Level.FINE,
            "inference server " + name + " is down: " + failure);
      } else if (ok && !wasOk) {
        logger.fine("inference server " + name + " is up");
      }
    }

    /** Adds a read scrape to the window and counters; null, or why it could not. */
    private String add(ScrapeResult r, ServerScrape s, long nanos, long epoch) {
      try {
        // The scrape's own start on both clocks: the window is keyed by monotonic time.
        long scrapeEpoch = r.startEpochNanos() > 0 ? r.startEpochNanos() : epoch;
        String restart = window.add(r.startNanos(), scrapeEpoch, s);
        counters.add(scrapeEpoch, s);
        addedNanos = r.startNanos();
        addedEpochNanos = scrapeEpoch;
        if (restart != null) {
          // A server whose counters flap would log every cycle: once a minute at INFO.
          boolean loud = lastRestartLogNanos == 0 || nanos - lastRestartLogNanos >= RESTART_LOG_INTERVAL_NANOS;
          if (loud) {
            lastRestartLogNanos = nanos;
          }
          logger.log(loud ? Level.INFO : Level.FINE,
              "inference server " + name + ": statistics window restarted: " + restart);
        }
        engine = s.engine();
        outputEngine = engine;
        return null;
      } catch (RuntimeException ex) {
        return "can't read exposition: " + ex;
      }
    }

    ServerState state() {
      if (!ok) {
        return ServerState.DOWN;
      }
      // An unknown engine has nothing to compute over a window: it is simply up.
      return engine == Engine.UNKNOWN || window.size() >= 2 ? ServerState.UP : ServerState.STARTING;
    }
  }
}
