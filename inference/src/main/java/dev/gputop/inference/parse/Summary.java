package dev.gputop.inference.parse;

import java.util.Arrays;
import java.util.Objects;

/**
 * One series of a summary family (one label set without {@code quantile}), as the parser groups
 * it. Quantile samples whose {@code quantile} label does not parse are left out. Immutable by
 * contract: the arrays are never modified.
 *
 * @param labels the series' labels, without {@code quantile}
 * @param quantiles the quantiles ascending (0–1)
 * @param values the value at each quantile, in the order of {@code quantiles}
 * @param sum the {@code _sum} sample, or NaN
 * @param count the {@code _count} sample, or NaN
 * @param created the {@code _created} sample, or NaN
 */
public record Summary(
    Labels labels, double[] quantiles, double[] values, double sum, double count, double created) {

  public Summary {
    Objects.requireNonNull(labels, "labels");
    Objects.requireNonNull(quantiles, "quantiles");
    Objects.requireNonNull(values, "values");
    if (quantiles.length != values.length) {
      throw new IllegalArgumentException("quantiles and values differ in length");
    }
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Summary)) {
      return false;
    }
    Summary s = (Summary) o;
    return labels.equals(s.labels) && Arrays.equals(quantiles, s.quantiles)
        && Arrays.equals(values, s.values) && Double.compare(sum, s.sum) == 0
        && Double.compare(count, s.count) == 0 && Double.compare(created, s.created) == 0;
  }

  @Override
  public int hashCode() {
    return labels.hashCode() * 31 + Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return "Summary" + labels + "[quantiles=" + Arrays.toString(quantiles) + " values="
        + Arrays.toString(values) + " sum=" + sum + " count=" + count + "]";
  }
}
