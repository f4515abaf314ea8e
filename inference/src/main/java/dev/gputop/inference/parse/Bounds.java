package dev.gputop.inference.parse;

import java.util.Locale;

/** Reads the {@code le} and {@code quantile} label values of histograms and summaries. */
final class Bounds {

  private Bounds() {}

  /**
   * A bound as Prometheus (Go's {@code strconv.ParseFloat}) reads it: {@code +Inf}, {@code Inf},
   * {@code inf}, {@code 1e3}, {@code 0.5}; NaN when it does not parse (PromQL then skips the
   * bucket).
   */
  public static double parse(String le) {
    String s = le.trim();
    if (!s.equals(le) || s.isEmpty()) {
      return Double.NaN;
    }
    String lower = s.toLowerCase(Locale.ROOT);
    switch (lower) {
      case "+inf":
      case "inf":
      case "+infinity":
      case "infinity":
        return Double.POSITIVE_INFINITY;
      case "-inf":
      case "-infinity":
        return Double.NEGATIVE_INFINITY;
      default:
        break;
    }
    char last = lower.charAt(lower.length() - 1);
    if (last == 'd' || last == 'f' || lower.equals("nan")) {
      // Java accepts "1d"/"1f" and Go does not; a NaN bound is no bound.
      return Double.NaN;
    }
    try {
      return Double.parseDouble(s);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }
}
