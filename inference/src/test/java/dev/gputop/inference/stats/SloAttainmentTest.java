package dev.gputop.inference.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.gputop.config.SloTargets;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.testing.TextExpositions;
import dev.gputop.inference.window.ServerWindow;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * SLO attainment against the PromQL expression {@code sum(rate(x_bucket{le="T"}[w])) /
 * sum(rate(x_count[w]))} evaluated by hand over the same scrapes (the style of RateTest: every
 * expected number is derived in the comment above it).
 */
class SloAttainmentTest {

  private static final long S = 1_000_000_000L;
  private static final double[] BOUNDS = {0.1, 0.5, 1, Double.POSITIVE_INFINITY};
  private final EngineMapper mapper = new EngineMapper();

  /** A vLLM scrape whose TTFT histogram has, per model, cumulative counts for le 0.1, 0.5, 1, +Inf. */
  private ServerScrape ttft(String model, double... cumulative) {
    return mapper.map(TextExpositions.parse(histogram(model, new String[] {"0.1", "0.5", "1.0", "+Inf"}, cumulative)));
  }

  private static String histogram(String model, String[] le, double[] cumulative) {
    StringBuilder sb = new StringBuilder("# TYPE vllm:time_to_first_token_seconds histogram\n");
    for (int i = 0; i < le.length; i++) {
      sb.append("vllm:time_to_first_token_seconds_bucket{le=\"").append(le[i]).append("\",model_name=\"")
          .append(model).append("\"} ").append(cumulative[i]).append('\n');
    }
    double total = cumulative[cumulative.length - 1];
    sb.append("vllm:time_to_first_token_seconds_count{model_name=\"").append(model).append("\"} ").append(total).append('\n');
    sb.append("vllm:time_to_first_token_seconds_sum{model_name=\"").append(model).append("\"} ").append(total * 0.3).append('\n');
    return sb.toString();
  }

  private static SloTargets ttftTarget(double seconds) {
    return SloTargets.defaults().with(
        new SloTargets(Duration.ofNanos(Math.round(seconds * 1e9)), null, null, null, null, null));
  }

