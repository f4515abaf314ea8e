package dev.gputop.inference.scrape;

import dev.gputop.config.Endpoint;
import java.util.Objects;

/**
 * The outcome of one scrape. Immutable by contract: the body array is not copied and must not be
 * modified by anyone after the result is created.
 *
 * @param target what was scraped
 * @param outcome success or the kind of failure
 * @param body the (decompressed) body on success, else null
 * @param length how many bytes of {@code body} are valid
 * @param contentType the response's Content-Type, or null
 * @param startEpochNanos when the scrape started (wall clock), for exported timestamps
 * @param startNanos when the scrape started on the same clock's monotonic time, for windows and
 *     rates (never rebuilt from wall time, which may jump)
 * @param durationNanos how long it took
 * @param error a message a person can act on when it failed, else null
 */
public record ScrapeResult(
    Endpoint target,
    Outcome outcome,
    byte[] body,
    int length,
    String contentType,
    long startEpochNanos,
    long startNanos,
    long durationNanos,
    String error) {

  /** Success or the kind of failure, exported as the {@code outcome} attribute of scrape metrics. */
  public enum Outcome {
    SUCCESS,
    TIMEOUT,
    CONNECT_ERROR,
    HTTP_ERROR,
    TOO_LARGE,
    TLS_ERROR,
    REDIRECT_REJECTED,
    IO_ERROR,
    /** A 2xx body that is not a metrics exposition (an HTML login page, JSON, binary). */
    MALFORMED;

    /** Lower-case name for attributes and JSON. */
    public String attributeValue() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public ScrapeResult {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(outcome, "outcome");
  }

  /** This scrape, a success whose body did not read, as a malformed one saying {@code why}. */
  public ScrapeResult malformed(String why) {
    return new ScrapeResult(target, Outcome.MALFORMED, null, 0, null, startEpochNanos,
        startNanos, durationNanos, Objects.requireNonNull(why, "why"));
  }

  public boolean ok() {
    return outcome == Outcome.SUCCESS;
  }
}
