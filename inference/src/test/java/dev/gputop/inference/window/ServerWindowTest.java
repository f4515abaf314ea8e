package dev.gputop.inference.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.HistogramSeries;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.stats.WindowStatistics;
import dev.gputop.inference.testing.TextExpositions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The window's ring, its range, and when it starts over; time comes from the test. */
class ServerWindowTest {

  private static final long S = 1_000_000_000L;
  private final EngineMapper mapper = new EngineMapper();

  private ServerScrape vllm(double requests, double running) {
    return mapper.map(TextExpositions.parse(
        "# TYPE vllm:request_success_total counter\n"
            + "vllm:request_success_total{finished_reason=\"stop\",model_name=\"m\"} " + requests + "\n"
            + "# TYPE vllm:num_requests_running gauge\n"
            + "vllm:num_requests_running{model_name=\"m\"} " + running + "\n"));
  }

  private ServerScrape ttft(String buckets) {
    StringBuilder sb = new StringBuilder("# TYPE vllm:time_to_first_token_seconds histogram\n");
    double total = 0;
    for (String b : buckets.split(" ")) {
      String[] kv = b.split("=");
      total = Double.parseDouble(kv[1]);
      sb.append("vllm:time_to_first_token_seconds_bucket{le=\"").append(kv[0]).append("\",model_name=\"m\"} ")
          .append(kv[1]).append('\n');
    }
    sb.append("vllm:time_to_first_token_seconds_count{model_name=\"m\"} ").append(total).append('\n');
    sb.append("vllm:time_to_first_token_seconds_sum{model_name=\"m\"} ").append(total * 0.1).append('\n');
    return mapper.map(TextExpositions.parse(sb.toString()));
  }

