package dev.gputop.config.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gputop.testing.LogCapture;
import dev.gputop.testing.ManualClock;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * FailureLog (otel-config) on test-support's manual clock: the test lives here because
 * otel-config's own tests can't depend on test-support, which depends on otel-config.
 */
class FailureLogTest {

  private static final long SECOND = 1_000_000_000L;

  private final Logger logger = Logger.getLogger("test.FailureLogTest");
  private LogCapture capture;
  /** What the logger published (at INFO and above: its level). */
  private List<LogRecord> records;
  private final ManualClock clock = new ManualClock(5 * SECOND, 5 * SECOND);

  @BeforeEach
  void attach() {
    logger.setLevel(Level.INFO);
    capture = LogCapture.attach(logger, Level.ALL);
    records = capture.records();
  }

  @AfterEach
  void detach() {
    capture.close();
    logger.setLevel(null);
  }

  @Test
  void failure_twoMinuteOutageEveryThreeSeconds_logsStartTwoRemindersAndRecovery() {
    FailureLog log = FailureLog.create(logger, clock);
    for (int i = 0; i < 40; i++) {
      log.failure("otlp", "Export to http://127.0.0.1:4318", new ConnectException());
      clock.advanceNanos(3 * SECOND);
    }
    log.success("otlp", "Export to http://127.0.0.1:4318");

    assertThat(records).extracting(LogRecord::getMessage).containsExactly(
        "Export to http://127.0.0.1:4318 failed: connection refused",
        "Export to http://127.0.0.1:4318 still failing after 1m "
            + "(21 failures, 20 since the last report): connection refused",
        "Export to http://127.0.0.1:4318 recovered after 2m (40 failures)");
    assertThat(records).extracting(LogRecord::getLevel)
        .containsExactly(Level.WARNING, Level.WARNING, Level.INFO);
    assertThat(records).extracting(LogRecord::getThrown).containsOnlyNulls();
    assertThat(log.isFailing("otlp")).isFalse();
  }

  @Test
  void failure_injectedReminderInterval_remindsAtThatInterval() {
    FailureLog log = FailureLog.create(logger, clock, Duration.ofSeconds(10), 16);
    for (int i = 0; i <= 30; i++) {
      log.failure("gpu-0", "GPU 0", "NVML_ERROR_GPU_IS_LOST");
      clock.advanceNanos(SECOND);
    }

    assertThat(records).extracting(LogRecord::getMessage).containsExactly(
        "GPU 0 failed: NVML_ERROR_GPU_IS_LOST",
        "GPU 0 still failing after 10s (11 failures, 10 since the last report): NVML_ERROR_GPU_IS_LOST",
        "GPU 0 still failing after 20s (21 failures, 10 since the last report): NVML_ERROR_GPU_IS_LOST",
        "GPU 0 still failing after 30s (31 failures, 10 since the last report): NVML_ERROR_GPU_IS_LOST");
  }

  @Test
  void failure_keysAreIndependent() {
    FailureLog log = FailureLog.create(logger, clock);
    log.failure("a", "Scrape of a", "connection refused");
    log.failure("b", "Scrape of b", "timed out");
    log.failure("a", "Scrape of a", "connection refused");
    log.success("b", "Scrape of b");
    log.success("c", "Scrape of c");

    assertThat(records).extracting(LogRecord::getMessage).containsExactly(
        "Scrape of a failed: connection refused",
        "Scrape of b failed: timed out",
        "Scrape of b recovered after 0ms (1 failure)");
    assertThat(log.isFailing("a")).isTrue();
    assertThat(log.failingCount()).isEqualTo(1);
  }

  @Test
  void failure_unexpectedError_carriesItsStackTraceButExpectedOnesDoNot() {
    FailureLog log = FailureLog.create(logger, clock);
    IllegalStateException bug = new IllegalStateException("index out of step");
    log.failure("bug", "Receiver inference refresh()", bug);
    log.failure("tls", "Export to https://collector", new SSLHandshakeException("PKIX path building failed"));
    log.failure("io", "Export to http://collector", new IOException("wrapped", new HttpTimeoutException("request timed out")));

    assertThat(records).extracting(LogRecord::getMessage).containsExactly(
        "Receiver inference refresh() failed: IllegalStateException: index out of step",
        "Export to https://collector failed: TLS error (PKIX path building failed)",
        "Export to http://collector failed: timed out (request timed out)");
    assertThat(records.get(0).getThrown()).isSameAs(bug);
    assertThat(records.get(1).getThrown()).isNull();
    assertThat(records.get(2).getThrown()).isNull();
  }

  @Test
  void failure_moreSourcesThanTheBound_tracksNoMoreAndSaysSoOnce() {
    FailureLog log = FailureLog.create(logger, clock, Duration.ofMinutes(1), 3);
    for (int i = 0; i < 10; i++) {
      log.failure("s" + i, "Scrape of s" + i, "connection refused");
    }

    assertThat(log.failingCount()).isEqualTo(3);
    assertThat(records).hasSize(4);
    assertThat(records.get(3).getMessage()).isEqualTo("more than 3 sources are failing at once; "
        + "further failures are logged at FINE only (first: Scrape of s3: connection refused)");
  }

  @Test
  void failure_multiLineReason_isLoggedOnOneLine() {
    FailureLog log = FailureLog.create(logger, clock);
    log.failure("k", "Scrape of k", "HTTP 500:\n<html>\r\n  <body>oops</body>\n</html>\n");

    assertThat(records).singleElement().extracting(LogRecord::getMessage)
        .isEqualTo("Scrape of k failed: HTTP 500: / <html> / <body>oops</body> / </html>");
  }

  @Test
  void create_nonPositiveInterval_isRefused() {
    assertThatThrownBy(() -> FailureLog.create(logger, clock, Duration.ZERO, 3))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void format_durations_readLikeAPerson() {
    assertThat(FailureLog.format(Duration.ofMillis(250))).isEqualTo("250ms");
    assertThat(FailureLog.format(Duration.ofSeconds(59))).isEqualTo("59s");
    assertThat(FailureLog.format(Duration.ofSeconds(125))).isEqualTo("2m 5s");
    assertThat(FailureLog.format(Duration.ofMinutes(182))).isEqualTo("3h 2m");
  }
}
