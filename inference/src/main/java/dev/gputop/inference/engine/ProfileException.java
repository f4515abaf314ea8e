package dev.gputop.inference.engine;

/**
 * An engine profile that can't be used. The message names the file, the dotted key and its line,
 * as configuration errors do: {@code engines/vllm.yaml: line 12: concepts.kvCache[0].gauge:
 * expected a metric name}.
 */
public final class ProfileException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String file;
  private final String key;
  private final int line;
  private final String reason;

  /**
   * @param file the profile file or resource, as the user knows it
   * @param key the dotted key, e.g. {@code concepts.ttft[0].histogram}
   * @param line the 1-based line, or 0 when unknown
   * @param reason what is wrong, in words
   */
  public ProfileException(String file, String key, int line, String reason) {
    super(file + ": " + (line > 0 ? "line " + line + ": " : "") + key + ": " + reason);
    this.file = file;
    this.key = key;
    this.line = line;
    this.reason = reason;
  }

  /** What is wrong, without the file, line and key. */
  public String reason() {
    return reason;
  }

  public String file() {
    return file;
  }

  public String key() {
    return key;
  }

  public int line() {
    return line;
  }
}
