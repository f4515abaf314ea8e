package dev.gputop.inference.scrape;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FailureLogTest {

  private static final long MINUTE = 60_000_000_000L;

  private final Logger logger = Logger.getLogger("test.FailureLogTest");
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord record) {
      if (record.getLevel().intValue() >= Level.INFO.intValue()) {
        records.add(record);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private final ScrapeTarget target =
      ScrapeTarget.of("vllm", URI.create("http://u:pw@127.0.0.1:8000/metrics"));

  @BeforeEach
  void attach() {
    logger.setUseParentHandlers(false);
    logger.addHandler(handler);
  }

  @AfterEach
  void detach() {
    logger.removeHandler(handler);
  }

  @Test
  void record_repeatedFailure_warnsOnceThenEveryTenMinutes() {
    FailureLog log = new FailureLog(logger);
    for (int i = 0; i < 200; i++) {
      log.record(failure(Outcome.CONNECT_ERROR, "connect to 127.0.0.1:8000 refused"),
          i * 3_000_000_000L);
    }
    log.record(failure(Outcome.CONNECT_ERROR, "connect to 127.0.0.1:8000 refused"), 11 * MINUTE);

    assertThat(records).extracting(LogRecord::getMessage).containsExactly(
        "Scrape of 'vllm' (http://REDACTED:REDACTED@127.0.0.1:8000/metrics) failed: "
            + "connect to 127.0.0.1:8000 refused",
        "Scrape of 'vllm' (http://REDACTED:REDACTED@127.0.0.1:8000/metrics) still fails "
            + "(199 more failures since the last report): connect to 127.0.0.1:8000 refused");
    assertThat(records).extracting(LogRecord::getLevel).containsOnly(Level.WARNING);
  }

  @Test
  void record_newKindOfFailureAndRecovery_areReportedAtOnce() {
    FailureLog log = new FailureLog(logger);
    log.record(failure(Outcome.CONNECT_ERROR, "connect to 127.0.0.1:8000 refused"), 0);
    log.record(failure(Outcome.TIMEOUT, "timed out after 2s"), 1);
    log.record(new ScrapeResult(target, Outcome.SUCCESS, new byte[0], 0, null, 0, 1, null), 2);
    log.record(new ScrapeResult(target, Outcome.SUCCESS, new byte[0], 0, null, 0, 1, null), 3);

    assertThat(records).extracting(LogRecord::getLevel)
        .containsExactly(Level.WARNING, Level.WARNING, Level.INFO);
    assertThat(records.get(1).getMessage()).endsWith("failed: timed out after 2s");
    assertThat(records.get(2).getMessage()).endsWith("succeeds again");
  }

  private ScrapeResult failure(Outcome outcome, String message) {
    return new ScrapeResult(target, outcome, null, 0, null, 0, 1, message);
  }
}
