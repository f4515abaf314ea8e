package dev.gputop.inference.scrape;

import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.util.Objects;

/**
 * A scrape that failed for a known reason, carried through the asynchronous pipeline until it
 * becomes a {@link ScrapeResult}. The message is what a person reads: it names the host, the
 * limit or the file involved and never contains a header value, a token or a key.
 *
 * <p>Has no stack trace: it is expected control flow, created per failed scrape.
 */
final class ScrapeFailure extends Exception {

  private static final long serialVersionUID = 1L;

  private final Outcome outcome;
  private final boolean protocolViolation;

  ScrapeFailure(Outcome outcome, String message) {
    this(outcome, message, false);
  }

  /**
   * @param protocolViolation the server sent something that is not HTTP (see {@link
   *     ProtocolBackoff})
   */
  ScrapeFailure(Outcome outcome, String message, boolean protocolViolation) {
    super(message, null, false, false);
    this.outcome = Objects.requireNonNull(outcome, "outcome");
    this.protocolViolation = protocolViolation;
  }

  Outcome outcome() {
    return outcome;
  }

  boolean protocolViolation() {
    return protocolViolation;
  }
}
