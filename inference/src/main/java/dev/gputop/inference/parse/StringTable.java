package dev.gputop.inference.parse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

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
final class StringTable {

  private final long hashSeed;
  private final int maxSize;
  private final long maxBytes;
  private static final int INITIAL_CAPACITY = 256;

  private byte[][] keys = new byte[INITIAL_CAPACITY][];
  private String[] values = new String[INITIAL_CAPACITY];
  private int[] hashes = new int[INITIAL_CAPACITY];
  private int size;
  private long bytes;

  StringTable(long hashSeed, int maxSize, long maxBytes) {
    this.hashSeed = hashSeed;
    this.maxSize = maxSize;
    this.maxBytes = maxBytes;
  }

  /** The string written as {@code b[s, e)}. */
  String get(byte[] b, int s, int e) {
    int hash = ExpositionParser.hash(b, s, e, hashSeed);
    int mask = keys.length - 1;
    int n = e - s;
    for (int i = hash & mask; ; i = (i + 1) & mask) {
      byte[] k = keys[i];
      if (k == null) {
        if (size > 0 && (size >= maxSize || bytes + n > maxBytes)) {
          clear();
          return get(b, s, e);
        }
        String value = decode(b, s, e);
        keys[i] = Arrays.copyOfRange(b, s, e);
        values[i] = value;
        hashes[i] = hash;
        bytes += n;
        if (++size > keys.length / 2) {
          grow();
        }
        return value;
      }
      if (hashes[i] == hash && k.length == n && Arrays.equals(k, 0, n, b, s, e)) {
        return values[i];
      }
    }
  }

  /** Number of strings held. */
  int size() {
    return size;
  }

  /** Bytes of the keys held (the strings themselves take about as much again). */
  long bytes() {
    return bytes;
  }

  /** Forgets every string and returns to the initial capacity. */
  void clear() {
    keys = new byte[INITIAL_CAPACITY][];
    values = new String[INITIAL_CAPACITY];
    hashes = new int[INITIAL_CAPACITY];
    size = 0;
    bytes = 0;
  }

  private void grow() {
    byte[][] oldKeys = keys;
    String[] oldValues = values;
    int[] oldHashes = hashes;
    int capacity = oldKeys.length * 2;
    keys = new byte[capacity][];
    values = new String[capacity];
    hashes = new int[capacity];
    int mask = capacity - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldKeys[j] != null) {
        int i = oldHashes[j] & mask;
        while (keys[i] != null) {
          i = (i + 1) & mask;
        }
        keys[i] = oldKeys[j];
        values[i] = oldValues[j];
        hashes[i] = oldHashes[j];
      }
    }
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
