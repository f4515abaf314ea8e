package dev.gputop.inference.scrape;

import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Logs scrape failures without flooding the log: per server, a WARNING when it starts failing or
 * fails differently (another outcome), then at most one every {@link #REPEAT_NANOS} while it keeps
 * failing the same way (FINE in between), and one INFO line when it recovers. A server scraped
 * every 3s that is down for a day writes about 150 lines, not 29,000. Thread-safe.
 */
final class FailureLog {

  static final long REPEAT_NANOS = TimeUnit.MINUTES.toNanos(10);

  /** More servers than any node runs; past it the memory is dropped rather than grown. */
  private static final int MAX_SERVERS = 4096;

  private record State(Outcome outcome, long loggedAt, long suppressed) {}

  private final Logger logger;
  private final ConcurrentHashMap<String, State> states = new ConcurrentHashMap<>();

  FailureLog(Logger logger) {
    this.logger = logger;
  }

  /**
   * Records one result.
   *
   * @param nowNanos a monotonic reading, for the repeat interval
   */
  void record(ScrapeResult result, long nowNanos) {
    String server = result.target().name();
    String where = "'" + server + "' (" + ScrapeTelemetry.redactedUrl(result.target().url()) + ")";
    if (result.ok()) {
      State previous = states.remove(server);
      if (previous != null) {
        logger.info("Scrape of " + where + " succeeds again");
      }
      return;
    }
    if (states.size() > MAX_SERVERS) {
      states.clear();
    }
    long[] reportSuppressed = {-1};
    states.compute(server, (k, previous) -> {
      if (previous == null || previous.outcome() != result.outcome()
          || nowNanos - previous.loggedAt() >= REPEAT_NANOS) {
        reportSuppressed[0] = previous == null || previous.outcome() != result.outcome()
            ? 0 : previous.suppressed();
        return new State(result.outcome(), nowNanos, 0);
      }
      return new State(previous.outcome(), previous.loggedAt(), previous.suppressed() + 1);
    });
    if (reportSuppressed[0] < 0) {
      if (logger.isLoggable(Level.FINE)) {
        logger.fine("Scrape of " + where + " failed again: " + result.error());
      }
    } else if (reportSuppressed[0] == 0) {
      logger.warning("Scrape of " + where + " failed: " + result.error());
    } else {
      logger.warning("Scrape of " + where + " still fails (" + reportSuppressed[0]
          + " more failures since the last report): " + result.error());
    }
  }
}
