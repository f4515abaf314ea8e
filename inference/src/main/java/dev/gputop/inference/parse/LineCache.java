package dev.gputop.inference.parse;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One parser's intern table of lines: the {@link CachedLine}s it has seen, found by their bytes
 * (a chained hash table with a random seed per parser), and the chain of predictions, each line
 * pointing ({@link CachedLine#next}) to the one that followed it last time, from a {@link #head}
 * that points to the first line of the last parse. The parser walks the chain itself, in its line
 * loop, and sets each line's successor as it goes.
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

  LineCache(int maxEntries, long maxBytes) {
    if (maxEntries <= 0 || maxBytes <= 0) {
      throw new IllegalArgumentException("cache bounds must be positive");
    }
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  /**
   * The sentinel before the first line: its {@code next} is the first line of the previous
   * parse, the prediction for the first line of the next, and a parse starts its walk here. It is
   * a comment line, so the first sample never takes its histogram group from it.
   */
  CachedLine head() {
    return head;
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

  /**
   * Adds a new line, emptying the cache first when it would exceed its bounds.
   *
   * @return whether the cache was emptied, predictions included: the walk starts again at the
   *     {@link #head}
   */
  boolean insert(CachedLine line) {
    boolean cleared = false;
    if (size >= maxEntries || bytes + line.key.length > maxBytes) {
      clear();
      cleared = true;
    }
    if (size >= table.length * 3 / 4) {
      grow();
    }
    int i = line.hash & (table.length - 1);
    line.chain = table[i];
    table[i] = line;
    size++;
    bytes += line.key.length;
    return cleared;
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
