package dev.gputop.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.receiver.Clock;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.agent.OtlpHttpReceiver;
import dev.gputop.testing.LogCapture;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The OTLP exporter against a backend that goes away and comes back, over both protocols, with
 * gzip and a custom header: first the port is closed, then a server accepts connections and never
 * answers, then a real receiver (the JDK's HTTP server for http/protobuf, grpc-java for gRPC)
 * decodes the exports. The log is read record by record: one WARNING when the failure starts, a
 * reminder at most once per (injected) interval, one INFO on recovery, no stack trace, and none
 * of the SDK's own per-failure records. The SDK's retries are off here so that each failed
 * export is one attempt (the production default retries 5 times within the export's timeout).
 */
class OtlpExportOutageTest {

  /** Injected reminder interval: keeps the outage short without changing what is logged. */
  private static final Duration REMINDER = Duration.ofMillis(800);
  private static final String SECRET_HEADER = "x-tenant";

  private LogCapture capture;
  /** Held, and set to INFO: another test in this JVM (the demo) may have quieted the root logger. */
  private final Logger monitorLogger = Logger.getLogger(ExportMonitor.class.getName());
  private final Logger sdkLogger = Logger.getLogger("io.opentelemetry");

  @BeforeEach
  void captureLogs() {
    capture = LogCapture.attach(Logger.getLogger(""), Level.INFO);
    monitorLogger.setLevel(Level.INFO);
    sdkLogger.setLevel(Level.INFO);
  }

  @AfterEach
  void release() {
    capture.close();
    monitorLogger.setLevel(null);
    sdkLogger.setLevel(null);
  }

  @ParameterizedTest
  @ValueSource(strings = {"http/protobuf", "grpc"})
  void export_backendClosedThenSilentThenBack_logsAHandfulOfLinesAndCountsTheDropped(String protocol)
      throws Exception {
    int port = freePort();
    ExportMonitor monitor = new ExportMonitor(Clock.system(), REMINDER);
    Map<String, String> props = Map.of(
        "otel.metrics.exporter", "otlp",
        "otel.exporter.otlp.protocol", protocol,
        "otel.exporter.otlp.endpoint", "http://127.0.0.1:" + port,
        "otel.exporter.otlp.compression", "gzip",
        "otel.exporter.otlp.headers", SECRET_HEADER + "=tenant-7",
        "otel.exporter.otlp.timeout", "1000",
        "otel.metric.export.interval", "150",
        "otel.java.exporter.otlp.retry.disabled", "true");
    StandaloneSdk sdk = StandaloneSdk.create(false, null, monitor, props);
    try {
      LongCounter work = sdk.openTelemetry().getMeter("test").counterBuilder("test.work").build();
      work.add(1);
      assertThat(monitor.health().state()).isEqualTo(HealthStatus.State.HEALTHY);
      long start = System.nanoTime();

      // 1. Nothing listens on the port.
      awaitFailures(monitor, 3);
      assertThat(monitor.health().state()).isEqualTo(HealthStatus.State.UNHEALTHY);
      assertThat(monitor.health().reasons()).singleElement().asString()
          .startsWith("OTLP export to http://127.0.0.1:" + port + " (" + protocol + ") failing for ");

      // 2. Connections are accepted and never answered.
      long before = monitor.failedExports();
      try (Silent silent = new Silent(port)) {
        awaitFailures(monitor, before + 3);
        assertThat(silent.accepted()).isPositive();
      }

      // 3. A real receiver on the same port.
      List<ExportMetricsServiceRequest> received;
      List<Map<String, String>> headers;
      AutoCloseable receiver;
      if (protocol.equals("grpc")) {
        GrpcOtlpReceiver grpc = bind(() -> new GrpcOtlpReceiver(port));
        received = grpc.requests;
        headers = grpc.headers;
        receiver = grpc;
      } else {
        OtlpHttpReceiver http = bind(() -> new OtlpHttpReceiver(port));
        received = http.requests;
        headers = http.headers;
        receiver = http;
      }
      try (receiver) {
        long failed = monitor.failedExports();
        // An export the receiver decoded may still have timed out at the client on a loaded
        // machine: recovery is the first export that the exporter saw succeed.
        await(() -> dropped(received) >= 1 && monitor.health().state() == HealthStatus.State.HEALTHY,
            "an export to succeed and the dropped-points metric to arrive");
        long outageNanos = System.nanoTime() - start;
        assertThat(monitor.health().state()).isEqualTo(HealthStatus.State.HEALTHY);

        // Decoded on the wire: the agent's own counters of what the outage dropped.
        assertThat(value(received, "gputop.agent.export.failed_exports")).isGreaterThanOrEqualTo(failed);
        assertThat(dropped(received)).isGreaterThanOrEqualTo(failed);
        assertThat(value(received, "test.work")).isEqualTo(1);
        Map<String, String> h = headers.get(headers.size() - 1);
        assertThat(h).containsEntry(SECRET_HEADER, "tenant-7");
        assertThat(h).containsEntry(protocol.equals("grpc") ? "grpc-encoding" : "content-encoding", "gzip");

        List<LogRecord> all = capture.records().stream()
            .filter(r -> ExportMonitor.class.getName().equals(r.getLoggerName())).toList();
        System.out.printf("%s outage of %d ms: %d failed exports, %d records from the exporter:%n",
            protocol, TimeUnit.NANOSECONDS.toMillis(outageNanos), failed, all.size());
        all.forEach(r -> System.out.println("  " + r.getLevel() + " " + r.getMessage()));
        // The outage's records end with its recovery; an export timing out on a loaded machine
        // right after would start a new failure, with its own WARNING, after that.
        int recovery = -1;
        for (int i = 0; i < all.size() && recovery < 0; i++) {
          recovery = all.get(i).getLevel() == Level.INFO ? i : -1;
        }
        assertThat(recovery).as("the recovery record").isPositive();
        List<LogRecord> mine = all.subList(0, recovery + 1);
        assertThat(all.subList(recovery + 1, all.size())).allSatisfy(r -> assertThat(r.getMessage())
            .containsAnyOf(" failed: ", " still failing after ", " recovered after "));
        String what = "OTLP export of metrics to http://127.0.0.1:" + port + " (" + protocol + ")";
        // Every failure was one attempt of at most the timeout or a refusal: the reminders are
        // bounded by the outage's measured length over the interval, whatever the machine's speed.
        long maxReminders = outageNanos / REMINDER.toNanos() + 1;
        assertThat(mine).first().satisfies(r -> {
          assertThat(r.getLevel()).isEqualTo(Level.WARNING);
          // Refused at once, or (on a loaded machine) the connect did not complete in time.
          assertThat(r.getMessage()).matches(java.util.regex.Pattern.quote(what + " failed: ")
              + "(connection refused|timed out).*");
        });
        assertThat(mine).last().satisfies(r -> {
          assertThat(r.getLevel()).isEqualTo(Level.INFO);
          assertThat(r.getMessage()).startsWith(what + " recovered after ");
        });
        List<LogRecord> reminders = mine.subList(1, mine.size() - 1);
        assertThat(reminders).allSatisfy(r -> {
          assertThat(r.getLevel()).isEqualTo(Level.WARNING);
          assertThat(r.getMessage()).startsWith(what + " still failing after ");
        });
        assertThat((long) reminders.size()).isBetween(1L, maxReminders);
        assertThat(reminders).anySatisfy(r -> assertThat(r.getMessage()).contains("): timed out"));
        assertThat(capture.records()).extracting(LogRecord::getThrown).containsOnlyNulls();
        assertThat(capture.records())
            .filteredOn(r -> r.getLoggerName() != null && r.getLoggerName().startsWith("io.opentelemetry"))
            .filteredOn(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
            .isEmpty();
        assertThat(capture.records()).extracting(LogRecord::getMessage).noneMatch(m -> m.contains("tenant-7"));
      }
    } finally {
      sdk.shutdown(Duration.ofSeconds(2));
    }
  }

  private static long dropped(List<ExportMetricsServiceRequest> received) {
    return value(received, "gputop.agent.export.dropped_points");
  }

  /** The newest value of a sum metric named {@code name}, or -1. */
  private static long value(List<ExportMetricsServiceRequest> received, String name) {
    for (int i = received.size() - 1; i >= 0; i--) {
      for (var rm : received.get(i).getResourceMetricsList()) {
        for (var sm : rm.getScopeMetricsList()) {
          for (Metric m : sm.getMetricsList()) {
            if (m.getName().equals(name) && m.getSum().getDataPointsCount() > 0) {
              return m.getSum().getDataPoints(0).getAsInt();
            }
          }
        }
      }
    }
    return -1;
  }

  private static void awaitFailures(ExportMonitor monitor, long n) throws InterruptedException {
    await(() -> monitor.failedExports() >= n, n + " failed exports");
  }

  /** Waits for an event; the limit only ends a test that would otherwise hang. */
  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > limit) {
        throw new AssertionError("waited 60 s for " + what);
      }
      Thread.sleep(20);
    }
  }

  interface Binding<T> {
    T bind() throws IOException;
  }

  /**
   * Binds the receiver to the port the exporter is configured with; the silent server's sockets
   * were reset (no TIME_WAIT), but the kernel may take a moment to release the port.
   */
  private static <T> T bind(Binding<T> binding) throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return binding.bind();
      } catch (IOException e) {
        boolean inUse = e instanceof java.net.BindException || e.getCause() instanceof java.net.BindException;
        if (!inUse || attempt == 100) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Accepts connections on a port and never reads or answers. */
  private static final class Silent implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    Silent(int port) throws IOException {
      server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
      Thread t = new Thread(() -> {
        while (!server.isClosed()) {
          try {
            sockets.add(server.accept());
          } catch (IOException e) {
            return;
          }
        }
      }, "silent-backend");
      t.setDaemon(true);
      t.start();
    }

    int accepted() {
      return sockets.size();
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : new ArrayList<>(sockets)) {
        s.setSoLinger(true, 0); // reset: no TIME_WAIT holding the port for the real receiver
        s.close();
      }
    }
  }
}
