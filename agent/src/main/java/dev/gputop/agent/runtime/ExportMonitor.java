package dev.gputop.agent.runtime;

import dev.gputop.config.logging.FailureLog;
import dev.gputop.receiver.Clock;
import dev.gputop.receiver.HealthStatus;
// FailedExportException is the only way the OTLP exporters say why an export failed (the HTTP
// status or gRPC status of a response); no public API carries it. Used read-only, for the reason.
import io.opentelemetry.exporter.internal.FailedExportException;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.sdk.common.export.MemoryMode;
import io.opentelemetry.sdk.metrics.Aggregation;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.export.GrpcResponse;
import io.opentelemetry.sdk.common.export.HttpResponse;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import java.net.URI;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Watches the agent's OTLP metric exporter: reports export failures through the agent's throttled
 * {@link FailureLog} (one WARNING when exporting to the endpoint starts failing, the reason on
 * one line without a stack trace; a reminder at most once a minute; one INFO on recovery),
 * publishes the {@code export} health component, and counts what was dropped: the exports that
 * failed and their data points, exported as the agent's own metrics {@code
 * gputop.agent.export.failed_exports} and {@code gputop.agent.export.dropped_points} once the
 * backend takes exports again.
 *
 * <p>The SDK itself logs every failed export: the OTLP exporter a SEVERE with the whole exception
 * (the first one, then throttled to once a minute) and the periodic reader a WARNING for each
 * failed export ("Exporter failed"). {@link #silenceSdkExportLogs()} drops exactly those records
 * with a {@link Filter} on those three loggers: this class reports the same failures, throttled
 * and readable, so the SDK's are duplicates. Everything else the SDK logs on them still appears.
 *
 * <p>Bounded: the reader exports one batch at a time and keeps none (a batch that fails is
 * dropped, and counted here; the next collection carries the cumulative values anyway), and the
 * exporter's retries are bounded by its retry policy (5 attempts, backoff up to 5 s, each
 * attempt within {@code OTEL_EXPORTER_OTLP_TIMEOUT}). Thread-safe.
 */
public final class ExportMonitor {

  private static final Logger logger = Logger.getLogger(ExportMonitor.class.getName());
  private static final String KEY = "otlp";

  /**
   * The loggers whose records are filtered, held strongly: a JUL logger that nothing references
   * can be garbage-collected and recreated without its filter.
   */
  private static final List<Logger> SILENCED = List.of(
      Logger.getLogger(PeriodicMetricReader.class.getName()),
      Logger.getLogger(otlpInternal("HttpExporter")),
      Logger.getLogger(otlpInternal("GrpcExporter")));

  private final FailureLog failures;
  private final Clock clock;
  private final AtomicLong exports = new AtomicLong();
  private final AtomicLong failedExports = new AtomicLong();
  private final AtomicLong droppedPoints = new AtomicLong();
  private volatile String endpoint;
  private volatile boolean configured;
  private volatile long failingSince;
  private volatile String lastReason;
  private volatile boolean failing;

  ExportMonitor(Clock clock, Duration reminderInterval) {
    this.clock = clock;
    this.failures = FailureLog.create(logger, clock, reminderInterval, 4);
  }

  /** A monitor on the system clock, reminding once a minute. */
  public static ExportMonitor create() {
    return new ExportMonitor(Clock.system(), FailureLog.DEFAULT_REMINDER_INTERVAL);
  }

  /**
   * Filters the SDK's own per-failure export records (see the class comment). Idempotent;
   * affects only those three loggers.
   */
  public static void silenceSdkExportLogs() {
    for (Logger l : SILENCED) {
      l.setFilter(SdkExportFailureFilter.INSTANCE);
    }
  }

  /** For {@code addMetricExporterCustomizer}: wraps the configured exporter. */
  MetricExporter wrap(MetricExporter exporter, ConfigProperties config) {
    this.endpoint = describe(config);
    this.configured = true;
    return new Observed(exporter);
  }

  /** Registers the agent's own export counters on {@code meter}. */
  void registerMetrics(Meter meter) {
    meter.counterBuilder("gputop.agent.export.failed_exports")
        .setUnit("{export}")
        .setDescription("OTLP metric exports that failed (after the exporter's retries); their data was dropped")
        .buildWithCallback(m -> m.record(failedExports.get()));
    meter.counterBuilder("gputop.agent.export.dropped_points")
        .setUnit("{data_point}")
        .setDescription("Data points in OTLP metric exports that failed and were dropped")
        .buildWithCallback(m -> m.record(droppedPoints.get()));
  }

  /**
   * The {@code export} health component: {@code unavailable} without an OTLP exporter, {@code
   * healthy} before the first export and while exports succeed, {@code unhealthy} while they fail.
   */
  public HealthStatus health() {
    if (!configured) {
      return HealthStatus.unavailable("no OTLP exporter configured (OTEL_EXPORTER_OTLP_ENDPOINT is not set)");
    }
    if (!failing) {
      return HealthStatus.healthy();
    }
    Duration d = Duration.ofNanos(clock.nanoTime() - failingSince);
    return HealthStatus.unhealthy(List.of("OTLP export to " + endpoint + " failing for "
        + d.toSeconds() + "s (" + failedExports.get() + " exports failed so far): " + lastReason));
  }

  long exports() {
    return exports.get();
  }

