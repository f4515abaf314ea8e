package dev.gputop.inference.scrape;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/** Formatting shared by the scraper's messages: durations, sizes, hosts, body snippets. */
final class Formats {

  private Formats() {}

  /** {@code 2s}, {@code 1.5s}, {@code 500ms}. */
  static String duration(Duration d) {
    long millis = d.toMillis();
    if (millis < 1000) {
      return millis + "ms";
    }
    if (millis % 1000 == 0) {
      return (millis / 1000) + "s";
    }
    return String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
  }

  /** {@code 16 MiB}, {@code 64 KiB}, {@code 1500 bytes}: exact units when they divide evenly. */
  static String size(long bytes) {
    if (bytes >= (1L << 30) && bytes % (1L << 30) == 0) {
      return (bytes >> 30) + " GiB";
    }
    if (bytes >= (1L << 20) && bytes % (1L << 20) == 0) {
      return (bytes >> 20) + " MiB";
    }
    if (bytes >= (1L << 10) && bytes % (1L << 10) == 0) {
      return (bytes >> 10) + " KiB";
    }
    return bytes + (bytes == 1 ? " byte" : " bytes");
  }

  /** {@code host:port} with the scheme's default port filled in; no user info, path or query. */
  static String hostPort(URI uri) {
    int port = uri.getPort();
    if (port < 0) {
      port = "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }
    return uri.getHost() + ":" + port;
  }

  /**
   * The first {@code max} characters of a body as one line: control characters and runs of
   * whitespace become a single space, so an HTML or JSON error page fits in a log line.
   */
  static String snippet(byte[] body, int length, int max) {
    String text = new String(body, 0, length, StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(Math.min(text.length(), max));
    boolean pendingSpace = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c)) {
        pendingSpace = out.length() > 0;
        continue;
      }
      if (out.length() + (pendingSpace ? 2 : 1) > max) {
        return out + "…";
      }
      if (pendingSpace) {
        out.append(' ');
        pendingSpace = false;
      }
      out.append(c);
    }
    return out.toString();
  }

  /** The reason phrase of the statuses an inference server is likely to answer with. */
  static String reason(int status) {
    switch (status) {
      case 400: return "Bad Request";
      case 401: return "Unauthorized";
      case 403: return "Forbidden";
      case 404: return "Not Found";
      case 405: return "Method Not Allowed";
      case 406: return "Not Acceptable";
      case 408: return "Request Timeout";
      case 429: return "Too Many Requests";
      case 500: return "Internal Server Error";
      case 501: return "Not Implemented";
      case 502: return "Bad Gateway";
      case 503: return "Service Unavailable";
      case 504: return "Gateway Timeout";
      default: return "";
    }
  }
}
