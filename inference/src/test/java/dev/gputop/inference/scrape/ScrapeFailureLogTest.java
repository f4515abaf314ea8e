package dev.gputop.inference.scrape;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.config.Endpoint;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import dev.gputop.testing.LogCapture;
import dev.gputop.testing.ManualClock;
import java.net.URI;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ScrapeFailureLogTest {

  private static final long MINUTE = 60_000_000_000L;

  private final Logger logger = Logger.getLogger("test.ScrapeFailureLogTest");
  private LogCapture capture;
  /** What the logger published at INFO and above. */
  private List<LogRecord> records;
  private final Endpoint target =
      Endpoint.of("vllm", URI.create("http://u:pw@127.0.0.1:8000/metrics"));

  @BeforeEach
  void attach() {
    capture = LogCapture.attach(logger, Level.INFO);
    records = capture.records();
  }

  @AfterEach
  void detach() {
    capture.close();
  }

  private final ManualClock clock = new ManualClock(0, 0);

  @Test
  void record_repeatedFailure_warnsOnceThenOnceAMinute() {
    ScrapeFailureLog log = new ScrapeFailureLog(logger, clock);
    for (int i = 0; i < 41; i++) { // every 3 s for two minutes
      clock.advanceNanos(i == 0 ? 0 : 3_000_000_000L);
      log.record(failure(Outcome.CONNECT_ERROR, "connect to 127.0.0.1:8000 refused"));
    }

    assertThat(records).extracting(LogRecord::getMessage).containsExactly(
        "Scrape of 'vllm' (http://REDACTED:REDACTED@127.0.0.1:8000/metrics) failed: "
            + "connect to 127.0.0.1:8000 refused",
        "Scrape of 'vllm' (http://REDACTED:REDACTED@127.0.0.1:8000/metrics) still failing after "
            + "1m (21 failures, 20 since the last report): connect to 127.0.0.1:8000 refused",
        "Scrape of 'vllm' (http://REDACTED:REDACTED@127.0.0.1:8000/metrics) still failing after "
            + "2m (41 failures, 20 since the last report): connect to 127.0.0.1:8000 refused");
    assertThat(records).extracting(LogRecord::getLevel).containsOnly(Level.WARNING);
    assertThat(records).extracting(LogRecord::getThrown).containsOnlyNulls();
  }

  @Test
  void record_otherReasonThenRecovery_remindsWithTheLatestReasonAndRecoversOnce() {
    ScrapeFailureLog log = new ScrapeFailureLog(logger, clock);
    log.record(failure(Outcome.CONNECT_ERROR, "connect to 127.0.0.1:8000 refused"));
    clock.advanceNanos(MINUTE / 2); // at MINUTE / 2
    log.record(failure(Outcome.TIMEOUT, "timed out after 2s"));
    clock.advanceNanos(MINUTE / 2); // at MINUTE
    log.record(failure(Outcome.TIMEOUT, "timed out after 2s"));
    clock.advanceNanos(1_000_000_000L); // at MINUTE + 1 s
    log.record(new ScrapeResult(target, Outcome.SUCCESS, new byte[0], 0, null, 0, 0, 1, null));
    log.record(new ScrapeResult(target, Outcome.SUCCESS, new byte[0], 0, null, 0, 0, 1, null));

    assertThat(records).extracting(LogRecord::getLevel)
        .containsExactly(Level.WARNING, Level.WARNING, Level.INFO);
    assertThat(records.get(1).getMessage()).endsWith("(3 failures, 2 since the last report): "
        + "timed out after 2s");
    assertThat(records.get(2).getMessage()).isEqualTo(
        "Scrape of 'vllm' (http://REDACTED:REDACTED@127.0.0.1:8000/metrics) recovered after "
            + "1m 1s (3 failures)");
  }

  private ScrapeResult failure(Outcome outcome, String message) {
    return new ScrapeResult(target, outcome, null, 0, null, 0, 0, 1, message);
  }
}
