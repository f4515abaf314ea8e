package dev.gputop.inference.scrape;

import dev.gputop.config.logging.FailureLog;
import dev.gputop.receiver.Clock;
import java.util.logging.Logger;

/**
 * Scrape results into the agent's throttled {@link FailureLog}, keyed by server name: a server
 * that starts failing logs one WARNING naming it and its redacted URL with the reason, a reminder
 * at most once a minute while it keeps failing, and one INFO when a scrape succeeds again. A server
 * scraped every 3 s that is down for a day writes about 1,440 reminders, not 29,000 lines.
 * Thread-safe.
 */
final class ScrapeFailureLog {

  private final FailureLog log;

  ScrapeFailureLog(FailureLog log) {
    this.log = log;
  }

  ScrapeFailureLog(Logger logger, Clock clock) {
    this(FailureLog.create(logger, clock));
  }

  /** Records one result. */
  void record(ScrapeResult result) {
    String server = result.target().name();
    String what = "Scrape of '" + server + "' ("
        + ScrapeTelemetry.redactedUrl(result.target().url()) + ")";
    if (result.ok()) {
      log.success(server, what);
    } else {
      log.failure(server, what, result.error());
    }
  }
}
