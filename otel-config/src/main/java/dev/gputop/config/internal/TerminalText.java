package dev.gputop.config.internal;

/**
 * The one rule for text that reaches a terminal from somewhere the agent does not control (a
 * scraped server's names, labels and headers, a process's command line, a configured name, an
 * error message quoting any of them): every character a terminal would act on rather than show
 * is written as a visible escape, so a hostile string can't move the cursor, retitle the window,
 * recolour the screen, reorder the line (bidi overrides) or forge a line of its own.
 *
 * <p>Escaped: C0 controls (U+0000–U+001F, tab and line feed included), DEL (U+007F), C1 controls
 * (U+0080–U+009F: a UTF-8 terminal may take U+009B as CSI), the bidi controls (U+061C, U+200E,
 * U+200F, U+202A–U+202E, U+2066–U+2069) and the line and paragraph separators (U+2028, U+2029).
 * Those up to U+00FF as {@code \x1b}, the others as {@code \u202e}. Everything else, non-ASCII
 * letters included, is left as it is. Backslashes are left alone: an escape can look like text the
 * server sent, but it can't act.
 *
 * <p>Used at every print point of the commands (docs/RELIABILITY.md, "Hostile strings").
 * Stateless and thread-safe.
 */
public final class TerminalText {

  private TerminalText() {}

  /** {@code s} as one piece of a line: every unsafe character escaped, line feeds included. */
  public static String value(CharSequence s) {
    return escape(s, false);
  }

  /**
   * {@code s} as lines: every unsafe character escaped except the line feeds that separate the
   * lines (text the agent laid out itself, whose values were put in with {@link #value}).
   */
  public static String lines(CharSequence s) {
    return escape(s, true);
  }

  /** The visible escape of code point {@code cp}, or null when a terminal shows it as it is. */
  public static String escapeOf(int cp) {
    if (!unsafe(cp)) {
      return null;
    }
    return cp <= 0xff ? String.format("\\x%02x", cp) : String.format("\\u%04x", cp);
  }

  /** Whether a terminal acts on {@code cp} rather than showing it. */
  public static boolean unsafe(int cp) {
    return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)
        || cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e)
        || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
  }

  private static String escape(CharSequence s, boolean keepLineFeeds) {
    if (s == null) {
      return "null";
    }
    int n = s.length();
    int i = 0;
    while (i < n && !unsafe(s.charAt(i)) || i < n && keepLineFeeds && s.charAt(i) == '\n') {
      i++;
    }
    if (i == n) {
      return s.toString(); // the usual case: nothing to escape, nothing copied
    }
    StringBuilder b = new StringBuilder(n + 16).append(s, 0, i);
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (keepLineFeeds && c == '\n') {
        b.append(c);
        continue;
      }
      String e = escapeOf(c);
      if (e == null) {
        b.append(c);
      } else {
        b.append(e);
      }
    }
    return b.toString();
  }
}
