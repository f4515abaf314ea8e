package dev.gputop.inference.stats;

import java.util.Arrays;

/**
 * PromQL's {@code histogram_quantile} for classic (bucketed) histograms: a port of {@code
 * BucketQuantile} from prometheus/prometheus {@code promql/quantile.go} (v3.14.0), with the same
 * branch order, so the agent's percentiles equal what a Prometheus server would compute from the
 * same bucket values.
 *
 * <p>The algorithm, in order: NaN/&lt;0/&gt;1 quantiles short-circuit; buckets are sorted by upper
 * bound; a histogram without a {@code +Inf} bucket is NaN; buckets with equal bounds are merged by
 * adding their counts; counts are made monotonic (relative differences of at most 1e-12 are
 * ignored, a bucket lower than its predecessor is raised to it); fewer than two buckets or no
 * observations give NaN; otherwise the quantile is linearly interpolated inside the bucket that
 * holds rank {@code q × total}, from 0 for the first bucket (unless its bound is not positive),
 * and a rank in the {@code +Inf} bucket returns the highest finite bound.
 *
 * <p>Stateless and thread-safe.
 */
final class HistogramQuantile {

  /** Relative differences between adjacent buckets this small are rounding noise (quantile.go). */
  static final double SMALL_DELTA_TOLERANCE = 1e-12;

  private HistogramQuantile() {}

  /**
   * The result of one evaluation.
   *
   * @param value the quantile; NaN, −Inf or +Inf in the cases PromQL returns them
   * @param forcedMonotonic whether some bucket was lower than a lower bucket and had to be raised
   *     (PromQL's {@code HistogramQuantileForcedMonotonicity} annotation)
   */
  public record Result(double value, boolean forcedMonotonic) {}

  /**
   * The φ-quantile of a histogram given as cumulative bucket counts. The arrays are not modified.
   *
   * @param q the quantile φ
   * @param upperBounds each bucket's {@code le}, in any order, {@code +Inf} included
   * @param counts each bucket's cumulative count (float, e.g. a rate)
   */
  public static Result bucketQuantile(double q, double[] upperBounds, double[] counts) {
    double[] out = new double[1];
    boolean forced = quantiles(new double[] {q}, upperBounds, counts, out);
    return new Result(out[0], forced);
  }

