package dev.gputop.inference.scrape;

import dev.gputop.inference.parse.ExpositionFormatException;

/**
 * What to tell a person whose server answered 200 with a body the parser refused: when the body
 * is plainly not metrics (a login or index page, a JSON API), saying so, as the scraper does for
 * the bodies it recognizes before parsing ({@link ExpositionSniff}: outcome {@code malformed}),
 * rather than the parser's view of its first bytes ({@code invalid metric name "<!doctype"}).
 * One text for {@code run} (the server's error) and {@code explain}. Stateless.
 */
public final class UnreadableBody {

  private UnreadableBody() {}

  /** The message for {@code result}'s body, which failed to parse with {@code e}. */
  public static String message(ScrapeResult result, ExpositionFormatException e) {
    String notExposition = result.body() == null ? null
        : ExpositionSniff.notAnExposition(result.body(), result.length(), result.contentType());
    return notExposition != null ? notExposition : "malformed exposition: " + e.getMessage();
  }
}
