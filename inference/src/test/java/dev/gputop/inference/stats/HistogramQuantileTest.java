package dev.gputop.inference.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** One test per rule of reference/HISTOGRAM.md §1c and §4. */
class HistogramQuantileTest {

  private static final double INF = Double.POSITIVE_INFINITY;

  private static double q(double q, double[] ub, double[] c) {
    return HistogramQuantile.quantile(q, ub, c);
  }

  @Test
  void bucketQuantile_nanQuantileIsNanEvenWithoutData() {
    assertThat(q(Double.NaN, new double[0], new double[0])).isNaN();
    assertThat(q(Double.NaN, new double[] {1, INF}, new double[] {1, 2})).isNaN();
  }

  @Test
  void bucketQuantile_negativeQuantileIsMinusInfinityEvenWithoutData() {
    assertThat(q(-0.1, new double[0], new double[0])).isEqualTo(Double.NEGATIVE_INFINITY);
  }

  @Test
  void bucketQuantile_quantileAboveOneIsPlusInfinityEvenWithoutData() {
    assertThat(q(1.1, new double[0], new double[0])).isEqualTo(INF);
  }

  @Test
  void bucketQuantile_missingInfBucketIsNan() {
    assertThat(q(0.5, new double[] {1, 2}, new double[] {1, 2})).isNaN();
  }

  @Test
  void bucketQuantile_onlyInfBucketIsNan() {
    assertThat(q(0.5, new double[] {INF}, new double[] {7})).isNaN();
  }

  @Test
  void bucketQuantile_noObservationsIsNan() {
    assertThat(q(0.5, new double[] {1, 2, INF}, new double[] {0, 0, 0})).isNaN();
  }

  @Test
  void bucketQuantile_unsortedBucketsAreSorted() {
    // Same histogram as interpolation test below, given out of order.
    assertThat(q(0.5, new double[] {INF, 2, 1}, new double[] {10, 10, 4})).isCloseTo(1.1666666666666667, within(1e-15));
  }

  @Test
  void bucketQuantile_duplicateBoundsAreAdded() {
    // le="1" and le="1.0" both parse to 1: their counts 2 and 3 are added to 5.
    double[] ub = {1, 1, 2, INF};
    double[] c = {2, 3, 10, 10};
    // rank 5 falls exactly at the merged first bucket: 0 + 1 × 5/5.
    assertThat(q(0.5, ub, c)).isEqualTo(1.0);
  }

  @Test
  void bucketQuantile_nonMonotonicBucketIsRaisedAndFlagged() {
    // [le=1:5, le=2:3, le=+Inf:6] → le=2 forced to 5.
    HistogramQuantile.Result r =
        HistogramQuantile.bucketQuantile(0.9, new double[] {1, 2, INF}, new double[] {5, 3, 6});
    assertThat(r.forcedMonotonic()).isTrue();
    // rank 5.4 > 5 (le=2 after the fix): falls in +Inf → highest finite bound 2.
    assertThat(r.value()).isEqualTo(2.0);
    HistogramQuantile.Result r2 =
        HistogramQuantile.bucketQuantile(0.5, new double[] {1, 2, INF}, new double[] {5, 3, 6});
    // rank 3 ≤ 5 in the first bucket: 1 × 3/5.
    assertThat(r2.value()).isCloseTo(0.6, within(1e-15));
  }

  @Test
  void bucketQuantile_tinyRelativeDeltasAreIgnoredBothWays() {
    double base = 100;
    double down = base * (1 - 1e-14);
    HistogramQuantile.Result r =
        HistogramQuantile.bucketQuantile(0.5, new double[] {1, 2, INF}, new double[] {base, down, base});
    assertThat(r.forcedMonotonic()).isFalse();
    // The slightly-higher case: treated as equal to the previous bucket, so rank 50 stays in bucket 0.
    double up = base * (1 + 1e-14);
    HistogramQuantile.Result r2 =
        HistogramQuantile.bucketQuantile(1.0, new double[] {1, 2, INF}, new double[] {base, up, up});
    assertThat(r2.forcedMonotonic()).isFalse();
    // After flattening, all counts are 100: rank 100 reached at bucket 0 → 0 + 1 × 100/100.
    assertThat(r2.value()).isEqualTo(1.0);
    // A real (larger) decrease is forced and flagged.
    HistogramQuantile.Result r3 =
        HistogramQuantile.bucketQuantile(0.5, new double[] {1, 2, INF}, new double[] {base, base * (1 - 1e-9), base});
    assertThat(r3.forcedMonotonic()).isTrue();
  }

  @Test
  void bucketQuantile_firstBucketInterpolatesFromZero() {
    // 4 observations ≤ 1, 6 more ≤ 2. p50: rank 5 in bucket le=2: 1 + (2−1) × (5−4)/6.
    assertThat(q(0.5, new double[] {1, 2, INF}, new double[] {4, 10, 10}))
        .isCloseTo(1.1666666666666667, within(1e-15));
    // p20: rank 2 in the first bucket: 0 + 1 × 2/4.
    assertThat(q(0.2, new double[] {1, 2, INF}, new double[] {4, 10, 10})).isEqualTo(0.5);
  }

  @Test
  void bucketQuantile_nonPositiveFirstBoundIsReturnedWithoutInterpolation() {
    assertThat(q(0.1, new double[] {0, 1, INF}, new double[] {5, 10, 10})).isEqualTo(0.0);
    assertThat(q(0.1, new double[] {-1, 1, INF}, new double[] {5, 10, 10})).isEqualTo(-1.0);
  }

  @Test
  void bucketQuantile_rankInInfBucketReturnsHighestFiniteBound() {
    assertThat(q(0.99, new double[] {1, 2, INF}, new double[] {4, 10, 20})).isEqualTo(2.0);
    assertThat(q(1.0, new double[] {1, 2, INF}, new double[] {4, 10, 11})).isEqualTo(2.0);
  }

