package dev.gputop.inference.stats;

/**
 * PromQL's {@code rate()} and {@code increase()} for one counter series: a port of {@code
 * extrapolatedRate} from prometheus/prometheus {@code promql/functions.go} (v3.14.0, classic path,
 * without start timestamps), with the same branch order.
 *
 * <p>Given the samples of one series inside the range {@code (rangeStart, rangeEnd]}:
 *
 * <ol>
 *   <li>fewer than two samples: no result (NaN);
 *   <li>{@code result = last − first}, plus, for every pair where the value went down (a counter
 *       reset), the value before the reset;
 *   <li>the result is extrapolated towards the range's edges: by the real distance when that is
 *       below 1.1 × the average sample interval, else by half an average interval; never further
 *       back than where the counter would have been zero;
 *   <li>{@code rate} divides by the full range length, not by the time the samples span.
 * </ol>
 *
 * <p>Times are in seconds (any origin). Stateless and thread-safe.
 */
final class Rate {

  private Rate() {}

  /**
   * The per-second rate of a counter, as {@code rate(x[range])} evaluated at {@code rangeEnd}.
   *
   * @param times sample times in seconds, ascending, all in {@code (rangeStart, rangeEnd]}
   * @param values the counter's values at those times
   * @param n how many samples of the arrays to use
   * @return the rate, or NaN with fewer than two samples
   */
  public static double rate(double[] times, double[] values, int n, double rangeStart, double rangeEnd) {
    return extrapolatedRate(times, values, n, rangeStart, rangeEnd, true, true);
  }

  /** {@code increase(x[range])}: the rate multiplied by the range; NaN with fewer than two samples. */
  public static double increase(
      double[] times, double[] values, int n, double rangeStart, double rangeEnd) {
    return extrapolatedRate(times, values, n, rangeStart, rangeEnd, true, false);
  }

  /**
   * The raw increase {@code last − first} with PromQL's counter-reset correction and no
   * extrapolation: how much the counter really grew between the first and the last sample.
   * NaN with fewer than two samples.
   */
  public static double rawIncrease(double[] values, int n) {
    if (n < 2) {
      return Double.NaN;
    }
    double result = values[n - 1] - values[0];
    double prev = values[0];
    for (int i = 1; i < n; i++) {
      double curr = values[i];
      if (curr < prev) {
        result += prev;
      }
      prev = curr;
    }
    return result;
  }

  /** functions.go extrapolatedRate, classic float path. */
  static double extrapolatedRate(
      double[] times,
      double[] values,
      int n,
      double rangeStart,
      double rangeEnd,
      boolean isCounter,
      boolean isRate) {
    if (n < 2) {
      return Double.NaN;
    }
    double firstT = times[0];
    double lastT = times[n - 1];
    double first = values[0];
    double result = values[n - 1] - first;
    if (isCounter) {
      double prev = first;
      for (int i = 1; i < n; i++) {
        double curr = values[i];
        if (curr < prev) {
          result += prev;
        }
        prev = curr;
      }
    }
    double durationToStart = firstT - rangeStart;
    double durationToEnd = rangeEnd - lastT;
    double sampledInterval = lastT - firstT;
    double averageDurationBetweenSamples = sampledInterval / (n - 1);
    double extrapolationThreshold = averageDurationBetweenSamples * 1.1;
    if (durationToStart >= extrapolationThreshold) {
      durationToStart = averageDurationBetweenSamples / 2;
    }
    if (isCounter && result > 0 && first >= 0) {
      // Don't extrapolate back past the time the counter would have been zero.
      double durationToZero = sampledInterval * (first / result);
      if (durationToZero < durationToStart) {
        durationToStart = durationToZero;
      }
    }
    if (durationToEnd >= extrapolationThreshold) {
      durationToEnd = averageDurationBetweenSamples / 2;
    }
    double factor = (sampledInterval + durationToStart + durationToEnd) / sampledInterval;
    if (isRate) {
      factor /= rangeEnd - rangeStart;
    }
    return result * factor;
  }
}
