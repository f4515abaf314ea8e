package dev.gputop.inference.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.testing.TextExpositions;
import dev.gputop.inference.window.ServerWindow;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The prompt and generation length distributions over the window, worked out by hand from two
 * vLLM scrapes 10 s apart serving two models: mean = Δsum / Δcount, quantiles as PromQL's {@code
 * histogram_quantile} over the buckets' increases, at the configured quantiles (0.5 and 0.95
 * here), per model and for the server.
 */
class RequestLengthsStatisticsTest {

  private static final long SECOND = 1_000_000_000L;
  private static final double EPS = 1e-9;
  private static final Quantiles P50_P95 = Quantiles.of(List.of(0.95, 0.5));

  private static String histogram(String name, String model, String[] le, long[] buckets, long sum) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < le.length; i++) {
      b.append(name).append("_bucket{le=\"").append(le[i]).append("\",model_name=\"").append(model)
          .append("\"} ").append(buckets[i]).append('\n');
    }
    b.append(name).append("_sum{model_name=\"").append(model).append("\"} ").append(sum).append('\n');
    b.append(name).append("_count{model_name=\"").append(model).append("\"} ")
        .append(buckets[buckets.length - 1]).append('\n');
    return b.toString();
  }

  /**
   * Prompt tokens: model a Δ(≤100) 4, Δ(≤500) 10, Δ(+Inf) 10, Δsum 2400; model b Δ(≤1000) 5,
   * Δ(+Inf) 10, Δsum 12000. Generated tokens: model a Δ(≤50) 2, Δ(≤200) 8, Δsum 800; model b
   * none in the window.
   */
  private static String exposition(int t) {
    String[] prompt = {"100.0", "500.0", "1000.0", "+Inf"};
    String[] gen = {"50.0", "200.0", "+Inf"};
    boolean late = t == 1;
    return "# TYPE vllm:num_requests_running gauge\n"
        + "vllm:num_requests_running{model_name=\"a\"} 1\n"
        + "vllm:num_requests_running{model_name=\"b\"} 1\n"
        + "# TYPE vllm:request_prompt_tokens histogram\n"
        + histogram("vllm:request_prompt_tokens", "a", prompt,
            late ? new long[] {5, 12, 12, 12} : new long[] {1, 2, 2, 2}, late ? 2700 : 300)
        + histogram("vllm:request_prompt_tokens", "b", prompt,
            late ? new long[] {0, 0, 6, 11} : new long[] {0, 0, 1, 1}, late ? 12800 : 800)
        + "# TYPE vllm:request_generation_tokens histogram\n"
        + histogram("vllm:request_generation_tokens", "a", gen,
            late ? new long[] {2, 8, 8} : new long[] {0, 0, 0}, late ? 800 : 0)
        + histogram("vllm:request_generation_tokens", "b", gen, new long[] {1, 1, 1}, 30);
  }

  private static ServerWindow window(int scrapes) {
    EngineMapper mapper = new EngineMapper();
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 64);
    for (int t = 0; t < scrapes; t++) {
      w.add((100 + 10 * t) * SECOND, (1_000 + 10 * t) * SECOND,
          mapper.map(TextExpositions.parse(exposition(t))));
    }
    return w;
  }

  private static void assertDistribution(LatencyStats l, double mean, double p50, double p95, long count) {
    assertThat(l).isNotNull();
    assertThat(l.quantiles()).isEqualTo(P50_P95);
    assertThat(l.count()).isEqualTo(count);
    assertThat(l.mean()).isCloseTo(mean, within(EPS));
    assertThat(l.value(0.5)).isCloseTo(p50, within(EPS));
    assertThat(l.value(0.95)).isCloseTo(p95, within(EPS * p95));
  }

  @Test
  void compute_perModelAndServer_asPromqlOverTheBucketIncreases() {
    ServerWindow w = window(2);
    RequestLengths a = WindowStatistics.compute(w, "a", null, P50_P95).requestLengths();
    // a: mean 2400 / 10; p50 rank 5 in (100, 500] holding 6: 100 + 400 × 1/6; p95 rank 9.5:
    // 100 + 400 × 5.5/6.
    assertDistribution(a.prompt(), 240, 100 + 400.0 / 6, 100 + 400 * 5.5 / 6, 10);
    // generation a: p50 rank 4 in (50, 200] holding 6: 50 + 150 × 2/6; p95 rank 7.6: 50 + 150 × 5.6/6.
    assertDistribution(a.generation(), 100, 100, 50 + 150 * 5.6 / 6, 8);

    RequestLengths b = WindowStatistics.compute(w, "b", null, P50_P95).requestLengths();
    // b: p50 rank 5 fills (500, 1000]: 1000; p95 rank 9.5 lies in +Inf: the highest finite bound.
    assertDistribution(b.prompt(), 1200, 1000, 1000, 10);
    // b generated nothing in the window: a count of 0, no values (N/A: no requests).
    assertThat(b.generation().count()).isZero();
    assertThat(b.generation().mean()).isNull();
    assertThat(b.generation().value(0.5)).isNull();

    RequestLengths server = WindowStatistics.compute(w, null, null, P50_P95).requestLengths();
    // Both models summed by le: Δ(≤100) 4, Δ(≤500) 10, Δ(≤1000) 15, Δ(+Inf) 20, Δsum 14400.
    // p50 rank 10 closes (100, 500]: 500; p95 rank 19 in +Inf: 1000.
    assertDistribution(server.prompt(), 720, 500, 1000, 20);
    assertDistribution(server.generation(), 100, 100, 50 + 150 * 5.6 / 6, 8);
  }

  @Test
  void compute_oneScrape_isNotYetAndAnEngineWithoutTheHistogramsHasNone() {
    RequestLengths one = WindowStatistics.compute(window(1), null, null, P50_P95).requestLengths();
    assertThat(one.prompt()).isNotNull();
    assertThat(one.prompt().count()).isNull();
    assertThat(one.prompt().mean()).isNull();
    assertThat(one.generation().value(0.95)).isNull();

    ServerWindow llama = new ServerWindow(Duration.ofMinutes(1), 64);
    for (int t = 0; t < 2; t++) {
      llama.add((100 + 10 * t) * SECOND, (1_000 + 10 * t) * SECOND, new EngineMapper().map(
          TextExpositions.parse("# TYPE llamacpp:prompt_tokens_total counter\n"
              + "llamacpp:prompt_tokens_total " + (100 + 50 * t) + "\n")));
    }
    assertThat(WindowStatistics.compute(llama, null, null, P50_P95).requestLengths())
        .isEqualTo(RequestLengths.NONE);
  }
}