  @Test
  void compute_oneScrapeHasGaugesButNoRates() {
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 64);
    w.add(0, 0, vllm(10, 3));
    ServerStats s = WindowStatistics.compute(w, null);
    assertThat(s.running()).isEqualTo(3);
    assertThat(s.requestsPerSecond()).isNull();
  }

  @Test
  void add_keepsOneKeyAndLayoutPerSeriesAndEveryScrapesValues() {
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 64);
    ServerScrape first = ttft("0.1=1 1=2 +Inf=3");
    w.add(S, S, first);
    w.add(4 * S, 4 * S, ttft("0.1=2 1=4 +Inf=6"));
    ConceptColumns cc = w.columns(Concept.TTFT);
    assertThat(cc.size()).isEqualTo(1);
    SeriesColumn h = cc.get(0);
    // One key and one layout object for the whole window: the first scrape's.
    HistogramSeries original = first.get(Concept.TTFT).histograms().values().iterator().next();
    assertThat(h.key()).isSameAs(original.key());
    assertThat(h.bounds()).isSameAs(original.bounds());
    assertThat(buckets(h, w.slot(0))).containsExactly(1, 2, 3);
    assertThat(buckets(h, w.slot(1))).containsExactly(2, 4, 6);
    assertThat(h.value(w.slot(1))).isEqualTo(6);
    assertThat(h.sum(w.slot(1))).isCloseTo(0.6, within(1e-12));
    assertThat(WindowStatistics.compute(w, null).ttft().count()).isEqualTo(3);
  }

  @Test
  void add_bucketCountsOfAnySizeReadBackExactly() {
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 64);
    // Small integers, then counts past int range from the first base, then fractions.
    String[] scrapes = {"0.1=1 1=2 +Inf=3", "0.1=5e9 1=5e9 +Inf=7e9",
        "0.1=5000000001 1=9.007199254740991e15 +Inf=9.007199254740991e15",
        "0.1=5000000001.5 1=9.007199254740991e15 +Inf=9.007199254740991e15"};
    double[][] expected = {{1, 2, 3}, {5e9, 5e9, 7e9}, {5000000001d, 9.007199254740991e15, 9.007199254740991e15},
        {5000000001.5, 9.007199254740991e15, 9.007199254740991e15}};
    for (int i = 0; i < scrapes.length; i++) {
      assertThat(w.add((i + 1) * S, 0, ttft(scrapes[i]))).isNull();
    }
    SeriesColumn h = w.columns(Concept.TTFT).get(0);
    for (int i = 0; i < scrapes.length; i++) {
      assertThat(buckets(h, w.slot(i))).containsExactly(expected[i]);
    }
  }

  @Test
  void add_seriesThatVanishedLeavesTheWindowWithItsLastSample() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(0, 0, engines(1000, 100.0));
    assertThat(w.columns(Concept.REQUESTS).size()).isEqualTo(2);
    for (int t = 10; t <= 60; t += 10) {
      w.add(t * S, 0, engines(1000 + t, null));
    }
    // Engine 1's only sample (at 0 s) has left the range (0, 60]: nothing of it is kept.
    assertThat(w.columns(Concept.REQUESTS).size()).isEqualTo(1);
    assertThat(w.columns(Concept.REQUESTS).get(0).key().labels().get("engine")).isEqualTo("0");
  }

  @Test
  void add_ringGrowsAndWrapsKeepingTheOrderOfScrapes() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    for (int i = 0; i < 100; i++) {
      w.add(i * 3 * S, i, vllm(1000 + 6 * i, 1));
      int n = Math.min(i + 1, 20);
      assertThat(w.size()).isEqualTo(n);
      SeriesColumn c = w.columns(Concept.REQUESTS).get(0);
      for (int k = 0; k < n; k++) {
        int scrape = i - n + 1 + k;
        assertThat(w.nanos(k)).isEqualTo(scrape * 3 * S);
        assertThat(c.value(w.slot(k))).isEqualTo(1000 + 6 * scrape);
      }
    }
    assertThat(w.newestEpochNanos()).isEqualTo(99);
  }

  private static double[] buckets(SeriesColumn h, int slot) {
    double[] out = new double[h.bounds().length];
    for (int b = 0; b < out.length; b++) {
      out[b] = h.bucket(slot, b);
    }
    return out;
  }

  @Test
  void add_dropsScrapesOlderThanTheWindow() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    for (int i = 0; i <= 30; i++) {
      w.add(i * 3 * S, 0, vllm(1000 + 6 * i, 1));
    }
    // Newest at 90 s: the range (30, 90] holds the scrapes at 33..90 s: 20 of them.
    assertThat(w.size()).isEqualTo(20);
    assertThat(w.nanos(0)).isEqualTo(33 * S);
    assertThat(w.rangeStartNanos()).isEqualTo(30 * S);
    // PromQL rate over 60 s: Δ114 over 57 s, extrapolated by 3 s (< 1.1 × 3) → 120 / 60 = 2.
    assertThat(WindowStatistics.compute(w, null).requestsPerSecond()).isCloseTo(2.0, within(1e-12));
  }

  @Test
  void add_capsTheNumberOfScrapes() {
    ServerWindow w = new ServerWindow(Duration.ofHours(1), 5);
    for (int i = 0; i < 50; i++) {
      w.add(i * S, 0, vllm(i, 1));
    }
    assertThat(w.size()).isEqualTo(5);
  }

  @Test
  void compute_youngWindowRateCoversOnlyTheTimeSinceTheFirstScrape() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(100 * S, 0, vllm(1000, 1));
    w.add(103 * S, 0, vllm(1006, 1));
    // Range [100, 103]: 6 / 3 s, not PromQL's diluted 6 × 4.5/3/60 over a 60 s range.
    assertThat(WindowStatistics.compute(w, null).requestsPerSecond()).isCloseTo(2.0, within(1e-12));
  }

  @Test
  void add_counterGoingBackwardsStartsTheWindowOver() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(0, 0, vllm(1000, 1));
    w.add(3 * S, 0, vllm(1006, 1));
    String reason = w.add(6 * S, 6_000, vllm(4, 1));
    assertThat(reason).contains("vllm:request_success").contains("went backwards");
    assertThat(w.size()).isEqualTo(1);
    assertThat(w.restarts()).isEqualTo(1);
    assertThat(w.eraStartEpochNanos()).isEqualTo(6_000);
    // Back to one scrape: no rate (never a negative one).
    assertThat(WindowStatistics.compute(w, null).requestsPerSecond()).isNull();
    w.add(9 * S, 0, vllm(10, 1));
    assertThat(WindowStatistics.compute(w, null).requestsPerSecond()).isCloseTo(2.0, within(1e-12));
  }

  @Test
  void add_bucketLayoutChangeStartsTheWindowOver() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(0, 0, ttft("0.1=1 1=2 +Inf=2"));
    w.add(3 * S, 0, ttft("0.1=3 1=4 +Inf=4"));
    assertThat(w.size()).isEqualTo(2);
    // vLLM 0.8.4 added buckets: same server, new layout.
    String reason = w.add(6 * S, 0, ttft("0.1=3 1=4 20=4 +Inf=4"));
    assertThat(reason).contains("bucket layout");
    assertThat(w.size()).isEqualTo(1);
  }

  @Test
  void add_bucketGoingBackwardsStartsTheWindowOver() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(0, 0, ttft("0.1=5 1=6 +Inf=6"));
    assertThat(w.add(3 * S, 0, ttft("0.1=1 1=7 +Inf=7"))).contains("went backwards");
  }

  @Test
  void add_engineChangeStartsTheWindowOver() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(0, 0, vllm(1, 1));
    String reason = w.add(3 * S, 0, mapper.map(TextExpositions.parse("llamacpp:requests_processing 1\n")));
    assertThat(reason).contains("engine changed from vllm to llamacpp");
  }

  @Test
  void compute_noRequestInTheWindowGivesCountZeroAndNullLatencies() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(0, 0, ttft("0.1=3 1=4 +Inf=4"));
    w.add(3 * S, 0, ttft("0.1=3 1=4 +Inf=4"));
    var l = WindowStatistics.compute(w, null).ttft();
    assertThat(l.count()).isZero();
    assertThat(l.mean()).isNull();
    assertThat(l.p50()).isNull();
    assertThat(l.p99()).isNull();
  }

  @Test
  void compute_familyDeclaredWithoutSamplesIsNotApplicable() {
    ServerScrape empty = mapper.map(TextExpositions.parse(
        "# HELP vllm:num_requests_running Number of requests currently running on GPU.\n"
            + "# TYPE vllm:num_requests_running gauge\n"
            + "# TYPE vllm:time_to_first_token_seconds histogram\n"));
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(0, 0, empty);
    w.add(3 * S, 0, empty);
    ServerStats s = WindowStatistics.compute(w, null);
    assertThat(s.running()).isNull();
    assertThat(s.ttft()).isNull();
  }

  @Test
  void add_scrapeNotNewerThanTheNewestIsIgnored() {
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(5 * S, 0, vllm(1, 1));
    w.add(5 * S, 0, vllm(2, 1));
    assertThat(w.size()).isEqualTo(1);
  }

  @Test
  void compute_enginesWithDifferentLayoutsAreSummedByBound() {
    // Engine 0 has buckets 0.1, 1; engine 1 has 0.5, 1 (a mixed-version fleet behind one URL).
    String t0 = "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"0.1\"} 0\n"
        + "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"1\"} 0\n"
        + "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"+Inf\"} 0\n"
        + "vllm:time_to_first_token_seconds_bucket{engine=\"1\",le=\"0.5\"} 0\n"
        + "vllm:time_to_first_token_seconds_bucket{engine=\"1\",le=\"1\"} 0\n"
        + "vllm:time_to_first_token_seconds_bucket{engine=\"1\",le=\"+Inf\"} 0\n";
    String t1 = "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"0.1\"} 10\n"
        + "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"1\"} 10\n"
        + "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"+Inf\"} 10\n"
        + "vllm:time_to_first_token_seconds_bucket{engine=\"1\",le=\"0.5\"} 0\n"
        + "vllm:time_to_first_token_seconds_bucket{engine=\"1\",le=\"1\"} 10\n"
        + "vllm:time_to_first_token_seconds_bucket{engine=\"1\",le=\"+Inf\"} 10\n";
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(0, 0, mapper.map(TextExpositions.parse(t0)));
    w.add(10 * S, 0, mapper.map(TextExpositions.parse(t1)));
    // sum by (le) of rates (Δ/10): 0.1 → 1, 0.5 → 0, 1 → 1 + 1, +Inf → 2. PromQL sorts
    // [0.1:1, 0.5:0, 1:2, +Inf:2] and forces 0.5 up to 1 (non-monotonic).
    // p50: rank 1 ≤ 1 at le=0.1 → 0 + 0.1 × 1/1 = 0.1. p90: rank 1.8 in (0.5, 1]: 0.5 + 0.5 × 0.8/1.
    var l = WindowStatistics.compute(w, null).ttft();
    assertThat(l.count()).isEqualTo(20);
    assertThat(l.p50()).isCloseTo(0.1, within(1e-12));
    assertThat(l.p90()).isCloseTo(0.9, within(1e-12));
  }

  /** request_success for engine 0 and, when {@code e1} is not null, engine 1. */
  private ServerScrape engines(double e0, Double e1) {
    String text = "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\"} " + e0 + "\n";
    if (e1 != null) {
      text += "vllm:request_success_total{engine=\"1\",finished_reason=\"stop\"} " + e1 + "\n";
    }
    return mapper.map(TextExpositions.parse(text));
  }

  @Test
  void compute_ratesArePerSeriesThenSummedSoAResetInOneSeriesIsCorrected() {
    // HISTOGRAM.md §4.9: rate per series, then sum. Engine 1 vanishes and comes back lower (its
    // core restarted); the window does not restart (no consecutive drop), its rate corrects it.
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(0, 0, engines(1000, 100.0));
    w.add(10 * S, 0, engines(1010, null));
    assertThat(w.add(20 * S, 0, engines(1020, 10.0))).isNull();
    // Engine 0: 20 in 20 s = 1/s. Engine 1: 10 − 100 + 100 (reset) = 10 in 20 s = 0.5/s.
    // (The rate of the sum would be (1030 − 1100) / 20 < 0.)
    assertThat(WindowStatistics.compute(w, null).requestsPerSecond()).isCloseTo(1.5, within(1e-12));
  }

  @Test
  void compute_vanishedSeriesCountsUntilItsSamplesLeaveTheWindow() {
    // HISTOGRAM.md §4.10: like PromQL after a staleness marker, a series that is gone keeps its
    // samples in the range until they age out.
    ServerWindow w = new ServerWindow(Duration.ofSeconds(60), 64);
    w.add(0, 0, engines(1000, 100.0));
    w.add(10 * S, 0, engines(1010, 110.0));
    w.add(20 * S, 0, engines(1020, null));
    // Engine 0: 1/s. Engine 1: 10 over [0, 10], extrapolated 10 s to the end (< 1.1 × 10):
    // 10 × (10 + 0 + 10) / 10 / 20 = 1/s.
    assertThat(WindowStatistics.compute(w, null).requestsPerSecond()).isCloseTo(2.0, within(1e-12));
    for (int t = 30; t <= 70; t += 10) {
      w.add(t * S, 0, engines(1000 + t, null));
    }
    // At 70 s the range is (10, 70]: engine 1's samples are gone. Engine 0: 50 over 50 s,
    // extrapolated 10 s back to the range start: 50 × 60 / 50 / 60 = 1/s.
    assertThat(WindowStatistics.compute(w, null).requestsPerSecond()).isCloseTo(1.0, within(1e-12));
  }
}
