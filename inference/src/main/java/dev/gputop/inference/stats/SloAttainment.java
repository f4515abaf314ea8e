package dev.gputop.inference.stats;

import dev.gputop.config.SloTargets;
import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.window.ServerWindow;
import java.time.Duration;
import java.util.Arrays;

/**
 * SLO attainment from a server's own latency histograms: the fraction of the window's requests
 * at or under a target T, as PromQL computes it from the same scrapes (docs/inference.md, "SLO
 * attainment"):
 *
 * <ul>
 *   <li>T a bucket bound: exactly {@code sum(rate(x_bucket{le="T"}[w])) / sum(rate(x_count[w]))},
 *       each rate the {@link Rate} port applied per series, over the window's range;
 *   <li>T inside a bucket: linear interpolation between the bucket's lower and upper bound, the
 *       assumption {@code histogram_quantile} makes (from 0 for the first bucket);
 *   <li>T above the highest finite bound (in the {@code +Inf} bucket): the fraction at the
 *       highest finite bound, since nothing says a request in the {@code +Inf} bucket met T
 *       (as {@code histogram_quantile} never reports more than that bound);
 *   <li>no request in the window, or fewer than two scrapes: unknown (null).
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
final class SloAttainment {

  private SloAttainment() {}

  /**
   * The SLOs of a server, or of one of its models, over its window.
   *
   * @param model the model to restrict to, or null for the whole server
   * @param targets the resolved targets (objective set)
   */
  public static SloStats compute(ServerWindow window, String model, SloTargets targets) {
    return compute(c -> WindowStatistics.buckets(window, c, model), targets);
  }

  /** A latency concept's windowed buckets, or null when the server does not export it. */
  interface BucketSource {
    WindowStatistics.Buckets of(Concept c);
  }

  /** The SLOs from buckets already summed (the statistics sum each latency once for both). */
  static SloStats compute(BucketSource buckets, SloTargets targets) {
    if (targets == null || !targets.hasTargets()) {
      return SloStats.NONE;
    }
    double objective = targets.objective() == null ? SloTargets.DEFAULT_OBJECTIVE : targets.objective();
    return new SloStats(
        value(buckets, SloKind.TTFT, targets, objective),
        value(buckets, SloKind.ITL, targets, objective),
        value(buckets, SloKind.E2E, targets, objective),
        value(buckets, SloKind.QUEUE, targets, objective),
        targets.minRequests() == null ? SloTargets.DEFAULT_MIN_REQUESTS : targets.minRequests());
  }

  private static SloStats.Value value(BucketSource buckets, SloKind kind, SloTargets targets, double objective) {
    Duration target = kind.target(targets);
    if (target == null) {
      return null;
    }
    WindowStatistics.Buckets b = buckets.of(kind.concept());
    if (b == null) {
      return null; // the server does not export this histogram
    }
    double t = target.toNanos() / 1e9;
    double a = b.any() ? fraction(t, b.bounds(), b.rates(), b.countRate()) : Double.NaN;
    if (Double.isNaN(a)) {
      return new SloStats.Value(t, objective, null, null);
    }
    return new SloStats.Value(t, objective, a, burnRate(a, objective));
  }

  /** {@code (1 − attainment) / (1 − objective)}. */
  public static double burnRate(double attainment, double objective) {
    return (1 - attainment) / (1 - objective);
  }

  /**
   * The fraction of observations at or under {@code target}.
   *
   * @param bounds bucket upper bounds, any order, equal bounds allowed (their counts add, as
   *     {@code sum by (le)} adds them)
   * @param counts each bound's cumulative count (here: per-second rates)
   * @param total the observation count ({@code rate(x_count)})
   * @return the fraction, clamped to 0–1; NaN when {@code total} is not positive or no finite
   *     bucket says anything
   */
  public static double fraction(double target, double[] bounds, double[] counts, double total) {
    if (bounds.length != counts.length) {
      throw new IllegalArgumentException("bounds and counts differ in length");
    }
    if (Double.isNaN(target) || !(total > 0)) {
      return Double.NaN;
    }
    int n = bounds.length;
    if (strictlyAscending(bounds)) {
      return fractionOfMerged(target, bounds, counts, n, total);
    }
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (x, y) -> Double.compare(bounds[x], bounds[y]));
    double[] ub = new double[n];
    double[] c = new double[n];
    int m = 0;
    for (int i = 0; i < n; i++) {
      double bound = bounds[order[i]];
      if (Double.isNaN(bound)) {
        continue;
      }
      if (m > 0 && ub[m - 1] == bound) {
        c[m - 1] += counts[order[i]];
      } else {
        ub[m] = bound;
        c[m++] = counts[order[i]];
      }
    }
    return fractionOfMerged(target, ub, c, m, total);
  }

  /** Bounds ascending without NaN or repeats (the usual single layout): nothing to sort or merge. */
  private static boolean strictlyAscending(double[] bounds) {
    for (int i = 0; i < bounds.length; i++) {
      if (Double.isNaN(bounds[i]) || (i > 0 && !(bounds[i - 1] < bounds[i]))) {
        return false;
      }
    }
    return true;
  }

  /** {@link #fraction} on the first {@code m} buckets, sorted and merged. */
  private static double fractionOfMerged(double target, double[] ub, double[] c, int m, double total) {
    // The first bucket whose bound reaches the target.
    int b = 0;
    while (b < m && ub[b] < target) {
      b++;
    }
    double below;
    if (b == m || ub[b] == Double.POSITIVE_INFINITY) {
      // Above every finite bound: what the highest finite bucket holds.
      if (b == 0) {
        return Double.NaN;
      }
      below = c[b - 1];
    } else if (ub[b] == target) {
      below = c[b];
    } else {
      double lower = b > 0 ? ub[b - 1] : 0;
      double lowerCount = b > 0 ? c[b - 1] : 0;
      if (b == 0 && (ub[0] <= 0 || target <= 0)) {
        below = 0; // below a first bound that is not positive, or below the natural 0
      } else {
        below = lowerCount + (c[b] - lowerCount) * (target - lower) / (ub[b] - lower);
      }
    }
    double f = below / total;
    return Double.isNaN(f) ? f : Math.max(0, Math.min(1, f));
  }
}
