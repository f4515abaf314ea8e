package dev.gputop.inference.parse;

import java.util.Arrays;

/**
 * One histogram or summary series being assembled by the {@link FamilyAssembler}; reused from
 * parse to parse.
 */
final class GroupBuilder {
  Labels labels;
  double[] bounds = new double[16];
  double[] values = new double[16];
  int n;
  double sum;
  double count;
  double created;
  /** The cache entry of the series' first sample, which keeps its bounds array. */
  CachedLine owner;

  void start(Labels labels, CachedLine owner) {
    this.labels = labels;
    this.owner = owner;
    n = 0;
    sum = Double.NaN;
    count = Double.NaN;
    created = Double.NaN;
  }

  void add(double bound, double value) {
    if (n == bounds.length) {
      bounds = Arrays.copyOf(bounds, n * 2);
      values = Arrays.copyOf(values, n * 2);
    }
    bounds[n] = bound;
    values[n++] = value;
  }

  /** Sorts by bound, keeping equal bounds in the order written; usually already sorted. */
  void sort() {
    for (int i = 1; i < n; i++) {
      double b = bounds[i];
      double v = values[i];
      int j = i - 1;
      while (j >= 0 && bounds[j] > b) {
        bounds[j + 1] = bounds[j];
        values[j + 1] = values[j];
        j--;
      }
      bounds[j + 1] = b;
      values[j + 1] = v;
    }
  }

  /**
   * The sorted bounds as a shared, never modified array: the one this series had last time
   * when they are equal, else the tables' (what other servers with these bounds have).
   */
  double[] boundsCopy(ParserTables tables) {
    double[] last = owner.lastBounds;
    if (last != null && last.length == n && Arrays.equals(last, 0, n, bounds, 0, n)) {
      return last;
    }
    last = tables.bounds(bounds, n);
    owner.lastBounds = last;
    return last;
  }

  double[] valuesCopy() {
    return n == 0 ? ParserTables.NO_DOUBLES : Arrays.copyOf(values, n);
  }
}
