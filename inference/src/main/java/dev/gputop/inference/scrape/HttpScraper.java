package dev.gputop.inference.scrape;

import dev.gputop.config.Endpoint;
import dev.gputop.config.ScrapeConfig;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import dev.gputop.receiver.Clock;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Scrapes inference servers' metrics endpoints over HTTP(S) with Eclipse Jetty's non-blocking
 * HTTP client, bounded in time, size and concurrency, so that one slow or hostile server never
 * delays the others or the export, and never holds a thread while it is slow.
 *
 * <p>Every request asks for the Prometheus text format ({@code Accept: text/plain;version=0.0.4})
 * and accepts gzip; whatever content type comes back (OpenMetrics included) is passed on. Limits,
 * from {@link ScrapeConfig}:
 *
 * <ul>
 *   <li>time: one deadline per {@link #scrapeAll} cycle, {@code timeout} after it starts on the
 *       injected clock ({@link ScrapeDeadline}: the clock says how much time is left, the waits
 *       run on real time), for connecting, redirects, headers and body alike: a server that
 *       trickles one byte a second is cut off at the deadline, not merely when it pauses;
 *   <li>size: {@code maxBodyBytes} on the bytes received (a larger Content-Length is rejected
 *       before reading) and again on the bytes after gzip decompression (a gzip bomb is stopped);
 *   <li>concurrency: at most {@code concurrency} scrapes in flight, across all callers;
 *   <li>redirects: at most {@value ScrapeCall#MAX_REDIRECTS}, to the same host only, never from
 *       https down to http.
 * </ul>
 *
 * <p>Each target's headers are sent, and its {@code bearerTokenFile} is read at every scrape as
 * {@code Authorization: Bearer}. Targets with a custom CA, a client certificate or
 * {@code insecureSkipVerify} get an HTTP client of their own, built on first use and cached
 * ({@link HttpClients}: what every client is set up to do and not to do). Connections are kept
 * open from one cycle to the next. Once {@link #scrapeAll} has returned, nothing of an exchange
 * (buffers, body) stays reachable but the results it returned.
 * Failures become results with an {@link Outcome} and a message that names the host, limit or
 * file (never a header value or token), logged as throttled warnings per server.
 *
 * <p>Telemetry, through the OpenTelemetry API passed in: {@code gputop.scrape.duration},
 * {@code gputop.scrape.size} and {@code gputop.scrape.count}, and a {@code scrape cycle} span per
 * {@link #scrapeAll} with a child span per target.
 *
 * <p>Thread-safe: {@link #scrapeAll} may be called from several threads; they share the
 * concurrency bound. Usage:
 *
 * <pre>{@code
 * try (HttpScraper scraper =
 *     new HttpScraper(ScrapeConfig.defaults(), Clock.system(), openTelemetry)) {
 *   Endpoint vllm = Endpoint.of("vllm", URI.create("http://127.0.0.1:8000/metrics"));
 *   List<ScrapeResult> results = scraper.scrapeAll(List.of(vllm));
 * }
 * }</pre>
 */
public final class HttpScraper implements Scraper {

  private static final Logger logger = Logger.getLogger(HttpScraper.class.getName());

  /** A scrape is not started with less time than this left before the deadline. */
  private static final long MIN_START_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final ScrapeConfig config;
  private final Clock clock;
  private final ScrapeTelemetry telemetry;
  private final HttpClients clients;
  private final Semaphore slots;
  private final Set<ScrapeCall> running = ConcurrentHashMap.newKeySet();
  private final Set<String> insecureWarned = ConcurrentHashMap.newKeySet();
  private final ScrapeFailureLog failureLog;
  private final ProtocolBackoff backoff = new ProtocolBackoff();
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * @param config timeouts and limits ({@code inference.scrape.*})
   * @param clock sets each cycle's deadline, stamps each result's start time and measures its
   *     duration
   * @param openTelemetry where the scraper's own metrics and spans go; {@link OpenTelemetry#noop()}
   *     for none
   */
  public HttpScraper(ScrapeConfig config, Clock clock, OpenTelemetry openTelemetry) {
    this.config = Objects.requireNonNull(config, "config");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.failureLog = new ScrapeFailureLog(logger, clock);
    this.telemetry = new ScrapeTelemetry(Objects.requireNonNull(openTelemetry, "openTelemetry"), clock);
    // Connecting gets three quarters of the budget: enough for any reachable server, and a
    // connect that can't complete (a firewall dropping packets) is then reported as such rather
    // than as a server that did not answer.
    this.clients = new HttpClients(connectTimeout(config.timeout()));
    this.slots = new Semaphore(config.concurrency());
    // The default client is what nearly every target uses. Loading the HTTP client's classes
    // (once per process) and starting it take most of a second on a cold JVM on a busy node:
    // done on a thread of its own now, overlapping the rest of the start, rather than inside the
    // first cycle's deadline, which waits for it. (JSSE is left for the first https target; see
    // prepareTls.)
    clients.startInBackground();
  }

  /**
   * The limits a scraped body is parsed under: {@code inference.scrape.maxLineLength}, {@code
   * maxSeries} and {@code maxLabels}, whose defaults are {@link ParserLimits#defaults()} (the
   * parse package reads no config). The receiver and the agent's one-off scrapes both take them
   * from here.
   */
  public static ParserLimits parserLimits(ScrapeConfig config) {
    return new ParserLimits(config.maxLineLength(), config.maxSeries(), config.maxLabels());
  }

  /**
   * Starts loading the HTTP client's classes on a daemon thread, as a scraper's construction
   * would, for a process that knows before it can create its scraper that it will scrape: the
   * agent calls it as soon as its configuration is read, so that the loading overlaps the
   * OpenTelemetry SDK's construction and the rest of the start instead of following them. Once
   * per process; returns at once; later calls, and scrapers, use the same loading.
   */
  public static void prepareInBackground() {
    HttpClients.loadClassesInBackground();
  }

  /**
   * Initializes JSSE before the first cycle with an https target that uses the JDK's trust store,
   * so that its cost (a few hundred milliseconds on a cold JVM, more on a busy node) is not taken
   * from that scrape's deadline. Scrapes of http:// targets never initialize it.
   */
  private void prepareTls(List<Endpoint> targets) {
    DeferredSslContextFactory tls = clients.defaultTls();
    if (tls.initialized()) {
      return;
    }
    for (Endpoint target : targets) {
      if ("https".equalsIgnoreCase(target.url().getScheme()) && HttpClients.usesDefaultTls(target.tls())) {
        try {
          long t0 = clock.nanoTime();
          tls.initialize();
          logger.fine(() -> "TLS initialized for " + target.url() + " in "
              + TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - t0) + " ms");
        } catch (IllegalStateException e) {
          // Each https scrape then fails with this reason, reported per target.
          logger.log(Level.FINE, "TLS could not be initialized", e);
        }
        return;
      }
    }
  }

  /**
   * Scrapes every target, at most {@code concurrency} at once, and returns one result per target
   * in the same order, within {@code timeout} of the call (plus the moment it takes to end the
   * scrapes still running then). A target
   * still waiting for a free slot at the deadline fails with {@link Outcome#TIMEOUT}. Never
   * throws; if the calling thread is interrupted, the scrapes still running are ended and the
   * interrupt flag is kept.
   */
  @Override
  public List<ScrapeResult> scrapeAll(List<Endpoint> targets) {
    return scrapeAll(targets, null);
  }

  /**
   * As {@link #scrapeAll(List)}; each successful body is read by {@code reader} on this thread
   * as the results are collected in target order (the later calls still running meanwhile), and
   * its scrape is counted and its span ended after that, as a success or as {@link
   * Outcome#MALFORMED} (the span still ends when the body had arrived).
   */
  @Override
  public List<ScrapeResult> scrapeAll(List<Endpoint> targets, BodyReader reader) {
    if (targets.isEmpty()) {
      return List.of();
    }
    try {
      return scrape(List.copyOf(targets), reader);
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "Scrape cycle failed unexpectedly", e);
      List<ScrapeResult> results = new ArrayList<>(targets.size());
      for (Endpoint target : targets) {
        results.add(failed(target, Outcome.IO_ERROR, "scrape failed unexpectedly: " + e));
      }
      return results;
    }
  }

  /**
   * A successful call whose telemetry waits for its body's reading on the calling thread: its
   * span, and when the call ended on the scraper's clock (the span's end).
   */
  private record Unread(Span span, ScrapeCall.Completed completed, long endEpochNanos) {}

  private List<ScrapeResult> scrape(List<Endpoint> targets, BodyReader reader) {
    clients.awaitReady();
    prepareTls(targets);
    ScrapeDeadline deadline = ScrapeDeadline.after(clock, config.timeout());
    Span cycle = telemetry.startCycle(targets.size());
    List<ScrapeCall> calls = new ArrayList<>(targets.size());
    // Per call, what must have run before scrapeAll returns: the telemetry, and for a started
    // call its slot's release and the backoff's record (so the next cycle sees both).
    List<CompletableFuture<?>> reported = new ArrayList<>(targets.size());
    // Per call, a success whose body the reader reads before it is counted, else null.
    List<AtomicReference<Unread>> unread = new ArrayList<>(targets.size());
    boolean interrupted = false;
    for (Endpoint target : targets) {
      ScrapeCall call = new ScrapeCall(target, config, clock, deadline);
      // The target's span starts with its request, so a wait for a slot shows as a gap in the
      // trace; a target that never started gets a span when it is reported.
      AtomicReference<Span> span = new AtomicReference<>();
      AtomicReference<Unread> toRead = new AtomicReference<>();
      unread.add(toRead);
      // Recorded before scrapeAll sees the result, so the metrics are current when it returns.
      reported.add(call.completion().whenComplete((completed, error) -> {
        Span started = span.get();
        Span scrape = started != null ? started : telemetry.startScrape(cycle, target);
        if (reader != null && completed.result().ok()) {
          toRead.set(new Unread(scrape, completed, clock.epochNanos()));
          return;
        }
        telemetry.record(scrape, completed, completed.result(), clock.epochNanos());
        failureLog.record(completed.result());
      }));
      calls.add(call);
      if (closed.get()) {
        call.abort("scraper is closed");
        continue;
      }
      if (interrupted) {
        call.abort("interrupted");
        continue;
      }
      ProtocolBackoff.Skip skip = backoff.check(target, clock.nanoTime());
      if (skip != null) {
        call.abort(skip.outcome(), skip.message());
        continue;
      }
      long wait = deadline.remainingNanos();
      boolean acquired;
      try {
        acquired = wait > 0 && slots.tryAcquire(wait, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        interrupted = true;
        call.abort("interrupted");
        continue;
      }
      if (acquired && deadline.remainingNanos() < MIN_START_NANOS) {
        // A slot freed at the deadline: starting now could only time out, misleadingly.
        slots.release();
        acquired = false;
      }
      if (!acquired) {
        call.abort(Outcome.TIMEOUT, "not started within " + Formats.duration(config.timeout())
            + ": all " + config.concurrency()
            + " scrape slots were busy (inference.scrape.concurrency)");
        continue;
      }
      running.add(call);
      CompletableFuture<?> released = call.completion().whenComplete((completed, error) -> {
        running.remove(call);
        slots.release();
        backoff.record(target, completed, clock.nanoTime());
      });
      reported.set(reported.size() - 1,
          CompletableFuture.allOf(reported.get(reported.size() - 1), released));
      warnIfInsecure(target);
      span.set(telemetry.startScrape(cycle, target));
      call.start(clients);
    }
    List<ScrapeResult> results = new ArrayList<>(targets.size());
    for (int i = 0; i < calls.size(); i++) {
      ScrapeCall call = calls.get(i);
      if (!interrupted) {
        try {
          call.completion().get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (TimeoutException | ExecutionException e) {
          // Ended below.
        }
      }
      // Each request's own timeout ends it at the deadline too; whichever comes first reports
      // the same thing. Both are no-ops for a call that has ended.
      if (interrupted) {
        call.abort("interrupted");
      } else {
        call.onDeadline();
      }
      ScrapeCall.Completed completed = call.completion().join();
      try {
        // Run by whichever thread completed the call, maybe a moment after the caller woke.
        reported.get(i).join();
      } catch (RuntimeException e) {
        logger.log(Level.FINE, "Recording a scrape's telemetry failed", e);
      }
      Unread toRead = unread.get(i).get();
      results.add(toRead == null ? completed.result() : read(toRead, reader));
    }
    telemetry.endCycle(cycle, results);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return results;
  }

  /** The reader's verdict on a successful body, counted and logged as such. */
  private ScrapeResult read(Unread toRead, BodyReader reader) {
    ScrapeResult result = toRead.completed().result();
    try {
      result = reader.verdict(result);
    } catch (RuntimeException e) {
      // A reader's bug is not the server's fault: the scrape stays a success, the caller sees why.
      logger.log(Level.FINE, "Reading a scraped body failed", e);
    }
    try {
      telemetry.record(toRead.span(), toRead.completed(), result, toRead.endEpochNanos());
      failureLog.record(result);
    } catch (RuntimeException e) {
      logger.log(Level.FINE, "Recording a scrape's telemetry failed", e);
    }
    return result;
  }

  /** Ends the scrapes in flight and releases the threads. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (ScrapeCall call : running) {
      call.abort("scraper is closed");
    }
    clients.close();
  }

  static Duration connectTimeout(Duration timeout) {
    return Duration.ofNanos(Math.max(timeout.toNanos() / 4 * 3, 1));
  }

  /** Whether JSSE has been initialized for the targets without TLS settings, for tests. */
  boolean defaultTlsInitialized() {
    return clients.defaultTls().initialized();
  }

  /** How many HTTP clients are started (one per distinct TLS setting), for tests. */
  int clientCount() {
    return clients.size();
  }

  private void warnIfInsecure(Endpoint target) {
    if (target.tls().insecureSkipVerify() && insecureWarned.size() < 4096
        && insecureWarned.add(target.name())) {
      logger.warning("Endpoint '" + target.name() + "' has tls.insecureSkipVerify: its server's "
          + "certificate and host name are not verified");
    }
  }

  private ScrapeResult failed(Endpoint target, Outcome outcome, String message) {
    return new ScrapeResult(
        target, outcome, null, 0, null, clock.epochNanos(), clock.nanoTime(), 0, message);
  }
}
