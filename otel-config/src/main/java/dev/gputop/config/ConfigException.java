package dev.gputop.config;

/**
 * A configuration that can't be used. The message names the key and, when the value came from a
 * file, its line, so a person can fix it without reading code. The CLI maps it to exit code 1.
 */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String key;
  private final int line;

  /**
   * @param key the dotted key, e.g. {@code inference.endpoints[0].url}
   * @param line the 1-based line in the file, or 0 when unknown (defaults, overrides)
   * @param reason what is wrong, in words
   */
  public ConfigException(String key, int line, String reason) {
    super(format(key, line, reason));
    this.key = key;
    this.line = line;
  }

  /** The dotted key that is wrong. */
  public String key() {
    return key;
  }

  /** The 1-based line in the file, or 0 when unknown. */
  public int line() {
    return line;
  }

  private static String format(String key, int line, String reason) {
    return (line > 0 ? "line " + line + ": " : "") + key + ": " + reason;
  }
}
