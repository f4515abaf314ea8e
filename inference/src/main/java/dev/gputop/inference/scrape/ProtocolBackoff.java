package dev.gputop.inference.scrape;

import dev.gputop.config.Endpoint;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Backs off from servers that answer with something that is not HTTP (an endless or malformed
 * header section, a garbage status line). Such a response fails at once and its connection is
 * closed, but whatever answers like that is not an HTTP metrics server (an SSH port, a wrong
 * service), and asking it again every cycle would only repeat the error and its log line. After
 * such a response the server is not scraped again for 30s, then 1, 2, 4 and at most 10 minutes
 * while it keeps doing it; its results meanwhile repeat the last error. A valid response ends the
 * backoff. Thread-safe.
 */
final class ProtocolBackoff {

  static final Duration FIRST = Duration.ofSeconds(30);
  static final Duration MAX = Duration.ofMinutes(10);

  /** More servers than any node runs; past it the memory is dropped rather than grown. */
  private static final int MAX_SERVERS = 4096;

  /** A pause: until when, how many violations in a row, and the error they repeat. */
  private record Pause(long untilNanos, int violations, Outcome outcome, String error) {}

  /** What to report instead of scraping. */
  record Skip(Outcome outcome, String message) {}

  private final ConcurrentHashMap<String, Pause> pauses = new ConcurrentHashMap<>();

  /** The result to report instead of scraping {@code target} now, or null to scrape it. */
  Skip check(Endpoint target, long nowNanos) {
    Pause pause = pauses.get(key(target));
    if (pause == null || nowNanos - pause.untilNanos() >= 0) {
      return null;
    }
    long seconds = Math.max(1, (pause.untilNanos() - nowNanos + 999_999_999L) / 1_000_000_000L);
    return new Skip(pause.outcome(), pause.error()
        + " (not scraped again for " + seconds + "s: the server broke the HTTP protocol)");
  }

  /** Records how a scrape of {@code target} ended. */
  void record(Endpoint target, ScrapeCall.Completed completed, long nowNanos) {
    String key = key(target);
    if (!completed.protocolViolation()) {
      if (completed.result().ok() || completed.statusCode() > 0) {
        pauses.remove(key); // a valid HTTP response
      }
      return;
    }
    if (pauses.size() > MAX_SERVERS) {
      pauses.clear();
    }
    pauses.compute(key, (k, previous) -> {
      int violations = previous == null ? 1 : previous.violations() + 1;
      long pause = Math.min(FIRST.toNanos() << Math.min(violations - 1, 20), MAX.toNanos());
      ScrapeResult result = completed.result();
      return new Pause(nowNanos + pause, violations, result.outcome(), result.error());
    });
  }

  private static String key(Endpoint target) {
    return target.name() + ' ' + target.url();
  }
}