  /**
   * Several quantiles of one histogram, each exactly what {@link #bucketQuantile} returns for it:
   * the buckets are sorted, merged and made monotonic once for all of them. The input arrays are
   * not modified.
   *
   * @param qs the quantiles φ
   * @param out receives each quantile's value, in the order of {@code qs}
   * @return whether some bucket had to be raised to keep the counts monotonic
   */
  public static boolean quantiles(double[] qs, double[] upperBounds, double[] counts, double[] out) {
    if (upperBounds.length != counts.length) {
      throw new IllegalArgumentException("upper bounds and counts differ in length");
    }
    // 1. The quantile itself, before looking at the data.
    boolean anyInRange = false;
    for (int k = 0; k < qs.length; k++) {
      double q = qs[k];
      out[k] = Double.isNaN(q) ? Double.NaN
          : q < 0 ? Double.NEGATIVE_INFINITY : q > 1 ? Double.POSITIVE_INFINITY : Double.NaN;
      anyInRange |= q >= 0 && q <= 1;
    }
    int n = upperBounds.length;
    if (!anyInRange || n == 0) {
      return false;
    }
    // 2. Sort by upper bound (stable, as Go's slices.SortFunc is not, but equal bounds are merged
    // by addition next, so their order does not matter). Bounds usually come sorted.
    double[] ub = new double[n];
    double[] c = new double[n];
    if (isSorted(upperBounds)) {
      System.arraycopy(upperBounds, 0, ub, 0, n);
      System.arraycopy(counts, 0, c, 0, n);
    } else {
      Integer[] order = new Integer[n];
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (a, b) -> Double.compare(upperBounds[a], upperBounds[b]));
      for (int i = 0; i < n; i++) {
        ub[i] = upperBounds[order[i]];
        c[i] = counts[order[i]];
      }
    }
    // 3. The highest bucket must be +Inf.
    if (!(ub[n - 1] == Double.POSITIVE_INFINITY)) {
      return false;
    }
    // 4. Merge buckets with identical upper bounds by adding their counts.
    n = coalesce(ub, c, n);
    // 5. Make counts monotonic, ignoring tiny relative differences.
    boolean forced = ensureMonotonic(c, n);
    // 6. A lone +Inf bucket carries no shape. 7. No observations.
    if (n < 2 || c[n - 1] == 0) {
      return forced;
    }
    for (int k = 0; k < qs.length; k++) {
      double q = qs[k];
      if (q >= 0 && q <= 1) {
        out[k] = interpolate(q, ub, c, n);
      }
    }
    return forced;
  }

  /** Steps 8–10 on sorted, merged, monotonic buckets with observations. */
  private static double interpolate(double q, double[] ub, double[] c, int n) {
    double observations = c[n - 1];
    // 8–9. The first bucket (excluding +Inf) whose cumulative count reaches the rank.
    double rank = q * observations;
    int b = searchFirstAtLeast(c, n - 1, rank);
    // 10. Rank in the +Inf bucket: the highest finite bound.
    if (b == n - 1) {
      return ub[n - 2];
    }
    // No interpolation below a first bucket whose bound is not positive.
    if (b == 0 && ub[0] <= 0) {
      return ub[0];
    }
    double start = 0;
    double end = ub[b];
    double count = c[b];
    if (b > 0) {
      start = ub[b - 1];
      count -= c[b - 1];
      rank -= c[b - 1];
    }
    return start + (end - start) * (rank / count);
  }

  /** The quantile value alone; see {@link #bucketQuantile(double, double[], double[])}. */
  public static double quantile(double q, double[] upperBounds, double[] counts) {
    return bucketQuantile(q, upperBounds, counts).value();
  }

  private static boolean isSorted(double[] a) {
    for (int i = 1; i < a.length; i++) {
      if (Double.compare(a[i - 1], a[i]) > 0) {
        return false;
      }
    }
    return true;
  }

  /** Merges adjacent equal bounds by adding counts; returns the new length. */
  private static int coalesce(double[] ub, double[] c, int n) {
    int last = 0;
    for (int i = 1; i < n; i++) {
      if (ub[i] == ub[last]) {
        c[last] += c[i];
      } else {
        last++;
        ub[last] = ub[i];
        c[last] = c[i];
      }
    }
    return last + 1;
  }

  /** quantile.go ensureMonotonicAndIgnoreSmallDeltas: a running maximum, noise flattened. */
  private static boolean ensureMonotonic(double[] c, int n) {
    boolean forced = false;
    double prev = c[0];
    for (int i = 1; i < n; i++) {
      double curr = c[i];
      if (curr == prev) {
        continue;
      }
      if (almostEqual(prev, curr, SMALL_DELTA_TOLERANCE)) {
        // Rounding noise in either direction: treat as equal.
        c[i] = prev;
        continue;
      }
      if (curr < prev) {
        c[i] = prev;
        forced = true;
        continue;
      }
      prev = curr;
    }
    return forced;
  }

  /** Binary search (Go's sort.Search) for the first i in [0, limit) with c[i] ≥ rank, else limit. */
  private static int searchFirstAtLeast(double[] c, int limit, double rank) {
    int lo = 0;
    int hi = limit;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (!(c[mid] >= rank)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** prometheus util/almost.Equal: relative comparison with a guard near zero. */
  static boolean almostEqual(double a, double b, double epsilon) {
    if (Double.isNaN(a) && Double.isNaN(b)) {
      return true;
    }
    if (a == b) {
      return true;
    }
    double absSum = Math.abs(a) + Math.abs(b);
    double diff = Math.abs(a - b);
    if (a == 0 || b == 0 || absSum < Double.MIN_NORMAL) {
      return diff < epsilon * Double.MIN_NORMAL;
    }
    return diff / Math.min(absSum, Double.MAX_VALUE) < epsilon;
  }
}