  /**
   * Scrapes at 10, 20, 30, 40 s in a 60 s window: the range is [10, 40] (the era started at
   * 10 s), samples sit on both edges, so every rate is Δ / 30 s with no extrapolation and the
   * attainment is Δbucket / Δcount. Between 10 s and 40 s: Δ(le 0.1) = 30, Δ(le 0.5) = 90,
   * Δ(le 1) = 110, Δ(+Inf) = Δcount = 120.
   */
  private ServerWindow steadyWindow() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(10 * S, 0, ttft("m", 100, 300, 380, 400));
    w.add(20 * S, 0, ttft("m", 110, 330, 420, 440));
    w.add(30 * S, 0, ttft("m", 120, 360, 450, 480));
    w.add(40 * S, 0, ttft("m", 130, 390, 490, 520));
    return w;
  }

  private static SloStats.Value ttftSlo(ServerWindow w, double target) {
    return SloAttainment.compute(w, null, ttftTarget(target)).ttft();
  }

  @Test
  void compute_targetOnABucketBoundIsTheRatioOfTheRates() {
    // sum(rate(le="0.5")) / sum(rate(count)) = (90/30) / (120/30) = 0.75; burn (1−0.75)/(1−0.99) = 25.
    SloStats.Value v = ttftSlo(steadyWindow(), 0.5);
    assertThat(v.target()).isEqualTo(0.5);
    assertThat(v.objective()).isEqualTo(0.99);
    assertThat(v.attainment()).isCloseTo(0.75, within(1e-12));
    assertThat(v.burnRate()).isCloseTo(25.0, within(1e-9));
  }

  @Test
  void compute_targetInsideABucketInterpolatesLinearly() {
    // T = 0.75 in (0.5, 1]: 90 + (110 − 90) × (0.75 − 0.5)/(1 − 0.5) = 100 → 100/120.
    assertThat(ttftSlo(steadyWindow(), 0.75).attainment()).isCloseTo(100.0 / 120, within(1e-12));
  }

  @Test
  void compute_targetBelowTheFirstBoundInterpolatesFromZero() {
    // T = 0.05 in (0, 0.1]: 30 × 0.05/0.1 = 15 → 15/120.
    assertThat(ttftSlo(steadyWindow(), 0.05).attainment()).isCloseTo(15.0 / 120, within(1e-12));
  }

  @Test
  void compute_targetInTheInfBucketCountsOnlyWhatTheHighestFiniteBucketHolds() {
    // T = 2 s > 1 s, the highest finite bound: the 10 requests above 1 s may or may not have met
    // it, so only the 110 at or under 1 s count → 110/120 (as histogram_quantile never reports
    // more than the highest finite bound).
    assertThat(ttftSlo(steadyWindow(), 2).attainment()).isCloseTo(110.0 / 120, within(1e-12));
  }

  @Test
  void compute_noRequestInTheWindowIsNullWithTheTargetKnown() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(10 * S, 0, ttft("m", 100, 300, 380, 400));
    w.add(20 * S, 0, ttft("m", 100, 300, 380, 400));
    SloStats.Value v = ttftSlo(w, 0.5);
    assertThat(v).isEqualTo(new SloStats.Value(0.5, 0.99, null, null));
  }

  @Test
  void compute_oneScrapeIsNullAndAHistogramTheServerLacksHasNoValue() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(10 * S, 0, ttft("m", 100, 300, 380, 400));
    SloTargets all = SloTargets.defaults().with(new SloTargets(
        Duration.ofMillis(500), Duration.ofMillis(50), Duration.ofSeconds(10), Duration.ofSeconds(1), 0.95, null));
    SloStats s = SloAttainment.compute(w, null, all);
    assertThat(s.ttft()).isEqualTo(new SloStats.Value(0.5, 0.95, null, null));
    assertThat(s.itl()).as("vLLM here exports no ITL histogram").isNull();
    assertThat(s.e2e()).isNull();
    assertThat(s.queue()).isNull();
    assertThat(s.worstAttainment()).isNull();
  }

  @Test
  void compute_noTargetConfiguredIsNone() {
    assertThat(SloAttainment.compute(steadyWindow(), null, SloTargets.defaults())).isEqualTo(SloStats.NONE);
  }

  @Test
  void compute_resetInsideTheWindowStartsItOverAsTheOtherStatisticsDo() {
    // The server restarts between 20 s and 30 s: its buckets go down, the window keeps only the
    // scrapes from 30 s on (docs/inference.md "The window"), so the attainment is that of [30, 40]:
    // Δ(le 0.5) = 18 − 10 = 8, Δcount = 30 − 20 = 10 → 0.8. Over the whole window PromQL's reset
    // correction would have mixed both server lives (rate() adds the value before the drop).
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(10 * S, 0, ttft("m", 100, 300, 380, 400));
    w.add(20 * S, 0, ttft("m", 110, 330, 420, 440));
    w.add(30 * S, 0, ttft("m", 5, 10, 15, 20));
    assertThat(ttftSlo(w, 0.5).attainment()).as("one scrape since the restart").isNull();
    w.add(40 * S, 0, ttft("m", 9, 18, 25, 30));
    assertThat(w.restarts()).isEqualTo(1);
    assertThat(ttftSlo(w, 0.5).attainment()).isCloseTo(0.8, within(1e-12));
  }

  @Test
  void fraction_resetCorrectedRatesAreUsedAsPromqlWouldWithinOneSeries() {
    // The pure function over rates as PromQL computes them across a reset (value before the drop
    // added): le 0.5 goes 300 → 330 → (restart) 10 → 18, count 400 → 440 → 20 → 30 at 0,10,20,30
    // in [0, 30]: Δ(le 0.5) = 18 − 300 + 330 = 48, Δcount = 30 − 400 + 440 = 70 → 48/70.
    double[] t = {0, 10, 20, 30};
    double le05 = Rate.rate(t, new double[] {300, 330, 10, 18}, 4, 0, 30);
    double count = Rate.rate(t, new double[] {400, 440, 20, 30}, 4, 0, 30);
    assertThat(SloAttainment.fraction(0.5, new double[] {0.5, Double.POSITIVE_INFINITY}, new double[] {le05, count}, count))
        .isCloseTo(48.0 / 70, within(1e-12));
  }

  @Test
  void compute_extrapolatesEachSeriesLikePromqlRate() {
    // Scrapes every 3 s at t = 3i, i = 0..30, window 60 s: at t = 90 the range is (30, 90] with
    // the 20 scrapes 33..90 s. count = 1000 + 10i; le 0.1 = max(0, 5(i − 11)), 0 at 33 s.
    // le 0.1: Δ 95, durationToStart 3 s (< 1.1 × 3), but the counter was 0 at the first sample:
    //   durationToZero = 0 → rate = 95 × (57 + 0)/57/60 = 95/60.
    // count: Δ 190, durationToZero = 57 × 1110/190 > 3 → rate = 190 × (57 + 3)/57/60 = 190/57.
    // Attainment = (95/60)/(190/57) = 0.475 (the raw Δ ratio would be 0.5).
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    for (int i = 0; i <= 30; i++) {
      double c = 1000 + 10 * i;
      double fast = Math.max(0, 5 * (i - 11));
      w.add(3 * i * S, 0, mapper.map(TextExpositions.parse(
          histogram("m", new String[] {"0.1", "+Inf"}, new double[] {fast, c}))));
    }
    assertThat(w.rangeStartNanos()).isEqualTo(30 * S);
    assertThat(ttftSlo(w, 0.1).attainment()).isCloseTo(0.475, within(1e-12));
  }

  @Test
  void compute_seriesAreSummedAndModelsSeparated() {
    // Two models in one scrape; the server total sums their rates by bucket, a model sees its own.
    // Over [10, 20]: model a Δ(le 0.5) = 9 of Δcount 10; model b Δ(le 0.5) = 1 of 10.
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(10 * S, 0, mapper.map(TextExpositions.parse(
        histogram("a", new String[] {"0.1", "0.5", "1.0", "+Inf"}, new double[] {0, 0, 0, 0})
            + histogram("b", new String[] {"0.1", "0.5", "1.0", "+Inf"}, new double[] {0, 0, 0, 0})
                .replace("# TYPE vllm:time_to_first_token_seconds histogram\n", ""))));
    w.add(20 * S, 0, mapper.map(TextExpositions.parse(
        histogram("a", new String[] {"0.1", "0.5", "1.0", "+Inf"}, new double[] {5, 9, 10, 10})
            + histogram("b", new String[] {"0.1", "0.5", "1.0", "+Inf"}, new double[] {0, 1, 4, 10})
                .replace("# TYPE vllm:time_to_first_token_seconds histogram\n", ""))));
    SloTargets t = ttftTarget(0.5);
    assertThat(SloAttainment.compute(w, null, t).ttft().attainment()).isCloseTo(0.5, within(1e-12));
    assertThat(SloAttainment.compute(w, "a", t).ttft().attainment()).isCloseTo(0.9, within(1e-12));
    assertThat(SloAttainment.compute(w, "b", t).ttft().attainment()).isCloseTo(0.1, within(1e-12));
  }

  @Test
  void compute_bucketLayoutChangeStartsTheWindowOver() {
    // vLLM adds a bucket: the window keeps only the new layout's scrapes (20 s on).
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(10 * S, 0, ttft("m", 100, 300, 380, 400));
    String[] le = {"0.1", "0.25", "0.5", "1.0", "+Inf"};
    w.add(20 * S, 0, mapper.map(TextExpositions.parse(histogram("m", le, new double[] {110, 200, 330, 420, 440}))));
    w.add(30 * S, 0, mapper.map(TextExpositions.parse(histogram("m", le, new double[] {120, 230, 340, 460, 480}))));
    // Over [20, 30]: Δ(le 0.25) = 30 of Δcount 40.
    assertThat(ttftSlo(w, 0.25).attainment()).isCloseTo(0.75, within(1e-12));
  }

  @Test
  void fraction_edgeCases() {
    double inf = Double.POSITIVE_INFINITY;
    // Equal bounds ("1" and "1.0", or two layouts) add, as sum by (le) adds them.
    assertThat(SloAttainment.fraction(1, new double[] {1, 1, inf, inf}, new double[] {2, 3, 4, 6}, 10)).isEqualTo(0.5);
    // Unsorted input is sorted.
    assertThat(SloAttainment.fraction(0.5, new double[] {inf, 0.5, 0.1}, new double[] {10, 6, 2}, 10)).isEqualTo(0.6);
    // Only a +Inf bucket says nothing about any target.
    assertThat(SloAttainment.fraction(0.5, new double[] {inf}, new double[] {10}, 10)).isNaN();
    // No observations.
    assertThat(SloAttainment.fraction(0.5, BOUNDS, new double[] {0, 0, 0, 0}, 0)).isNaN();
    // A first bound ≤ 0: nothing is known below it.
    assertThat(SloAttainment.fraction(-1, new double[] {0, 1, inf}, new double[] {2, 6, 10}, 10)).isEqualTo(0.0);
    // Rates whose extrapolation lifts a bucket above the count are clamped to 1.
    assertThat(SloAttainment.fraction(1, new double[] {1, inf}, new double[] {10.5, 10}, 10)).isEqualTo(1.0);
    // Without a +Inf bucket the count is still the denominator.
    assertThat(SloAttainment.fraction(2, new double[] {0.5, 1}, new double[] {6, 8}, 10)).isEqualTo(0.8);
  }

  @Test
  void burnRate_isTheErrorRateOverTheErrorBudget() {
    assertThat(SloAttainment.burnRate(0.99, 0.99)).isCloseTo(1.0, within(1e-9));
    assertThat(SloAttainment.burnRate(0.856, 0.99)).isCloseTo(14.4, within(1e-9));
    assertThat(SloAttainment.burnRate(1, 0.99)).isEqualTo(0.0);
  }
}
