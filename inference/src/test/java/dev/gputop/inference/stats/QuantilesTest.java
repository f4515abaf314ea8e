package dev.gputop.inference.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.config.SloTargets;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.testing.TextExpositions;
import dev.gputop.inference.window.ServerWindow;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code inference.quantiles}: the names of a quantile, the latency statistics computed at the
 * configured ones, and their JSON, the default's byte for byte as before the setting existed.
 */
class QuantilesTest {

  private static final long SECOND = 1_000_000_000L;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** TTFT: Δ ≤0.1: 60, ≤0.5: 90, ≤1: 100 over 10 s; Δsum 25. */
  private static String exposition(boolean late) {
    return "# TYPE vllm:time_to_first_token_seconds histogram\n"
        + "vllm:time_to_first_token_seconds_bucket{le=\"0.1\",model_name=\"m\"} " + (late ? 60 : 0) + "\n"
        + "vllm:time_to_first_token_seconds_bucket{le=\"0.5\",model_name=\"m\"} " + (late ? 90 : 0) + "\n"
        + "vllm:time_to_first_token_seconds_bucket{le=\"1.0\",model_name=\"m\"} " + (late ? 100 : 0) + "\n"
        + "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} " + (late ? 100 : 0) + "\n"
        + "vllm:time_to_first_token_seconds_sum{model_name=\"m\"} " + (late ? 25 : 0) + "\n"
        + "vllm:time_to_first_token_seconds_count{model_name=\"m\"} " + (late ? 100 : 0) + "\n";
  }

  private static ServerWindow window() {
    EngineMapper mapper = new EngineMapper();
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 64);
    w.add(100 * SECOND, 1_000 * SECOND, mapper.map(TextExpositions.parse(exposition(false))));
    w.add(110 * SECOND, 1_010 * SECOND, mapper.map(TextExpositions.parse(exposition(true))));
    return w;
  }

  @Test
  void key_isThePercentageWithItsPointWrittenUnderscore() {
    assertThat(Quantiles.key(0.5)).isEqualTo("p50");
    assertThat(Quantiles.key(0.9)).isEqualTo("p90");
    assertThat(Quantiles.key(0.95)).isEqualTo("p95");
    assertThat(Quantiles.key(0.99)).isEqualTo("p99");
    assertThat(Quantiles.key(0.999)).isEqualTo("p99_9");
    assertThat(Quantiles.key(0.9999)).isEqualTo("p99_99");
    assertThat(Quantiles.key(0.125)).isEqualTo("p12_5");
    assertThat(Quantiles.key(0.05)).isEqualTo("p5");
  }

  @Test
  void label_isTheLevelInPlainDecimal() {
    assertThat(Quantiles.label(0.5)).isEqualTo("0.5");
    assertThat(Quantiles.label(0.99)).isEqualTo("0.99");
    assertThat(Quantiles.label(0.999)).isEqualTo("0.999");
    assertThat(Quantiles.label(0.0001)).isEqualTo("0.0001");
  }

  @Test
  void of_sortsAndDropsRepeats_rejectsLevelsOutsideZeroToOne() {
    assertThat(Quantiles.of(List.of(0.99, 0.5, 0.9))).isSameAs(Quantiles.DEFAULT);
    assertThat(Quantiles.of(List.of(0.999, 0.95, 0.95)).levels()).containsExactly(0.95, 0.999);
    assertThatThrownBy(() -> Quantiles.of(List.of(0.5, 1.0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("between 0 and 1");
    assertThatThrownBy(() -> Quantiles.of(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void compute_atConfiguredQuantiles_givesEachAsPromQlWould() {
    Quantiles q = Quantiles.of(List.of(0.5, 0.95, 0.999));
    LatencyStats ttft = WindowStatistics.compute(window(), null, SloTargets.NONE, q).ttft();

    assertThat(ttft.quantiles()).isEqualTo(q);
    // Rank 50 of 100 in (0, 0.1]: 0.1 × 50/60. Rank 95 in (0.5, 1]: 0.5 + 0.5 × 5/10.
    // Rank 99.9 in (0.5, 1]: 0.5 + 0.5 × 9.9/10.
    assertThat(ttft.p50()).isCloseTo(0.1 * 50 / 60, within(1e-12));
    assertThat(ttft.value(0.95)).isCloseTo(0.75, within(1e-12));
    assertThat(ttft.value(0.999)).isCloseTo(0.5 + 0.5 * 9.9 / 10, within(1e-12));
    // Not configured: null, so the views that read p90 and p99 show N/A.
    assertThat(ttft.p90()).isNull();
    assertThat(ttft.p99()).isNull();
    assertThat(ttft.mean()).isCloseTo(0.25, within(1e-12));
    assertThat(ttft.count()).isEqualTo(100);
  }

  @Test
  void json_hasOneKeyPerQuantileBetweenMeanAndCount() throws Exception {
    LatencyStats ttft = WindowStatistics.compute(window(), null, SloTargets.NONE,
        Quantiles.of(List.of(0.5, 0.95, 0.999))).ttft();

    assertThat(JSON.writeValueAsString(ttft)).isEqualTo(
        "{\"mean\":0.25,\"p50\":" + ttft.p50() + ",\"p95\":0.75,\"p99_9\":" + ttft.value(0.999)
            + ",\"count\":100}");
  }

  @Test
  void json_ofTheDefault_isTheSeedsShape() throws Exception {
    // Byte for byte the record (mean, p50, p90, p99, count) the JSON had before the setting.
    assertThat(JSON.writeValueAsString(new LatencyStats(0.25, 0.0625, 0.5, 0.95, 100L)))
        .isEqualTo("{\"mean\":0.25,\"p50\":0.0625,\"p90\":0.5,\"p99\":0.95,\"count\":100}");
    assertThat(JSON.writeValueAsString(new LatencyStats(null, null, null, null, 0L)))
        .isEqualTo("{\"mean\":null,\"p50\":null,\"p90\":null,\"p99\":null,\"count\":0}");
    LatencyStats byDefault = WindowStatistics.compute(window(), null).ttft();
    assertThat(byDefault).isEqualTo(
        WindowStatistics.compute(window(), null, SloTargets.NONE, Quantiles.DEFAULT).ttft());
    assertThat(byDefault.p90()).isCloseTo(0.5, within(1e-12));
    assertThat(byDefault.p99()).isCloseTo(0.5 + 0.5 * 9 / 10, within(1e-12));
  }
}
