package dev.gputop.inference.engine;

import java.util.Arrays;

/**
 * One classic histogram (one label set without {@code le}) from one scrape. Immutable by
 * contract: the arrays are owned by this object and never modified after construction.
 *
 * @param key the histogram's identity (labels without {@code le})
 * @param model the served model, or {@code ""}
 * @param bounds the buckets' upper bounds ascending, {@code +Inf} included when present
 *     (duplicate bounds such as {@code 1} and {@code 1.0} stay separate, as PromQL merges them
 *     only when computing a quantile)
 * @param cumulative the cumulative count of each bucket, in the order of {@code bounds}
 * @param sum the {@code _sum} sample, or NaN when absent
 * @param count the {@code _count} sample, or NaN when absent
 */
public record HistogramSeries(
    SeriesKey key, String model, double[] bounds, double[] cumulative, double sum, double count) {

  /** Whether another scrape of this histogram has the same bucket layout. */
  public boolean sameLayout(HistogramSeries other) {
    return Arrays.equals(bounds, other.bounds);
  }

  /** The observation count: {@code _count}, else the {@code +Inf} bucket, else NaN. */
  public double observations() {
    if (!Double.isNaN(count)) {
      return count;
    }
    int n = bounds.length;
    return n > 0 && bounds[n - 1] == Double.POSITIVE_INFINITY ? cumulative[n - 1] : Double.NaN;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof HistogramSeries)) {
      return false;
    }
    HistogramSeries h = (HistogramSeries) o;
    return key.equals(h.key) && model.equals(h.model) && Arrays.equals(bounds, h.bounds)
        && Arrays.equals(cumulative, h.cumulative) && Double.compare(sum, h.sum) == 0
        && Double.compare(count, h.count) == 0;
  }

  @Override
  public int hashCode() {
    return key.hashCode() * 31 + Arrays.hashCode(cumulative);
  }

  @Override
  public String toString() {
    return "HistogramSeries[" + key + " bounds=" + Arrays.toString(bounds) + " cumulative="
        + Arrays.toString(cumulative) + " sum=" + sum + " count=" + count + "]";
  }
}
