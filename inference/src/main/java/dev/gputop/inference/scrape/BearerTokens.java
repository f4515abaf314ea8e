package dev.gputop.inference.scrape;

import dev.gputop.config.internal.credentials.BearerTokenFile;
import dev.gputop.config.internal.credentials.CredentialException;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.nio.file.Path;

/**
 * Reads {@code bearerTokenFile} on every scrape through the shared {@link BearerTokenFile}, so a
 * rotated token is used from the next scrape on; a file that can't be used is an {@link
 * Outcome#IO_ERROR} scrape failure naming the file, never its content. Stateless and thread-safe.
 */
final class BearerTokens {

  private BearerTokens() {}

  /** The trimmed token in {@code file}. */
  static String read(String file) throws ScrapeFailure {
    try {
      return BearerTokenFile.read(Path.of(file));
    } catch (CredentialException e) {
      throw new ScrapeFailure(Outcome.IO_ERROR, e.getMessage());
    }
  }
}
