package dev.gputop.inference.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.gputop.inference.engine.Engine;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.testing.TextExpositions;
import dev.gputop.inference.window.ServerWindow;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Two scrapes per engine (t0, then t1 ten seconds later) from the project's own fixtures in
 * src/test/resources/fixtures/&lt;engine&gt;/, with every expected number derived by hand in the
 * comments. With two scrapes of a young window the range is [t0, t1], so a rate is Δ/10 s.
 */
class FixtureStatisticsTest {

  private static final double EPS = 1e-9;
  private static final long SECOND = 1_000_000_000L;

  private final EngineMapper mapper = new EngineMapper();

  private ServerWindow window(String engine, String name) {
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 64);
    w.add(100 * SECOND, 1_000 * SECOND, scrape(engine, name, 0));
    w.add(110 * SECOND, 1_010 * SECOND, scrape(engine, name, 1));
    return w;
  }

  private ServerScrape scrape(String engine, String name, int t) {
    return mapper.map(
        TextExpositions.parse(
            TextExpositions.resource("/fixtures/" + engine + "/" + name + "-t" + t + ".prom")));
  }

  @Test
  void compute_vllmV1DataParallelSumsEnginesAndPrefersNewNames() {
    ServerWindow w = window("vllm", "vllm-v1-dp2-small");
    assertThat(w.engine()).isEqualTo(Engine.VLLM);
    ServerStats s = WindowStatistics.compute(w, null);
    assertThat(s.ttftApproxMean()).isNull(); // only for engines without a TTFT histogram
    assertThat(s.running()).isEqualTo(5); // 3 + 2 over engine 0 and 1
    assertThat(s.waiting()).isEqualTo(1); // 1 + 0
    assertThat(s.kvCacheUsage()).isEqualTo(0.61); // fullest engine; not the deprecated 0.33
    // Δhits (300 + 250) / Δqueries (600 + 400); the deprecated gpu_prefix_cache_* are ignored.
    assertThat(s.prefixHitRatio()).isCloseTo(0.55, within(EPS));
    // request_success over finished_reason and engine: (20 + 4) + (14 + 2) = 40 in 10 s.
    assertThat(s.requestsPerSecond()).isCloseTo(4.0, within(EPS));
    assertThat(s.promptTokensPerSecond()).isCloseTo(900.0, within(EPS)); // (6000 + 3000)/10
    assertThat(s.generationTokensPerSecond()).isCloseTo(1100.0, within(EPS)); // (7000 + 4000)/10
    assertThat(s.preemptionsPerSecond()).isCloseTo(0.3, within(EPS)); // (2 + 1)/10
    // TTFT Δ per bucket, summed: ≤0.25: 20, ≤0.5: 34, ≤0.75: 38, ≤1: 40.
    // p50 rank 20 → 0.1 + 0.15 × 20/20; p90 rank 36 → 0.5 + 0.25 × 2/4; p99 rank 39.6 → 0.75 + 0.25 × 1.6/2.
    assertLatency(s.ttft(), 13.5 / 40, 0.25, 0.625, 0.95, 40);
    // ITL (inter_token_latency, not the deprecated TPOT): ≤0.025: 8000, ≤0.05: 11000.
    // p50 rank 5500 → 0.01 + 0.015 × 5500/8000; p90 rank 9900 → 0.025 + 0.025 × 1900/3000;
    // p99 rank 10890 → 0.025 + 0.025 × 2890/3000. Mean 198/11000.
    assertLatency(
        s.itl(), 198.0 / 11000, 0.01 + 0.015 * 5500 / 8000, 0.025 + 0.025 * 1900 / 3000,
        0.025 + 0.025 * 2890 / 3000, 11000);
    // E2E: ≤5: 25, ≤10: 39, ≤120: 40. p50 → 2.5 + 2.5 × 20/25; p90 → 5 + 5 × 11/14;
    // p99 rank 39.6 → 60 + 60 × 0.6/1. Mean 310/40.
    assertLatency(s.e2e(), 7.75, 4.5, 5 + 5 * 11.0 / 14, 96.0, 40);
    // Queue: all 40 ≤ 0.3: 0.3 × 20/40, 0.3 × 36/40, 0.3 × 39.6/40. Mean 2/40.
    assertLatency(s.queue(), 0.05, 0.15, 0.27, 0.297, 40);
  }

  @Test
  void compute_sglangTensorParallelRanksAreNotDoubleCounted() {
    ServerWindow w = window("sglang", "sglang-tp2");
    assertThat(w.engine()).isEqualTo(Engine.SGLANG);
    ServerStats s = WindowStatistics.compute(w, null);
    assertThat(s.running()).isEqualTo(4); // tp_rank 0 and 1 both say 4: the batch has 4
    assertThat(s.waiting()).isEqualTo(2);
    assertThat(s.kvCacheUsage()).isEqualTo(0.97);
    assertThat(s.prefixHitRatio()).isCloseTo(0.5, within(EPS)); // Δcached 1000 / Δprompt 2000
    assertThat(s.requestsPerSecond()).isCloseTo(2.0, within(EPS)); // Δ20 / 10
    assertThat(s.promptTokensPerSecond()).isCloseTo(200.0, within(EPS));
    assertThat(s.generationTokensPerSecond()).isCloseTo(300.0, within(EPS));
    assertThat(s.preemptionsPerSecond()).isCloseTo(0.1, within(EPS)); // one rank: Δ1, not 2
    // TTFT ≤0.2: 10, ≤0.4: 20. p50 rank 10 → 0.1 + 0.1 × 10/10; p90 → 0.2 + 0.2 × 8/10;
    // p99 → 0.2 + 0.2 × 9.8/10.
    assertLatency(s.ttft(), 0.25, 0.2, 0.36, 0.396, 20);
    // ITL ≤0.015: 1000, ≤0.020: 3000: 0.015 + 0.005 × {500, 1700, 1970}/2000.
    assertLatency(s.itl(), 0.017, 0.01625, 0.01925, 0.019925, 3000);
    // E2E: 20 in (4, 6]: 4 + 2 × {10, 18, 19.8}/20.
    assertLatency(s.e2e(), 5.0, 5.0, 5.8, 5.98, 20);
    // Queue (repeated per tp_rank): 20 in (0.1, 0.2], counted once.
    assertLatency(s.queue(), 0.15, 0.15, 0.19, 0.199, 20);
  }

  @Test
  void compute_tgiUsesTokenHistogramSumsAndHasNoTtftOrKvCache() {
    ServerWindow w = window("tgi", "tgi-v3");
    assertThat(w.engine()).isEqualTo(Engine.TGI);
    ServerStats s = WindowStatistics.compute(w, null);
    assertThat(s.running()).isEqualTo(8);
    assertThat(s.waiting()).isEqualTo(3);
    assertThat(s.kvCacheUsage()).isNull();
    assertThat(s.prefixHitRatio()).isNull();
    assertThat(s.preemptionsPerSecond()).isNull();
    assertThat(s.ttft()).isNull();
    // Approximate TTFT under its own name: mean queue 0.0144/50 + mean prefill batch 0.6/60.
    assertThat(s.ttftApproxMean()).isCloseTo(0.000288 + 0.01, within(EPS));
    assertThat(s.requestsPerSecond()).isCloseTo(5.0, within(EPS)); // tgi_request_success Δ50
    assertThat(s.promptTokensPerSecond()).isCloseTo(1000.0, within(EPS)); // input_length_sum Δ10000
    assertThat(s.generationTokensPerSecond()).isCloseTo(1200.0, within(EPS));
    // D35 bounds 0.0001 × 1.5^k. E2E: 50 in (1.5^24, 1.5^25] × 1e-4.
    double lo = 0.0001 * Math.pow(1.5, 24);
    double hi = 0.0001 * Math.pow(1.5, 25);
    assertLatency(s.e2e(), 2.1, lo + (hi - lo) * 0.5, lo + (hi - lo) * 0.9, lo + (hi - lo) * 0.99, 50);
    // Queue: 50 in (0.000225, 0.0003375].
    assertLatency(s.queue(), 0.000288, 0.00028125, 0.000225 + 0.0001125 * 0.9,
        0.000225 + 0.0001125 * 0.99, 50);
    // TPOT (per-request mean time per token; TGI has no per-token ITL): 40 in (1.5^9, 1.5^10],
    // 10 in (1.5^10, 1.5^11] × 1e-4.
    assertThat(s.itl()).isNull();
    double a = 0.0001 * Math.pow(1.5, 9);
    double b = 0.0001 * Math.pow(1.5, 10);
    double c = 0.0001 * Math.pow(1.5, 11);
    assertLatency(s.tpot(), 0.044, a + (b - a) * 25 / 40, b + (c - b) * 5 / 10, b + (c - b) * 9.5 / 10, 50);
  }

  @Test
  void compute_llamaCppHasGaugesAndTokenRatesOnly() {
    ServerWindow w = window("llamacpp", "llamacpp-b4748-kv");
    assertThat(w.engine()).isEqualTo(Engine.LLAMACPP);
    // n_busy_slots_per_decode is typed counter and went down: it is not read, so no restart.
    assertThat(w.size()).isEqualTo(2);
    ServerStats s = WindowStatistics.compute(w, null);
    assertThat(s.running()).isEqualTo(2);
    assertThat(s.waiting()).isEqualTo(1);
    assertThat(s.kvCacheUsage()).isEqualTo(0.5);
    assertThat(s.promptTokensPerSecond()).isCloseTo(30.0, within(EPS));
    assertThat(s.generationTokensPerSecond()).isCloseTo(60.0, within(EPS));
    assertThat(s.requestsPerSecond()).isNull();
    assertThat(s.prefixHitRatio()).isNull();
    assertThat(s.preemptionsPerSecond()).isNull();
    assertThat(s.ttft()).isNull();
    assertThat(s.itl()).isNull();
    assertThat(s.e2e()).isNull();
    assertThat(s.queue()).isNull();
  }

  @Test
  void compute_rayVllmTwoModelsGivesServerTotalAndPerModelBreakdown() {
    ServerWindow w = window("vllm", "ray-vllm-two-models");
    assertThat(w.engine()).isEqualTo(Engine.VLLM);
    assertThat(w.models()).containsExactly("model-a", "model-b");
    ServerStats total = WindowStatistics.compute(w, null);
    ServerStats a = WindowStatistics.compute(w, "model-a");
    ServerStats b = WindowStatistics.compute(w, "model-b");
    assertThat(total.running()).isEqualTo(3);
    assertThat(a.running()).isEqualTo(2);
    assertThat(b.running()).isEqualTo(1);
    assertThat(total.waiting()).isEqualTo(4);
    assertThat(total.kvCacheUsage()).isEqualTo(0.8);
    assertThat(a.kvCacheUsage()).isEqualTo(0.3);
    // V0 hit-rate gauge: model-b reports −1 (caching off), so only model-a's 0.5 counts.
    assertThat(total.prefixHitRatio()).isEqualTo(0.5);
    assertThat(b.prefixHitRatio()).isNull();
    assertThat(total.requestsPerSecond()).isCloseTo(3.0, within(EPS));
    assertThat(a.requestsPerSecond()).isCloseTo(2.0, within(EPS));
    assertThat(b.requestsPerSecond()).isCloseTo(1.0, within(EPS));
    assertThat(a.promptTokensPerSecond()).isCloseTo(60.0, within(EPS));
    // TTFT: model-a 20 in (0.04, 0.06], model-b 10 in (0.25, 0.5].
    assertLatency(a.ttft(), 0.05, 0.05, 0.04 + 0.02 * 18 / 20, 0.04 + 0.02 * 19.8 / 20, 20);
    assertLatency(b.ttft(), 0.4, 0.375, 0.25 + 0.25 * 9 / 10, 0.25 + 0.25 * 9.9 / 10, 10);
    // Server: ≤0.06: 20, ≤0.5: 30. p50 rank 15 → 0.04 + 0.02 × 15/20; p90 rank 27 →
    // 0.25 + 0.25 × 7/10; p99 rank 29.7 → 0.25 + 0.25 × 9.7/10. Mean (1 + 4)/30.
    assertLatency(total.ttft(), 5.0 / 30, 0.055, 0.425, 0.4925, 30);
  }

  static void assertLatency(LatencyStats l, double mean, double p50, double p90, double p99, long count) {
    assertThat(l).isNotNull();
    assertThat(l.count()).isEqualTo(count);
    assertThat(l.mean()).isCloseTo(mean, within(EPS));
    assertThat(l.p50()).isCloseTo(p50, within(EPS));
    assertThat(l.p90()).isCloseTo(p90, within(EPS));
    assertThat(l.p99()).isCloseTo(p99, within(EPS));
  }
}
