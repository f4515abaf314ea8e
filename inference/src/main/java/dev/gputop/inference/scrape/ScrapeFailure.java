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

  ScrapeFailure(Outcome outcome, String message) {
    super(message, null, false, false);
    this.outcome = Objects.requireNonNull(outcome, "outcome");
  }

  Outcome outcome() {
    return outcome;
  }
}