  @Test
  void bucketQuantile_quantileOneWithAllInFiniteBucketsIsItsBound() {
    assertThat(q(1.0, new double[] {1, 2, INF}, new double[] {4, 10, 10})).isEqualTo(2.0);
  }

  @Test
  void bucketQuantile_quantileZeroIsZeroOrNanForEmptyFirstBucket() {
    assertThat(q(0.0, new double[] {1, 2, INF}, new double[] {4, 10, 10})).isEqualTo(0.0);
    // count[0] = 0 and rank 0: 0 × (0/0) is NaN, as in Go.
    assertThat(q(0.0, new double[] {1, 2, INF}, new double[] {0, 10, 10})).isNaN();
  }

  @Test
  void bucketQuantile_fractionalCountsFromRatesInterpolate() {
    // Rates are fractional: 0.25/s ≤ 0.1, 0.75/s ≤ 0.5. p90 rank 0.675 in (0.1, 0.5]:
    // 0.1 + 0.4 × (0.675 − 0.25)/0.5 = 0.44.
    assertThat(q(0.9, new double[] {0.1, 0.5, INF}, new double[] {0.25, 0.75, 0.75}))
        .isCloseTo(0.44, within(1e-12));
  }

  @Test
  void bucketQuantile_inputArraysAreNotModified() {
    double[] ub = {INF, 1, 2};
    double[] c = {6, 5, 3};
    HistogramQuantile.bucketQuantile(0.5, ub, c);
    assertThat(ub).containsExactly(INF, 1, 2);
    assertThat(c).containsExactly(6, 5, 3);
  }

  /**
   * Random histograms against an independent, deliberately naive implementation of the algorithm
   * as HISTOGRAM.md writes it (TreeMap merge, linear search). Seeded and bounded.
   */
  @Test
  void bucketQuantile_matchesBruteForceOnRandomHistograms() {
    Random random = new Random(20260829L);
    double[] qs = {0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1};
    double[] bounds = {-1, 0, 0.001, 0.01, 0.1, 0.1, 0.5, 1, 2.5, 5, 10, 60, 1e6};
    for (int iter = 0; iter < 5_000; iter++) {
      int n = 1 + random.nextInt(8);
      double[] ub = new double[n];
      double[] c = new double[n];
      double running = 0;
      for (int i = 0; i < n; i++) {
        ub[i] = bounds[random.nextInt(bounds.length)];
        if (random.nextInt(5) == 0) {
          running = Math.max(0, running - random.nextInt(3)); // occasional non-monotonic step
        } else {
          running += random.nextInt(4) * (random.nextBoolean() ? 1 : 0.37);
        }
        c[i] = running;
      }
      if (random.nextInt(6) != 0) {
        ub[n - 1] = INF;
      }
      // Shuffle to exercise sorting.
      for (int i = n - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        double t = ub[i];
        ub[i] = ub[j];
        ub[j] = t;
        t = c[i];
        c[i] = c[j];
        c[j] = t;
      }
      for (double qq : qs) {
        double expected = bruteForce(qq, ub, c);
        double actual = q(qq, ub, c);
        if (Double.isNaN(expected)) {
          assertThat(actual).as("iter %d q %s", iter, qq).isNaN();
        } else {
          assertThat(actual).as("iter %d q %s", iter, qq).isCloseTo(expected, within(1e-9));
        }
      }
    }
  }

  private static double bruteForce(double q, double[] ub, double[] c) {
    if (Double.isNaN(q)) {
      return Double.NaN;
    }
    if (q < 0) {
      return Double.NEGATIVE_INFINITY;
    }
    if (q > 1) {
      return INF;
    }
    if (ub.length == 0) {
      return Double.NaN;
    }
    // Sort and merge equal bounds in one step. The shuffled input keeps equal bounds in some
    // order; addition is commutative, so the merged counts agree.
    TreeMap<Double, Double> merged = new TreeMap<>();
    for (int i = 0; i < ub.length; i++) {
      merged.merge(ub[i], c[i], Double::sum);
    }
    if (merged.lastKey() != INF) {
      return Double.NaN;
    }
    List<double[]> b = new ArrayList<>();
    for (Map.Entry<Double, Double> e : merged.entrySet()) {
      b.add(new double[] {e.getKey(), e.getValue()});
    }
    double prev = b.get(0)[1];
    for (int i = 1; i < b.size(); i++) {
      double cur = b.get(i)[1];
      if (cur == prev) {
        continue;
      }
      boolean tiny = Math.abs(cur - prev) / (Math.abs(cur) + Math.abs(prev)) < 1e-12;
      if (tiny || cur < prev) {
        b.get(i)[1] = prev;
      } else {
        prev = cur;
      }
    }
    if (b.size() < 2) {
      return Double.NaN;
    }
    double total = b.get(b.size() - 1)[1];
    if (total == 0) {
      return Double.NaN;
    }
    double rank = q * total;
    int idx = b.size() - 1;
    for (int i = 0; i < b.size() - 1; i++) {
      if (b.get(i)[1] >= rank) {
        idx = i;
        break;
      }
    }
    if (idx == b.size() - 1) {
      return b.get(b.size() - 2)[0];
    }
    if (idx == 0 && b.get(0)[0] <= 0) {
      return b.get(0)[0];
    }
    double lower = idx == 0 ? 0 : b.get(idx - 1)[0];
    double below = idx == 0 ? 0 : b.get(idx - 1)[1];
    double upper = b.get(idx)[0];
    return lower + (upper - lower) * ((rank - below) / (b.get(idx)[1] - below));
  }
}
