package dev.gputop.inference.scrape;

import java.util.Locale;

/**
 * Tells a body that can't be a metrics exposition (an HTML login page, an XML or JSON document,
 * binary data) from one that may be, by its first bytes and its Content-Type, without parsing it:
 * such a body is a failed scrape with outcome {@code malformed} (docs/scraping.md), not a success
 * whose server then shows {@code down}. A body that passes may still fail the parser.
 *
 * <p>Stateless and thread-safe.
 */
final class ExpositionSniff {

  private ExpositionSniff() {}

  /**
   * Why the body is not an exposition, or null when it may be one. An empty body is an empty
   * exposition. Reads only the leading whitespace and the first byte after it.
   */
  static String notAnExposition(byte[] body, int length, String contentType) {
    int i = 0;
    if (length >= 3 && (body[0] & 0xff) == 0xEF && (body[1] & 0xff) == 0xBB && (body[2] & 0xff) == 0xBF) {
      i = 3; // UTF-8 byte-order mark
    }
    while (i < length && (body[i] == ' ' || body[i] == '\t' || body[i] == '\n' || body[i] == '\r')) {
      i++;
    }
    if (i == length) {
      return null;
    }
    int first = body[i] & 0xff;
    String type = mediaType(contentType);
    if (first == '<') {
      return "the body is an HTML or XML page" + (type.isEmpty() ? "" : " (Content-Type " + type + ")")
          + ", not a metrics exposition";
    }
    if (first == '[' || (first == '{' && type.endsWith("json"))) {
      return "the body is a JSON document" + (type.isEmpty() ? "" : " (Content-Type " + type + ")")
          + ", not a metrics exposition";
    }
    // An exposition's first line is a comment, a metric name or (UTF-8 names) a quoted one.
    boolean name = first == '#' || first == '_' || first == ':' || first == '{'
        || (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z');
    if (!name) {
      return String.format(Locale.ROOT,
          "the body starts with byte 0x%02x, not a metrics exposition%s", first,
          type.isEmpty() ? "" : " (Content-Type " + type + ")");
    }
    return null;
  }

  private static String mediaType(String contentType) {
    if (contentType == null) {
      return "";
    }
    int semicolon = contentType.indexOf(';');
    return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
  }
}