  long failedExports() {
    return failedExports.get();
  }

  long droppedPoints() {
    return droppedPoints.get();
  }

  String endpoint() {
    return endpoint;
  }

  private void completed(CompletableResultCode result, int points) {
    exports.incrementAndGet();
    String what = "OTLP export of metrics to " + endpoint;
    if (result.isSuccess()) {
      failures.success(KEY, what); // logged before health turns healthy: readers see both
      failing = false;
      return;
    }
    failedExports.incrementAndGet();
    droppedPoints.addAndGet(points);
    String reason = reason(result.getFailureThrowable());
    if (!failing) {
      failingSince = clock.nanoTime();
      failing = true;
    }
    lastReason = reason;
    failures.failure(KEY, what, reason);
  }

  /** Why an export failed, on one line: the HTTP or gRPC status, or the I/O error. */
  static String reason(Throwable t) {
    if (t == null) {
      return "export failed (no reason given; timed out or the exporter is shut down)";
    }
    if (t instanceof FailedExportException.HttpExportException http && http.getResponse() != null) {
      HttpResponse r = http.getResponse();
      return "HTTP " + r.getStatusCode() + (r.getStatusMessage() == null ? "" : " " + r.getStatusMessage());
    }
    if (t instanceof FailedExportException.GrpcExportException grpc && grpc.getResponse() != null) {
      GrpcResponse r = grpc.getResponse();
      return "gRPC " + r.getStatusCode() + (r.getStatusDescription() == null ? "" : ": " + r.getStatusDescription());
    }
    Throwable cause = t instanceof FailedExportException && t.getCause() != null ? t.getCause() : t;
    return FailureLog.reason(cause);
  }

  /** {@code http/protobuf http://collector:4318/v1/metrics}, without user info or query. */
  static String describe(ConfigProperties config) {
    String protocol = first(config, "otel.exporter.otlp.metrics.protocol", "otel.exporter.otlp.protocol");
    String url = first(config, "otel.exporter.otlp.metrics.endpoint", "otel.exporter.otlp.endpoint");
    if (url == null) {
      url = "grpc".equals(protocol) ? "http://localhost:4317" : "http://localhost:4318";
    }
    try {
      URI u = URI.create(url);
      if (u.getHost() != null) {
        url = u.getScheme() + "://" + (u.getHost().contains(":") ? "[" + u.getHost() + "]" : u.getHost())
            + (u.getPort() >= 0 ? ":" + u.getPort() : "") + (u.getRawPath() == null ? "" : u.getRawPath());
      }
    } catch (IllegalArgumentException e) {
      url = "(an invalid URL)";
    }
    return url + " (" + (protocol == null ? "grpc" : protocol.toLowerCase(Locale.ROOT)) + ")";
  }

  private static String first(ConfigProperties config, String... keys) {
    for (String k : keys) {
      String v = config.getString(k);
      if (v != null && !v.isBlank()) {
        return v.trim();
      }
    }
    return null;
  }

  /**
   * The name of an internal class of the OTLP exporter module, built from a public class of the
   * same module so that it follows the shaded jar's relocation.
   */
  private static String otlpInternal(String simpleName) {
    String pkg = OtlpHttpMetricExporter.class.getPackageName(); // ...exporter.otlp.http.metrics
    return pkg.substring(0, pkg.length() - ".http.metrics".length()) + ".internal." + simpleName;
  }

  /** Drops the SDK's "Failed to export ..." and "Exporter failed" records; passes the rest. */
  private enum SdkExportFailureFilter implements Filter {
    INSTANCE;

    @Override
    public boolean isLoggable(java.util.logging.LogRecord record) {
      String m = record.getMessage();
      if (m == null || record.getLevel().intValue() < Level.WARNING.intValue()) {
        return true;
      }
      return !(m.startsWith("Failed to export") || m.equals("Exporter failed")
          || m.startsWith("Too many log messages detected"));
    }
  }

  /** The configured exporter, with each export's outcome reported to the monitor. */
  private final class Observed implements MetricExporter {
    private final MetricExporter delegate;

    Observed(MetricExporter delegate) {
      this.delegate = delegate;
    }

    @Override
    public CompletableResultCode export(Collection<MetricData> metrics) {
      int points = 0;
      for (MetricData m : metrics) {
        points += m.getData().getPoints().size();
      }
      int n = points;
      CompletableResultCode result;
      try {
        result = delegate.export(metrics);
      } catch (RuntimeException e) {
        result = CompletableResultCode.ofExceptionalFailure(e);
      }
      CompletableResultCode r = result;
      r.whenComplete(() -> completed(r, n));
      return r;
    }

    @Override
    public CompletableResultCode flush() {
      return delegate.flush();
    }

    @Override
    public CompletableResultCode shutdown() {
      return delegate.shutdown();
    }

    @Override
    public AggregationTemporality getAggregationTemporality(InstrumentType instrumentType) {
      return delegate.getAggregationTemporality(instrumentType);
    }

    @Override
    public Aggregation getDefaultAggregation(InstrumentType instrumentType) {
      return delegate.getDefaultAggregation(instrumentType);
    }

    @Override
    public MemoryMode getMemoryMode() {
      return delegate.getMemoryMode();
    }

    @Override
    public String toString() {
      return "ExportMonitor.Observed{" + delegate + "}";
    }
  }
}
