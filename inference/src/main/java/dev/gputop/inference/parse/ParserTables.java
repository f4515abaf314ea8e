package dev.gputop.inference.parse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the {@link ExpositionParser}s of one receiver share, so that what many servers write alike
 * is kept once rather than once per server: the strings (metric and label names, label values,
 * HELP texts), the label sets, the bytes of series keys and HELP/TYPE lines, the histogram bounds
 * arrays, and the scratch space of a parse. Servers of one fleet serve the same families with
 * the same labels, so a second server's cache costs little more than its own entries.
 *
 * <p>Bounded like one parser's cache: each table is emptied when it reaches 65,536 items (strings:
 * 262,144) or 16 MiB of bytes. Emptying a table only stops sharing what is interned afterwards:
 * parsers keep what they took from it, and their own caches keep their own bounds.
 *
 * <p>Parsers that share tables must parse one at a time, as the inference receiver's refresh
 * thread does; which thread does not matter. A parse that finds the tables in use by another
 * parse throws {@link IllegalStateException} instead of corrupting them. Each parser made without
 * tables ({@link ExpositionParser#ExpositionParser(ParserLimits)}) gets tables of its own.
 */
public final class ParserTables {

  /** Items kept in each table before it is emptied. */
  static final int DEFAULT_MAX_ITEMS = LineCache.DEFAULT_MAX_ENTRIES;
  /** Bytes kept in the byte tables before they are emptied. */
  static final long DEFAULT_MAX_BYTES = LineCache.DEFAULT_MAX_BYTES;

  static final double[] NO_DOUBLES = new double[0];

  private final int maxItems;
  private final AtomicBoolean busy = new AtomicBoolean();
  private final long hashSeed = ThreadLocalRandom.current().nextLong();

  final StringTable strings;
  final ByteTable keys;
  private final HashMap<Labels, Labels> labels = new HashMap<>();
  private final HashMap<BoundsKey, double[]> bounds = new HashMap<>();

  // Scratch space of the parse in progress; see FamilyAssembler.
  final HashMap<String, FamilyBuilder> byName = new HashMap<>();
  final ArrayList<FamilyBuilder> order = new ArrayList<>();
  final ArrayList<FamilyBuilder> pool = new ArrayList<>();

  /** Tables for the parsers of one receiver. */
  public ParserTables() {
    this(DEFAULT_MAX_ITEMS, DEFAULT_MAX_BYTES);
  }

  /** Tables with other bounds, for tests: strings up to 4 × maxItems. */
  ParserTables(int maxItems, long maxBytes) {
    if (maxItems <= 0 || maxBytes <= 0) {
      throw new IllegalArgumentException("table bounds must be positive");
    }
    this.maxItems = maxItems;
    this.strings = new StringTable(hashSeed, 4 * maxItems, maxBytes);
    this.keys = new ByteTable(hashSeed ^ 0x5DEECE66DL, maxItems, maxBytes);
  }

  /** Marks the tables in use by one parse. */
  void acquire() {
    if (!busy.compareAndSet(false, true)) {
      throw new IllegalStateException(
          "two parses at once on shared ParserTables: parsers that share tables parse one at a time");
    }
  }

  void release() {
    busy.set(false);
  }

  /** The shared instance of a label set equal to {@code l}. */
  Labels labels(Labels l) {
    if (l.size() == 0) {
      return Labels.EMPTY;
    }
    Labels shared = labels.get(l);
    if (shared != null) {
      return shared;
    }
    if (labels.size() >= maxItems) {
      labels.clear();
    }
    labels.put(l, l);
    return l;
  }

  /** The shared array equal to the first {@code n} of {@code values}; never modify it. */
  double[] bounds(double[] values, int n) {
    if (n == 0) {
      return NO_DOUBLES;
    }
    double[] copy = Arrays.copyOf(values, n);
    BoundsKey key = new BoundsKey(copy);
    double[] shared = bounds.get(key);
    if (shared != null) {
      return shared;
    }
    if (bounds.size() >= maxItems) {
      bounds.clear();
    }
    bounds.put(key, copy);
    return copy;
  }

  /** Sizes of the tables, for tests: strings, keys, label sets, bounds arrays. */
  int[] sizes() {
    return new int[] {strings.size(), keys.size(), labels.size(), bounds.size()};
  }

  /** A bounds array as a map key, by content. */
  private static final class BoundsKey {
    final double[] values;
    final int hash;

    BoundsKey(double[] values) {
      this.values = values;
      this.hash = Arrays.hashCode(values);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BoundsKey && Arrays.equals(values, ((BoundsKey) o).values);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
