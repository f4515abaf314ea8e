package dev.gputop.inference.stats;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * The quantiles the latency statistics report ({@code inference.quantiles}, default 0.5, 0.9,
 * 0.99), in ascending order, with the two names each goes by: its JSON key ({@code p50},
 * {@code p95}, {@code p99_9}: the percentage, its decimal point written {@code _}) and its
 * {@code quantile} attribute value in OTLP and Prometheus ({@code 0.5}, {@code 0.95},
 * {@code 0.999}). Immutable.
 *
 * @param levels each strictly between 0 and 1, ascending, without repeats
 */
public record Quantiles(List<Double> levels) {

  /** The seed's three, which the page, {@code top}, the demo and the history read. */
  public static final Quantiles DEFAULT = new Quantiles(List.of(0.5, 0.9, 0.99));

  public Quantiles {
    levels = List.copyOf(levels);
    if (levels.isEmpty()) {
      throw new IllegalArgumentException("at least one quantile is needed");
    }
    for (int i = 0; i < levels.size(); i++) {
      double q = levels.get(i);
      if (!(q > 0 && q < 1)) {
        throw new IllegalArgumentException("a quantile lies strictly between 0 and 1, not " + q);
      }
      if (i > 0 && !(levels.get(i - 1) < q)) {
        throw new IllegalArgumentException("quantiles must be ascending without repeats: " + levels);
      }
    }
  }

  /** These levels, sorted and without repeats (the configured list may be in any order). */
  public static Quantiles of(List<Double> levels) {
    List<Double> sorted = new ArrayList<>(new java.util.TreeSet<>(levels));
    return sorted.equals(DEFAULT.levels) ? DEFAULT : new Quantiles(sorted);
  }

  public int size() {
    return levels.size();
  }

  /** The i-th level. */
  public double level(int i) {
    return levels.get(i);
  }

  /** Where {@code level} is in this list, or -1. Allocates nothing (the history reads it). */
  public int indexOf(double level) {
    for (int i = 0; i < levels.size(); i++) {
      if (levels.get(i) == level) {
        return i;
      }
    }
    return -1;
  }

  /** The levels as an array, for {@link HistogramQuantile#quantiles}. */
  double[] toArray() {
    double[] out = new double[levels.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = levels.get(i);
    }
    return out;
  }

  /** The JSON key of a level: {@code p50}, {@code p95}, {@code p99_9}. */
  public static String key(double level) {
    return "p" + BigDecimal.valueOf(level).movePointRight(2).stripTrailingZeros().toPlainString()
        .replace('.', '_');
  }

  /** The {@code quantile} attribute value of a level: {@code 0.5}, {@code 0.999}. */
  public static String label(double level) {
    return BigDecimal.valueOf(level).stripTrailingZeros().toPlainString();
  }
}
