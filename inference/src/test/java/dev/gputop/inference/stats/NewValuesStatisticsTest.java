package dev.gputop.inference.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.testing.TextExpositions;
import dev.gputop.inference.window.ServerWindow;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * failedRequestsPerSecond, specDecodeAcceptanceRate and the prefill/decode distributions on two
 * vLLM V1 scrapes 10 s apart, written from vLLM's definitions (request_success by
 * finished_reason, SpecDecodingProm's counters, request_prefill_time_seconds).
 */
class NewValuesStatisticsTest {

  private static final long SECOND = 1_000_000_000L;
  private static final double EPS = 1e-9;

  private static String exposition(int t) {
    boolean late = t == 1;
    return "# TYPE vllm:request_success_total counter\n"
        + "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\",model_name=\"m\"} " + (late ? 150 : 100) + "\n"
        + "vllm:request_success_total{engine=\"0\",finished_reason=\"abort\",model_name=\"m\"} " + (late ? 7 : 2) + "\n"
        + "vllm:request_success_total{engine=\"0\",finished_reason=\"error\",model_name=\"m\"} " + (late ? 2 : 1) + "\n"
        + "vllm:request_success_total{engine=\"1\",finished_reason=\"abort\",model_name=\"m\"} " + (late ? 4 : 0) + "\n"
        + "# TYPE vllm:spec_decode_num_draft_tokens_total counter\n"
        + "vllm:spec_decode_num_draft_tokens_total{engine=\"0\",model_name=\"m\"} " + (late ? 1400 : 1000) + "\n"
        + "vllm:spec_decode_num_draft_tokens_total{engine=\"1\",model_name=\"m\"} " + (late ? 600 : 500) + "\n"
        + "# TYPE vllm:spec_decode_num_accepted_tokens_total counter\n"
        + "vllm:spec_decode_num_accepted_tokens_total{engine=\"0\",model_name=\"m\"} " + (late ? 900 : 600) + "\n"
        + "vllm:spec_decode_num_accepted_tokens_total{engine=\"1\",model_name=\"m\"} " + (late ? 350 : 300) + "\n"
        + "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n"
        + "vllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"0\",model_name=\"m\",position=\"0\"} " + (late ? 600 : 400) + "\n"
        + "vllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"0\",model_name=\"m\",position=\"1\"} " + (late ? 300 : 200) + "\n"
        + "# TYPE vllm:request_prefill_time_seconds histogram\n"
        + "vllm:request_prefill_time_seconds_bucket{engine=\"0\",le=\"0.1\",model_name=\"m\"} " + (late ? 6 : 0) + "\n"
        + "vllm:request_prefill_time_seconds_bucket{engine=\"0\",le=\"0.5\",model_name=\"m\"} " + (late ? 10 : 0) + "\n"
        + "vllm:request_prefill_time_seconds_bucket{engine=\"0\",le=\"+Inf\",model_name=\"m\"} " + (late ? 10 : 0) + "\n"
        + "vllm:request_prefill_time_seconds_sum{engine=\"0\",model_name=\"m\"} " + (late ? 2.0 : 0) + "\n"
        + "vllm:request_prefill_time_seconds_count{engine=\"0\",model_name=\"m\"} " + (late ? 10 : 0) + "\n";
  }

  @Test
  void compute_failedRequestsSpecDecodeAcceptanceAndPrefill() {
    EngineMapper mapper = new EngineMapper();
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 64);
    ServerScrape s0 = mapper.map(TextExpositions.parse(exposition(0)));
    w.add(100 * SECOND, 1_000 * SECOND, s0);
    w.add(110 * SECOND, 1_010 * SECOND, mapper.map(TextExpositions.parse(exposition(1))));
    ServerStats s = WindowStatistics.compute(w, null);
    // Every finished_reason: (50 + 5 + 1 + 4) / 10 s.
    assertThat(s.requestsPerSecond()).isCloseTo(6.0, within(EPS));
    // A failure is the engine's error only: 1 / 10 s; the client's aborts, both engines, are
    // counted apart: (5 + 4) / 10 s.
    assertThat(s.failedRequestsPerSecond()).isCloseTo(0.1, within(EPS));
    assertThat(s.abortedRequestsPerSecond()).isCloseTo(0.9, within(EPS));
    // Δaccepted (300 + 50) / Δdraft (400 + 100); the per-position parts are never added.
    assertThat(s.specDecodeAcceptanceRate()).isCloseTo(0.7, within(EPS));
    // Prefill: Δ ≤0.1: 6, ≤0.5: 10. p50 rank 5 → 0.1 × 5/6; p90 rank 9 → 0.1 + 0.4 × 3/4;
    // p99 rank 9.9 → 0.1 + 0.4 × 3.9/4. Mean 2.0 / 10.
    FixtureStatisticsTest.assertLatency(s.prefill(), 0.2, 0.1 * 5 / 6, 0.4, 0.1 + 0.4 * 3.9 / 4, 10);
    // No decode histogram in this exposition: N/A as a whole.
    assertThat(s.decode()).isNull();
    assertThat(s.ttft()).isNull();
  }

  @Test
  void compute_oneScrapeHasNoRatesYet() {
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 64);
    w.add(100 * SECOND, 1_000 * SECOND, new EngineMapper().map(TextExpositions.parse(exposition(0))));
    ServerStats s = WindowStatistics.compute(w, null);
    assertThat(s.failedRequestsPerSecond()).isNull();
    assertThat(s.abortedRequestsPerSecond()).isNull();
    assertThat(s.specDecodeAcceptanceRate()).isNull();
    assertThat(s.prefill()).isNotNull();
    assertThat(s.prefill().count()).isNull();
  }
}
