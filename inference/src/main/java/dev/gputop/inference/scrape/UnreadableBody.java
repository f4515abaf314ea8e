package dev.gputop.inference.scrape;

import dev.gputop.inference.parse.ExpositionFormatException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * What to tell a person whose server answered 200 with a body the parser refused: when the body
 * is plainly not metrics (a login or index page, a JSON API), saying so, with the usual cause,
 * rather than the parser's view of its first bytes ({@code invalid metric name "<!doctype"}).
 * One text for {@code run} (the server's error) and {@code explain}. Stateless.
 */
public final class UnreadableBody {

  private UnreadableBody() {}

  /** The message for {@code result}'s body, which failed to parse with {@code e}. */
  public static String message(ScrapeResult result, ExpositionFormatException e) {
    String kind = kind(result.body(), result.length(), result.contentType());
    if (kind != null) {
      String type = result.contentType() == null ? "" : " (Content-Type " + result.contentType().strip() + ")";
      return "the server answered " + kind + type + ", not Prometheus metrics: is the URL its metrics path?";
    }
    return "malformed exposition: " + e.getMessage();
  }

  /** "an HTML page", "a JSON document", or null when the body may well be a broken exposition. */
  static String kind(byte[] body, int length, String contentType) {
    String type = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT);
    String start = body == null ? "" : new String(body, 0, Math.min(length, 64), StandardCharsets.UTF_8)
        .stripLeading().toLowerCase(Locale.ROOT);
    if (type.startsWith("text/html") || start.startsWith("<!doctype html") || start.startsWith("<html")) {
      return "an HTML page";
    }
    if (type.startsWith("application/json") || start.startsWith("{")) {
      return "a JSON document";
    }
    return null;
  }
}
