package dev.gputop.inference.parse;

import java.util.Arrays;
import java.util.Objects;

/**
 * One classic histogram series of a histogram family (one label set without {@code le}), as the
 * parser groups it: its {@code _bucket} samples with their bounds parsed once, its {@code _sum},
 * {@code _count} and {@code _created}. Immutable by contract: the arrays belong to this object
 * (and may be shared with the same series of later parses when the layout did not change); they
 * are never modified.
 *
 * <p>Buckets whose {@code le} is missing or does not parse as Prometheus reads it ({@link
 * Bounds#parse}) are left out, as PromQL skips them; the samples stay in {@link
 * MetricFamily#samples()}.
 *
 * @param labels the series' labels, without {@code le}
 * @param bounds the bucket bounds ascending ({@code +Inf} included when written); equal bounds
 *     such as {@code 1} and {@code 1.0} stay separate
 * @param cumulative the cumulative count of each bucket, in the order of {@code bounds}
 * @param sum the {@code _sum} (or gauge histogram {@code _gsum}) sample, or NaN when absent
 * @param count the {@code _count} (or {@code _gcount}) sample, or NaN when absent
 * @param created the {@code _created} sample, or NaN when absent
 */
public record Histogram(
    Labels labels, double[] bounds, double[] cumulative, double sum, double count, double created) {

  public Histogram {
    Objects.requireNonNull(labels, "labels");
    Objects.requireNonNull(bounds, "bounds");
    Objects.requireNonNull(cumulative, "cumulative");
    if (bounds.length != cumulative.length) {
      throw new IllegalArgumentException("bounds and cumulative differ in length");
    }
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Histogram)) {
      return false;
    }
    Histogram h = (Histogram) o;
    return labels.equals(h.labels) && Arrays.equals(bounds, h.bounds)
        && Arrays.equals(cumulative, h.cumulative) && Double.compare(sum, h.sum) == 0
        && Double.compare(count, h.count) == 0 && Double.compare(created, h.created) == 0;
  }

  @Override
  public int hashCode() {
    return labels.hashCode() * 31 + Arrays.hashCode(cumulative);
  }

  @Override
  public String toString() {
    return "Histogram" + labels + "[bounds=" + Arrays.toString(bounds) + " cumulative="
        + Arrays.toString(cumulative) + " sum=" + sum + " count=" + count + "]";
  }
}
