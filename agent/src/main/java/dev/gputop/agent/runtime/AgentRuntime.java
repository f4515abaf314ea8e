package dev.gputop.agent.runtime;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gputop.agent.history.History;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigException;
import dev.gputop.config.ConfigType;
import dev.gputop.config.logging.FailureLog;
import dev.gputop.receiver.Clock;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.ExportedCounter;
import dev.gputop.receiver.ExportedHistogram;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.Receiver;
import dev.gputop.receiver.ReceiverProvider;
import dev.gputop.receiver.StandardReceiverContext;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The agent's spine: creates the receivers found through {@link ReceiverProvider} (ServiceLoader),
 * refreshes each on its own daemon thread every {@code refresh.normal}, and assembles their
 * published state into the JSON snapshot, the health report and the re-exported histograms. A
 * further daemon thread records the snapshot's values (read from the receivers' typed sections,
 * not from the document) into the ten-minute {@link History} at the same interval.
 *
 * <p>It does not know how the {@link OpenTelemetry} instance was made: the standalone {@code run}
 * command hands it an autoconfigured SDK ({@link StandaloneSdk}), the attach modes can hand it the
 * host's or the OpenTelemetry Java agent's. Histograms reach the SDK through an {@link
 * ExportedHistogramProducer} that the caller registered with its meter provider before building
 * it; the runtime binds that producer on {@link #start()} and unbinds it on {@link #close()}.
 *
 * <pre>{@code
 * ExportedHistogramProducer histograms = new ExportedHistogramProducer();
 * // ... SdkMeterProviderBuilder.registerMetricProducer(histograms) while building the SDK ...
 * try (AgentRuntime runtime = AgentRuntime.builder(config)
 *     .setOpenTelemetry(sdk)
 *     .setHistogramProducer(histograms)
 *     .build()) {
 *   runtime.start();
 *   runtime.awaitFirstRefresh(Duration.ofSeconds(5));
 *   ObjectNode snapshot = runtime.snapshot();
 * }
 * }</pre>
 *
 * <p>Thread-safe: {@link #snapshot()}, {@link #health()} and {@link #exportedHistograms()} may be
 * called from any thread (HTTP handlers, OpenTelemetry collection); they only read what receivers
 * have published and never do I/O. {@link #close()} is idempotent.
 */
public final class AgentRuntime implements AutoCloseable {

  private static final Logger logger = Logger.getLogger(AgentRuntime.class.getName());

  /** The receivers the snapshot's {@code health} object always names, present or not. */
  static final List<String> KNOWN_RECEIVERS = List.of("inference", "nvml");

  /**
   * How long a receiver's first refresh waits for the first refresh of the receiver started before
   * it (see {@link ReceiverProvider#order()}): long enough for NVML's first sample, so discovery's
   * first pass sees the GPU processes; short enough that a GPU that hangs its driver calls delays
   * the inference receiver's first scrape by no more than this.
   */
  static final Duration FIRST_REFRESH_WAIT = Duration.ofSeconds(2);

  /** Reason reported for a receiver that the configuration switched off or the build lacks. */
  static final String DISABLED = "disabled";

  private final AgentConfig config;
  private final OpenTelemetry openTelemetry;
  private final Clock clock;
  private final List<ReceiverProvider> providers;
  private final ExportedHistogramProducer histogramProducer;
  private final SnapshotAssembler assembler;
  private final StandardReceiverContext context;
  /** Health components that are not receivers (the OTLP export), by name. */
  private final Map<String, Supplier<HealthStatus>> components;
  private final History history;
  /** Records the snapshot into {@link #history} every interval; created by start(). */
  private volatile ScheduledExecutorService historyRecorder;

  /** Serializes start and close; readers never take it, so a slow start can't block /api/snapshot. */
  private final Object lifecycle = new Object();
  /** Published once start() created every receiver; replaced by an empty list on close. */
  private volatile List<Running> running = List.of();
  private volatile Map<String, HealthStatus> failedToStart = Map.of();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong startNanos = new AtomicLong();
  private volatile CountDownLatch firstRefresh = new CountDownLatch(0);

  private AgentRuntime(Builder b) {
    this.config = b.config;
    this.openTelemetry = b.openTelemetry;
    this.clock = b.clock;
    this.providers = b.providers;
    this.histogramProducer = b.histogramProducer;
    this.assembler = new SnapshotAssembler(clock);
    this.context = new StandardReceiverContext(config, openTelemetry, clock);
    this.components = Map.copyOf(b.components);
    this.history = History.forRefresh(config.refreshNormal());
  }

  /** A builder for a runtime with {@code config}; every other setting has a default. */
  public static Builder builder(AgentConfig config) {
    return new Builder(config);
  }

  /**
   * Creates the enabled receivers in ascending {@link ReceiverProvider#order()} and starts their
   * refresh threads, each with a first refresh at once. A receiver that fails to start is reported
   * {@code unavailable} and the others run on.
   *
   * @throws ConfigException when a provider finds the configuration unusable
   * @throws IllegalStateException when called twice or after {@link #close()}
   */
  public void start() {
    synchronized (lifecycle) {
      if (closed.get() || !started.compareAndSet(false, true)) {
        throw new IllegalStateException("AgentRuntime can be started once");
      }
      startNanos.set(clock.nanoTime());
      List<Receiver> created = new ArrayList<>();
      Map<String, HealthStatus> failed = new LinkedHashMap<>();
      for (ReceiverProvider provider : providers) {
        if (!provider.enabled(config)) {
          logger.info(() -> "receiver " + provider.name() + ": disabled by configuration");
          continue;
        }
        try {
          Receiver receiver = Objects.requireNonNull(provider.create(context), "create() returned null");
          created.add(receiver);
        } catch (ConfigException e) {
          created.forEach(AgentRuntime::closeQuietly);
          throw e;
        } catch (RuntimeException | LinkageError e) {
          logger.log(Level.SEVERE, "receiver " + provider.name() + " failed to start; the others run on", e);
          failed.put(provider.name(), HealthStatus.unavailable("failed to start: " + e));
        }
      }
      firstRefresh = new CountDownLatch(created.size());
      List<Running> rs = new ArrayList<>();
      for (Receiver receiver : created) {
        rs.add(new Running(receiver));
      }
      failedToStart = Collections.unmodifiableMap(failed);
      running = List.copyOf(rs);
      if (histogramProducer != null) {
        histogramProducer.bind(this::exportedHistograms, this::exportedCounters);
      }
      Running previous = null;
      for (Running r : rs) {
        r.schedule(config.refreshNormal(), previous);
        previous = r;
      }
      startHistory();
      logger.info(() -> "receivers started: " + receiverNames() + ", refresh every " + ConfigType.formatDuration(config.refreshNormal()));
    }
  }

  /**
   * Waits until every receiver finished its first refresh, or {@code timeout} passed.
   *
   * @return true when all did
   */
  public boolean awaitFirstRefresh(Duration timeout) throws InterruptedException {
    return firstRefresh.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * The current snapshot document of docs/json-schema.md (a fresh tree each call, which the caller
   * may change): {@code timestamp}, {@code gpus}, {@code inference}, {@code overview}, {@code
   * alerts}, {@code health}, then any other section a receiver publishes.
   */
  public ObjectNode snapshot() {
    return assembler.assemble(contributions(), health());
  }

  /**
   * Every receiver's contribution in start order; one that throws or returns null is left out
   * (logged, throttled).
   */
  public List<Contribution> contributions() {
    List<Running> rs = runningReceivers();
    List<Contribution> out = new ArrayList<>(rs.size());
    for (Running r : rs) {
      try {
        Contribution c = r.receiver.contribution();
        if (c == null) {
          throw new IllegalStateException("contribution() returned null");
        }
        out.add(c);
      } catch (RuntimeException e) {
        r.throttled("contribution()", e);
      }
    }
    return out;
  }

  /**
   * Health by receiver name. Always names {@code inference} and {@code nvml}; a receiver that is
   * switched off or not in this build is {@code unavailable} with reason {@code disabled}.
   */
  public Map<String, HealthStatus> health() {
    Map<String, HealthStatus> out = new LinkedHashMap<>();
    for (String name : KNOWN_RECEIVERS) {
      out.put(name, HealthStatus.unavailable(DISABLED));
    }
    out.putAll(failedToStart);
    for (Running r : runningReceivers()) {
      HealthStatus h;
      try {
        h = r.receiver.health();
      } catch (RuntimeException e) {
        r.throttled("health()", e);
        h = HealthStatus.unhealthy(List.of("health() failed: " + e));
      }
      if (h == null) {
        h = HealthStatus.unhealthy(List.of("no health reported"));
      }
      if (!r.refreshedOnce() && h.state() == HealthStatus.State.HEALTHY) {
        h = HealthStatus.unhealthy(List.of("starting: first refresh not complete"));
      }
      out.put(r.receiver.name(), h);
    }
    components.forEach((name, status) -> {
      HealthStatus h;
      try {
        h = status.get();
      } catch (RuntimeException e) {
        h = HealthStatus.unhealthy(List.of("health failed: " + e));
      }
      out.put(name, h);
    });
    return Collections.unmodifiableMap(out);
  }

  /** Every receiver's histograms to re-export, concatenated. Never does I/O. */
  public List<ExportedHistogram> exportedHistograms() {
    return concatenated("exportedHistograms()", Receiver::exportedHistograms);
  }

  /** Every receiver's monotonic sums with start times of their own, concatenated. Never does I/O. */
  public List<ExportedCounter> exportedCounters() {
    return concatenated("exportedCounters()", Receiver::exportedCounters);
  }

  /**
   * What {@code call} gives of every running receiver, concatenated in start order; a receiver
   * whose call throws is left out (logged, throttled).
   */
  private <T> List<T> concatenated(String call, Function<Receiver, List<T>> part) {
    List<T> out = new ArrayList<>();
    for (Running r : runningReceivers()) {
      try {
        out.addAll(part.apply(r.receiver));
      } catch (RuntimeException e) {
        r.throttled(call, e);
      }
    }
    return out;
  }

  /** The names of the running receivers, in start order. */
  public List<String> receiverNames() {
    List<String> names = new ArrayList<>();
    for (Running r : runningReceivers()) {
      names.add(r.receiver.name());
    }
    return names;
  }

  /** A service a receiver published through its context, or null. */
  public <T> T lookup(Class<T> type) {
    return context.lookup(type);
  }

  /** The last ten minutes of every server's and GPU's values (recorded from start()). */
  public History history() {
    return history;
  }

  /** The clock's wall time in epoch milliseconds, the time base of {@link #history()}. */
  public long epochMillis() {
    return TimeUnit.NANOSECONDS.toMillis(clock.epochNanos());
  }

  /**
   * Records the snapshot's values into the history once now; the recorder thread calls it every
   * interval. The values are read from the receivers' typed contributions, without building the
   * JSON document; the point is what {@link #snapshot()} shows.
   */
  public void recordHistory() {
    history.record(epochMillis(), contributions());
  }

  private void startHistory() {
    ScheduledExecutorService recorder = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread t = new Thread(runnable, "gputop-history");
      t.setDaemon(true);
      return t;
    });
    AtomicLong lastFailureLog = new AtomicLong(Long.MIN_VALUE);
    long every = history.intervalMillis();
    recorder.scheduleAtFixedRate(() -> {
      if (firstRefresh.getCount() > 0) {
        return; // nothing refreshed yet: a point now would only say "starting"
      }
      try {
        recordHistory();
      } catch (RuntimeException e) {
        long now = System.nanoTime();
        long last = lastFailureLog.get();
        if (last == Long.MIN_VALUE || now - last > TimeUnit.MINUTES.toNanos(1)) {
          lastFailureLog.set(now);
          logger.log(Level.WARNING, "history: recording failed", e);
        }
      }
    }, every, every, TimeUnit.MILLISECONDS);
    historyRecorder = recorder;
  }

  private void stopHistory() {
    ScheduledExecutorService recorder = historyRecorder;
    if (recorder != null) {
      recorder.shutdownNow();
    }
  }

  /** The configuration this runtime runs with. */
  public AgentConfig config() {
    return config;
  }

  /**
   * Stops scheduling refreshes and lets a refresh in flight finish (at most {@code grace}), so the
   * published state is complete; receivers keep serving their last state until {@link #close()}.
   * Used by {@code snapshot --for D}.
   */
  public void stopRefreshing(Duration grace) throws InterruptedException {
    stopHistory();
    List<Running> rs = runningReceivers();
    for (Running r : rs) {
      r.executor.shutdown();
    }
    long deadline = System.nanoTime() + grace.toNanos();
    for (Running r : rs) {
      r.executor.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Stops the refresh threads, unbinds the histogram producer and closes every receiver.
   * Idempotent; does not wait for a refresh in flight longer than one second.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    List<Running> rs;
    synchronized (lifecycle) {
      rs = running;
    }
    stopHistory();
    for (Running r : rs) {
      r.executor.shutdownNow();
    }
    for (Running r : rs) {
      try {
        r.executor.awaitTermination(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (histogramProducer != null) {
      histogramProducer.unbind();
    }
    for (Running r : rs) {
      closeQuietly(r.receiver);
    }
    running = List.of();
    logger.fine("receivers closed");
  }

  private List<Running> runningReceivers() {
    return running;
  }

  private static void closeQuietly(Receiver receiver) {
    try {
      receiver.close();
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "receiver " + receiver.name() + " failed to close", e);
    }
  }

  /** The time from {@link #start()} to now, for the first-refresh log line. */
  private Duration sinceStart() {
    return Duration.ofNanos(clock.nanoTime() - startNanos.get());
  }

  /** One receiver and the thread that refreshes it. Refresh state is touched by that thread only. */
  private final class Running {
    final Receiver receiver;
    final ScheduledExecutorService executor;
    /** Zero once the first refresh ended; counted down by the refresh thread only. */
    private final CountDownLatch firstRefreshDone = new CountDownLatch(1);
    /** A receiver call that throws is a bug: logged with its stack trace, throttled per call. */
    private final FailureLog failures = FailureLog.create(logger, clock);

    Running(Receiver receiver) {
      this.receiver = receiver;
      this.executor =
          Executors.newSingleThreadScheduledExecutor(
              runnable -> {
                Thread t = new Thread(runnable, "gputop-" + receiver.name());
                t.setDaemon(true);
                return t;
              });
    }

    /**
     * Refreshes every {@code every}, the first time as soon as {@code after} (the receiver started
     * before this one, or null) has refreshed once or {@link #FIRST_REFRESH_WAIT} has passed.
     */
    void schedule(Duration every, Running after) {
      executor.execute(() -> {
        if (after != null) {
          try {
            if (!after.firstRefreshDone.await(FIRST_REFRESH_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
              logger.info(() -> "receiver " + receiver.name() + ": starting without waiting longer for "
                  + after.receiver.name() + "'s first refresh");
            }
          } catch (InterruptedException e) {
            return; // closed while waiting
          }
        }
        try {
          // Fixed rate keeps scrapes evenly spaced for the window arithmetic; a refresh that
          // overruns delays the next one instead of running two at once.
          executor.scheduleAtFixedRate(this::refreshOnce, 0, every.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
          // Stopped while waiting: nothing to schedule.
        }
      });
    }

    boolean refreshedOnce() {
      return firstRefreshDone.getCount() == 0;
    }

    private void refreshOnce() {
      try {
        receiver.refresh();
        failures.success("refresh()", what("refresh()"));
      } catch (Throwable t) { // a receiver must never stop its own schedule
        throttled("refresh()", t);
      } finally {
        // Only this receiver's single refresh thread gets here, so check-then-count is safe.
        if (firstRefreshDone.getCount() != 0) {
          firstRefreshDone.countDown();
          firstRefresh.countDown();
          if (firstRefresh.getCount() == 0) {
            logFirstRefresh();
          }
        }
      }
    }

    /** Logs through the throttled failure log: once, then at most once a minute per call. */
    void throttled(String call, Throwable t) {
      failures.failure(call, what(call), t);
    }

    private String what(String call) {
      return "Receiver " + receiver.name() + " " + call;
    }
  }

  private void logFirstRefresh() {
    logger.info(() -> {
      String line = "first refresh of every receiver done " + sinceStart().toMillis() + " ms after start";
      long jvm = JvmUptime.millis();
      return jvm >= 0 ? line + " (" + jvm + " ms after the JVM started)" : line;
    });
  }

  /**
   * Builds an {@link AgentRuntime}. Not thread-safe; use from one thread.
   */
  public static final class Builder {
    private final AgentConfig config;
    private OpenTelemetry openTelemetry = OpenTelemetry.noop();
    private Clock clock = Clock.system();
    private List<ReceiverProvider> providers;
    private ClassLoader classLoader;
    private ExportedHistogramProducer histogramProducer;
    private final Map<String, Supplier<HealthStatus>> components = new LinkedHashMap<>();

    private Builder(AgentConfig config) {
      this.config = Objects.requireNonNull(config, "config");
    }

    /** The OpenTelemetry API receivers register their instruments with; default no-op. */
    public Builder setOpenTelemetry(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    /** The clock handed to receivers and used for the snapshot timestamp; default the system's. */
    public Builder setClock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The providers to use instead of those ServiceLoader finds; they are still sorted by order.
     */
    public Builder setProviders(List<ReceiverProvider> providers) {
      this.providers = List.copyOf(providers);
      return this;
    }

    /** The class loader ServiceLoader searches; default this class's. */
    public Builder setClassLoader(ClassLoader classLoader) {
      this.classLoader = Objects.requireNonNull(classLoader, "classLoader");
      return this;
    }

    /**
     * The producer, already registered with the meter provider, through which receivers'
     * histograms are re-exported; default none (histograms are then not exported).
     */
    public Builder setHistogramProducer(ExportedHistogramProducer histogramProducer) {
      this.histogramProducer = Objects.requireNonNull(histogramProducer, "histogramProducer");
      return this;
    }

    /**
     * A health component that is not a receiver (the standalone agent's {@code export}), shown
     * after the receivers in {@link #health()}, the snapshot and {@code /healthz}.
     */
    public Builder addHealthComponent(String name, Supplier<HealthStatus> status) {
      components.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(status, "status"));
      return this;
    }

    /**
     * Finds the providers now, as {@link #build()} would, and calls {@link
     * ReceiverProvider#prepare} on each one the configuration enables: for a caller that has
     * more to build before the runtime (the standalone agent's SDK), so that the receivers'
     * preparation overlaps it. A provider that throws is logged and created as usual later. Call
     * it after {@link #setProviders} and {@link #setClassLoader}, if at all.
     */
    public Builder prepareReceivers() {
      List<ReceiverProvider> found = providers();
      for (ReceiverProvider provider : found) {
        try {
          if (provider.enabled(config)) {
            provider.prepare(config);
          }
        } catch (RuntimeException | LinkageError e) {
          logger.log(Level.FINE, "receiver " + provider.name() + ": prepare failed", e);
        }
      }
      return this;
    }

    public AgentRuntime build() {
      this.providers = providers();
      return new AgentRuntime(this);
    }

    /** The providers, sorted by order: those set, else those ServiceLoader finds (once). */
    private List<ReceiverProvider> providers() {
      List<ReceiverProvider> found = providers;
      if (found == null) {
        found = new ArrayList<>();
        ClassLoader cl = classLoader != null ? classLoader : AgentRuntime.class.getClassLoader();
        for (ReceiverProvider p : ServiceLoader.load(ReceiverProvider.class, cl)) {
          found.add(p);
        }
      }
      List<ReceiverProvider> sorted = new ArrayList<>(found);
      sorted.sort(Comparator.comparingInt(ReceiverProvider::order).thenComparing(ReceiverProvider::name));
      this.providers = List.copyOf(sorted);
      return this.providers;
    }
  }
}
