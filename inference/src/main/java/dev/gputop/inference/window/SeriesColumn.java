package dev.gputop.inference.window;

import dev.gputop.inference.engine.SeriesKey;

/**
 * One counter or histogram series of a server across the slots of its {@link ServerWindow}: the
 * key and model once, the values per slot in primitive arrays. A slot is a physical index into
 * the window's ring ({@link ServerWindow#slot(int)}); a slot the series had no sample in is not
 * {@link #present(int) present}.
 *
 * <p>A histogram's bucket counts are stored as {@code int} offsets from a per-bucket base while
 * every count is an integer that fits (the usual case: counts grow by little within a window),
 * else as doubles; either way {@link #bucket(int, int)} returns the exact value written. Its
 * bounds are one array for the whole window: a series that comes back with another layout starts
 * over, as the statistics never mix layouts of one series.
 *
 * <p>Read-only outside this package; written by the window's owner thread only.
 */
public final class SeriesColumn {

  private final SeriesKey key;
  private final String model;
  /** The bucket layout, or null for a counter. */
  private final double[] bounds;
  private final int buckets;
  private boolean[] present;
  private int samples;
  /** A counter's value, or a histogram's {@code _count} (NaN when absent), per slot. */
  private double[] values;
  /** A histogram's {@code _sum} per slot (NaN when absent); null for a counter. */
  private double[] sums;
  /** Per bucket, what the offsets are counted from; null once the column holds doubles. */
  private double[] base;
  /** Slot-major: {@code slot × buckets + bucket}. */
  private int[] offsets;
  /** Slot-major, once some count did not fit an offset; null before. */
  private double[] exact;

  SeriesColumn(SeriesKey key, String model, double[] bounds, int capacity) {
    this.key = key;
    this.model = model;
    this.bounds = bounds;
    this.buckets = bounds == null ? 0 : bounds.length;
    this.present = new boolean[capacity];
    this.values = new double[capacity];
    if (bounds != null) {
      sums = new double[capacity];
      base = new double[buckets];
      offsets = new int[capacity * buckets];
    }
  }

  /** The series' identity: the same object for every scrape of the window. */
  public SeriesKey key() {
    return key;
  }

  /** The served model it belongs to, or {@code ""}. */
  public String model() {
    return model;
  }

  /** Whether it is a histogram. */
  public boolean histogram() {
    return bounds != null;
  }

  /** A histogram's bucket bounds (shared: do not modify), {@code +Inf} included when present. */
  public double[] bounds() {
    return bounds;
  }

  /** Whether the series had a sample in this slot. */
  public boolean present(int slot) {
    return present[slot];
  }

  /** How many slots of the window hold a sample. */
  public int samples() {
    return samples;
  }

  /** A counter's value in this slot; a histogram's {@code _count} (NaN when absent). */
  public double value(int slot) {
    return values[slot];
  }

  /** A histogram's {@code _sum} in this slot, or NaN when absent. */
  public double sum(int slot) {
    return sums[slot];
  }

  /** A histogram's cumulative count of bucket {@code b} in this slot. */
  public double bucket(int slot, int b) {
    int at = slot * buckets + b;
    return exact != null ? exact[at] : base[b] + offsets[at];
  }

  /** A histogram's observation count: {@code _count}, else the {@code +Inf} bucket, else NaN. */
  public double observations(int slot) {
    double count = values[slot];
    if (!Double.isNaN(count)) {
      return count;
    }
    return buckets > 0 && bounds[buckets - 1] == Double.POSITIVE_INFINITY
        ? bucket(slot, buckets - 1) : Double.NaN;
  }

  // ------------------------------------------------------------------ written by the window

  void putCounter(int slot, double value) {
    mark(slot);
    values[slot] = value;
  }

  void putHistogram(int slot, double[] cumulative, double sum, double count) {
    mark(slot);
    values[slot] = count;
    sums[slot] = sum;
    int at = slot * buckets;
    if (exact != null) {
      System.arraycopy(cumulative, 0, exact, at, buckets);
      return;
    }
    boolean first = samples == 1;
    for (int b = 0; b < buckets; b++) {
      double v = cumulative[b];
      if (first) {
        base[b] = fits(v, v) ? v : 0;
      }
      if (fits(v, base[b])) {
        offsets[at + b] = (int) (v - base[b]);
      } else if (!rebase(slot, b, v)) {
        toExact();
        System.arraycopy(cumulative, 0, exact, at, buckets);
        return;
      }
    }
  }

  /** Whether {@code v} is stored exactly as an int offset from {@code from}. */
  private static boolean fits(double v, double from) {
    double d = v - from;
    if (!(d >= Integer.MIN_VALUE && d <= Integer.MAX_VALUE)) {
      return false; // NaN too
    }
    int o = (int) d;
    return o == d && Double.doubleToRawLongBits(from + o) == Double.doubleToRawLongBits(v);
  }

  /**
   * Moves bucket {@code b}'s base to {@code v} (a long-lived server's counts outgrow the first
   * base) when every other sample of that bucket still fits; then stores {@code v} at {@code slot}.
   */
  private boolean rebase(int slot, int b, double v) {
    if (!fits(v, v)) {
      return false;
    }
    for (int s = 0; s < present.length; s++) {
      if (present[s] && s != slot && !fits(base[b] + offsets[s * buckets + b], v)) {
        return false;
      }
    }
    for (int s = 0; s < present.length; s++) {
      if (present[s] && s != slot) {
        int at = s * buckets + b;
        offsets[at] = (int) (base[b] + offsets[at] - v);
      }
    }
    base[b] = v;
    offsets[slot * buckets + b] = 0;
    return true;
  }

  private void toExact() {
    double[] e = new double[offsets.length];
    for (int s = 0; s < present.length; s++) {
      if (present[s]) {
        for (int b = 0; b < buckets; b++) {
          e[s * buckets + b] = base[b] + offsets[s * buckets + b];
        }
      }
    }
    exact = e;
    offsets = null;
    base = null;
  }

  private void mark(int slot) {
    if (!present[slot]) {
      present[slot] = true;
      samples++;
    }
  }

  /** Forgets the slot's sample; returns whether the column still holds any. */
  boolean clear(int slot) {
    if (present[slot]) {
      present[slot] = false;
      samples--;
    }
    return samples > 0;
  }

  /**
   * Re-lays the slots for a ring of {@code capacity} slots: physical slot {@code (head + i) %
   * oldCapacity} moves to {@code i}.
   */
  void relayout(int head, int capacity) {
    int old = present.length;
    boolean[] p = new boolean[capacity];
    double[] v = new double[capacity];
    double[] s = sums == null ? null : new double[capacity];
    int[] o = offsets == null ? null : new int[capacity * buckets];
    double[] e = exact == null ? null : new double[capacity * buckets];
    for (int i = 0; i < old; i++) {
      int from = (head + i) % old;
      p[i] = present[from];
      v[i] = values[from];
      if (s != null) {
        s[i] = sums[from];
      }
      if (o != null) {
        System.arraycopy(offsets, from * buckets, o, i * buckets, buckets);
      }
      if (e != null) {
        System.arraycopy(exact, from * buckets, e, i * buckets, buckets);
      }
    }
    present = p;
    values = v;
    sums = s;
    offsets = o;
    exact = e;
  }
}
