package dev.gputop.inference.parse;

/**
 * A malformed exposition. The message reads {@code line N: reason}; the scrape that produced it
 * fails and the server shows {@code down} with this message.
 */
public final class ExpositionFormatException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int line;

  public ExpositionFormatException(int line, String reason) {
    super("line " + line + ": " + reason);
    this.line = line;
  }

  /** The 1-based line of the problem. */
  public int line() {
    return line;
  }
}
