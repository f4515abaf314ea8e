package dev.gputop.inference.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** PromQL extrapolatedRate, HISTOGRAM.md §2a and checklist item 8, with hand-derived numbers. */
class RateTest {

  private static double rate(double start, double end, double[] t, double[] v) {
    return Rate.rate(t, v, t.length, start, end);
  }

  @Test
  void rate_fewerThanTwoSamplesIsNan() {
    assertThat(rate(0, 60, new double[] {30}, new double[] {5})).isNaN();
    assertThat(Rate.rawIncrease(new double[] {5}, 1)).isNaN();
  }

  @Test
  void rate_samplesCoveringTheRangeNeedNoExtrapolation() {
    // Samples at the very edges: factor = 60/60, rate = 120/60.
    assertThat(rate(0, 60, new double[] {0, 30, 60}, new double[] {100, 160, 220})).isEqualTo(2.0);
  }

  @Test
  void rate_extrapolatesBelowThresholdByTheRealDistance() {
    // Scrapes every 3 s at 3..60 in range (0,60]: 20 samples, interval 57 s, avg 3 s, threshold 3.3.
    // durationToStart = 3 < 3.3 → kept. Counter starts at 1000 (far from zero). +2/s.
    double[] t = new double[20];
    double[] v = new double[20];
    for (int i = 0; i < 20; i++) {
      t[i] = 3 + 3 * i;
      v[i] = 1000 + 6 * i;
    }
    // result 114, factor (57 + 3 + 0)/57/60 → 114 × 60/57/60 = 2.
    assertThat(rate(0, 60, t, v)).isCloseTo(2.0, within(1e-12));
    assertThat(Rate.increase(t, v, 20, 0, 60)).isCloseTo(120.0, within(1e-12));
  }

  @Test
  void rate_gapAboveThresholdExtrapolatesByHalfAnInterval() {
    // Samples at 30, 40, 50 in (0, 60]: avg 10, threshold 11; toStart 30 → 5, toEnd 10 (< 11) kept.
    // result 20 from 1000: factor (20 + 5 + 10)/20/60 → 20 × 35/20/60 = 0.58333…
    assertThat(rate(0, 60, new double[] {30, 40, 50}, new double[] {1000, 1010, 1020}))
        .isCloseTo(35.0 / 60, within(1e-12));
    // toEnd exactly at the threshold (≥) is replaced too: samples 30,40 in (0,51]: avg 10,
    // threshold 11, toEnd 11 → 5, toStart 30 → 5. 10 × (10+5+5)/10/51.
    assertThat(rate(0, 51, new double[] {30, 40}, new double[] {1000, 1010}))
        .isCloseTo(20.0 / 51, within(1e-12));
  }

  @Test
  void rate_neverExtrapolatesBelowZero() {
    // Counter from 2 to 12 between 30 and 40 in (0,40]: toStart 30 ≥ 11 → 5; durationToZero =
    // 10 × 2/10 = 2 < 5 → 2. factor (10 + 2 + 0)/10/40 → 10 × 12/10/40 = 0.3.
    assertThat(rate(0, 40, new double[] {30, 40}, new double[] {2, 12})).isCloseTo(0.3, within(1e-12));
    // Starting at zero: no extrapolation backwards at all.
    assertThat(rate(0, 40, new double[] {30, 40}, new double[] {0, 10})).isCloseTo(0.25, within(1e-12));
  }

  @Test
  void rate_resetMidWindowAddsTheValueBeforeTheReset() {
    // 100 → 150 → (restart) 20 → 50 at 0,20,40,60 in (0,60]... first sample at the edge.
    // result = 50 − 100 + 150 = 100; first 100 ≥ 0, durationToZero = 60 × 100/100 = 60 > 0.
    double[] t = {0, 20, 40, 60};
    double[] v = {100, 150, 20, 50};
    assertThat(rate(0, 60, t, v)).isCloseTo(100.0 / 60, within(1e-12));
    assertThat(Rate.rawIncrease(v, 4)).isEqualTo(100.0);
  }

  @Test
  void rate_dividesByTheFullRangeNotTheSampledInterval() {
    // Two samples 3 s apart at the end of a 60 s range: toStart 57 → 1.5, toEnd 0.
    // result 6 from 1000: 6 × (3 + 1.5)/3/60 = 0.15 (PromQL's dilution of a young series).
    assertThat(rate(0, 60, new double[] {57, 60}, new double[] {1000, 1006})).isCloseTo(0.15, within(1e-12));
  }

  @Test
  void rate_constantCounterIsZero() {
    assertThat(rate(0, 60, new double[] {10, 20, 30}, new double[] {5, 5, 5})).isEqualTo(0.0);
  }
}
