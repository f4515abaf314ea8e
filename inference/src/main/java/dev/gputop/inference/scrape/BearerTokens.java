package dev.gputop.inference.scrape;

import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads {@code bearerTokenFile} on every scrape, so a rotated token (a Kubernetes projected
 * service-account token, a Vault agent sink) is used from the next scrape on. The file is tiny
 * and scrapes are seconds apart, so there is nothing to cache. Messages name the file, never
 * its content. Stateless and thread-safe.
 */
final class BearerTokens {

  private static final long MAX_TOKEN_FILE = 64 << 10;

  private BearerTokens() {}

  /** The trimmed token in {@code file}. */
  static String read(String file) throws ScrapeFailure {
    Path path = Path.of(file);
    String token;
    try {
      if (Files.size(path) > MAX_TOKEN_FILE) {
        throw failure(
            "bearer token file " + file + " is larger than " + Formats.size(MAX_TOKEN_FILE));
      }
      token = Files.readString(path, StandardCharsets.UTF_8).strip();
    } catch (NoSuchFileException e) {
      throw failure("bearer token file " + file + " does not exist");
    } catch (AccessDeniedException e) {
      throw failure("bearer token file " + file + " is not readable (permission denied)");
    } catch (IOException e) {
      throw failure("cannot read bearer token file " + file + ": " + e.getClass().getSimpleName());
    }
    if (token.isEmpty()) {
      throw failure("bearer token file " + file + " is empty");
    }
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        throw failure("bearer token file " + file
            + " holds more than one line or a character not allowed in a token");
      }
    }
    return token;
  }

  private static ScrapeFailure failure(String message) {
    return new ScrapeFailure(Outcome.IO_ERROR, message);
  }
}
