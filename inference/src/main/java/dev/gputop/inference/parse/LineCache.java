package dev.gputop.inference.parse;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One parser's intern table of lines: the {@link CachedLine}s it has seen, found by their bytes
 * (a chained hash table with a random seed per parser), and the chain of predictions, each line
 * pointing to the one that followed it last time. During a parse it also knows the previous line,
 * whose successor is the prediction for the next.
 *
 * <p>Bounded: emptied, with its predictions, when it holds more than {@code maxEntries} lines or
 * {@code maxBytes} of keys, so a server that invents new series on every scrape costs time, not
 * memory. Not thread-safe: owned by one {@link ExpositionParser}.
 */
final class LineCache {

  /** Lines kept across parses before the cache is emptied. */
  static final int DEFAULT_MAX_ENTRIES = 65_536;
  /** Bytes of cached keys kept across parses before the cache is emptied. */
  static final long DEFAULT_MAX_BYTES = 16L << 20;

  private static final int INITIAL_TABLE_SIZE = 256;

  private final int maxEntries;
  private final long maxBytes;
  private final long hashSeed = ThreadLocalRandom.current().nextLong();
  private CachedLine[] table = new CachedLine[INITIAL_TABLE_SIZE];
  private int size;
  private long bytes;
  /** Sentinel whose {@code next} is the first line of the previous parse. */
  private final CachedLine head =
      new CachedLine(new byte[0], 0, CachedLine.KIND_COMMENT, null, null, null, null);
  /** The line before the one being parsed. */
  private CachedLine prev = head;

  LineCache(int maxEntries, long maxBytes) {
    if (maxEntries <= 0 || maxBytes <= 0) {
      throw new IllegalArgumentException("cache bounds must be positive");
    }
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  /** Starts a parse: the next line is predicted to be the first of the last parse. */
  void restart() {
    prev = head;
  }

  /** The line that followed the previous one last time, or null. */
  CachedLine predicted() {
    return prev.next;
  }

  /** The line before the one being parsed (the head sentinel, a comment, for the first). */
  CachedLine previous() {
    return prev;
  }

  /** Records that {@code line} came after the previous line, for the next parse's prediction. */
  void follow(CachedLine line) {
    if (prev.next != line) {
      prev.next = line;
    }
    prev = line;
  }

  /** The hash of {@code b[s, e)} under this cache's seed, for {@link #lookup} and new lines. */
  int hash(byte[] b, int s, int e) {
    return InternTable.hash(b, s, e, hashSeed);
  }

  /** The cached line whose key is {@code b[s, e)}, or null. */
  CachedLine lookup(byte[] b, int s, int e, int hash) {
    int n = e - s;
    for (CachedLine x = table[hash & (table.length - 1)]; x != null; x = x.chain) {
      if (x.hash == hash && x.key.length == n && Arrays.equals(x.key, 0, n, b, s, e)) {
        return x;
      }
    }
    return null;
  }

  /** Adds a new line, emptying the cache first when it would exceed its bounds. */
  void insert(CachedLine line) {
    if (size >= maxEntries || bytes + line.key.length > maxBytes) {
      clear();
    }
    if (size >= table.length * 3 / 4) {
      grow();
    }
    int i = line.hash & (table.length - 1);
    line.chain = table[i];
    table[i] = line;
    size++;
    bytes += line.key.length;
  }

  /** Forgets every line and prediction. */
  void clear() {
    // Back to the initial size: a burst of series should not pin a large table for good.
    table = new CachedLine[INITIAL_TABLE_SIZE];
    size = 0;
    bytes = 0;
    // The shared tables are bounded on their own: strings are interned before their line is known
    // to be valid, so a server whose scrapes keep failing could fill them without adding lines.
    // Drop the chain of predictions too, so the old generation can be collected.
    head.next = null;
    prev = head;
  }

  /** Number of cached lines. */
  int size() {
    return size;
  }

  private void grow() {
    CachedLine[] old = table;
    CachedLine[] t = new CachedLine[old.length * 2];
    for (CachedLine x : old) {
      while (x != null) {
        CachedLine nextInChain = x.chain;
        int i = x.hash & (t.length - 1);
        x.chain = t[i];
        t[i] = x;
        x = nextInChain;
      }
    }
    table = t;
  }
}
