package dev.gputop.inference.parse;

import java.nio.charset.StandardCharsets;

/**
 * Interns the strings of an exposition by their bytes as written: metric and label names, label
 * values, HELP texts. A string seen before is found without building it again, so a label value
 * that repeats on hundreds of lines ({@code engine="0"}, the model name, the {@code le} bounds of
 * every histogram) costs one String per parser, not one per line.
 *
 * <p>Text is decoded as UTF-8 after unescaping {@code \\}, {@code \"} and {@code \n}; any other
 * backslash sequence is kept as written. That is how label values and HELP texts are read, and
 * names contain no backslash, so one decoding serves all. Emptied when it would exceed its
 * bounds. Not thread-safe: owned by one {@link ParserTables}.
 */
final class StringTable extends InternTable<String> {

  StringTable(long hashSeed, int maxSize, long maxBytes) {
    super(hashSeed, maxSize, maxBytes);
  }

  @Override
  String create(byte[] b, int s, int e, byte[] key) {
    return decode(b, s, e);
  }

  static String decode(byte[] b, int s, int e) {
    boolean ascii = true;
    boolean escaped = false;
    for (int i = s; i < e; i++) {
      byte c = b[i];
      if (c < 0) {
        ascii = false;
      } else if (c == '\\') {
        escaped = true;
      }
    }
    if (!escaped) {
      return new String(b, s, e - s, ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
    }
    byte[] out = new byte[e - s];
    int n = 0;
    for (int i = s; i < e; i++) {
      byte c = b[i];
      if (c == '\\' && i + 1 < e) {
        byte d = b[i + 1];
        if (d == '\\' || d == '"') {
          out[n++] = d;
          i++;
          continue;
        } else if (d == 'n') {
          out[n++] = '\n';
          i++;
          continue;
        }
      }
      out[n++] = c;
    }
    return new String(out, 0, n, StandardCharsets.UTF_8);
  }
}
