package dev.gputop.agent.top;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.junit.jupiter.api.Test;

/** top's sparklines and N/A reasons, on documents shaped like /api/history and /api/snapshot. */
class TopScreenTest {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final long T0 = 1_700_000_000_000L;
  private static final long TEN_MINUTES = 600_000;

  /** {@code seconds} points one second apart, ending at T0 + seconds·1000; value(i) each. */
  private static JsonNode[] history(int seconds, java.util.function.IntFunction<Double> value) {
    ArrayNode times = F.arrayNode();
    ArrayNode values = F.arrayNode();
    for (int i = 1; i <= seconds; i++) {
      times.add(T0 + i * 1000L);
      Double v = value.apply(i);
      if (v == null) {
        values.addNull();
      } else {
        values.add(v);
      }
    }
    return new JsonNode[] {times, values};
  }

  @Test
  void sparkline_coversTheWholeTenMinutes_andKeepsAShortBurstVisible() {
    // A 100 ms TTFT with one 6 s burst of six seconds, nine minutes ago.
    JsonNode[] h = history(600, i -> i > 60 && i <= 66 ? 6.0 : 0.1);
    String line = TopScreen.sparkline(h[0], h[1], TEN_MINUTES, 60);
    assertThat(line).hasSize(60).doesNotContain(" ");
    // 10 s a column: the burst (seconds 61-66) falls in column 6, at the top of the scale.
    assertThat(line.charAt(6)).isEqualTo('█');
    assertThat(line.chars().filter(c -> c == '█').count()).isEqualTo(1);
    assertThat(line.replace("█", "")).matches("▁+");
  }

  @Test
  void sparkline_placesAShortHistoryAtTheRightByTime() {
    // Two minutes recorded: the last fifth of the columns; the rest is before the history began.
    JsonNode[] h = history(120, i -> 1.0 + (i % 2));
    String line = TopScreen.sparkline(h[0], h[1], TEN_MINUTES, 50);
    assertThat(line).hasSize(50);
    assertThat(line.substring(0, 40)).isBlank();
    assertThat(line.substring(40)).doesNotContain(" ");
  }

  @Test
  void sparkline_scalesBetweenTheSmallestAndLargestValue_andLeavesNaAsSpace() {
    JsonNode[] h = history(600, i -> i <= 300 ? null : i <= 450 ? 1.0 : 2.0);
    String line = TopScreen.sparkline(h[0], h[1], TEN_MINUTES, 4);
    assertThat(line).isEqualTo("  ▁█");
    JsonNode[] flat = history(600, i -> 0.5);
    assertThat(TopScreen.sparkline(flat[0], flat[1], TEN_MINUTES, 5)).isEqualTo("▁▁▁▁▁");
  }

  @Test
  void requestLengths_inWholeTokens_orTheReasonTheyAreNa() {
    var server = F.objectNode();
    var lengths = server.putObject("requestLengths");
    var prompt = lengths.putObject("prompt");
    prompt.put("mean", 400.0).put("p50", 449.6).put("p90", 875.0).put("p99", 987.5).put("count", 20);
    lengths.putNull("generation");
    server.putObject("unavailable").put("requestLengths.generation", "not_exported");
    assertThat(TopScreen.length(server, "prompt")).isEqualTo("mean 400 p50 450 p90 875 p99 988");
    assertThat(TopScreen.length(server, "generation")).isEqualTo("N/E");
  }

  @Test
  void naCells_sayTheSnapshotsReason() {
    var server = F.objectNode();
    var why = server.putObject("unavailable");
    why.put("ttft", "not_exported");
    why.put("e2e", "no_requests");
    why.put("itl", "starting");
    why.put("waiting", "down");
    assertThat(TopScreen.why(server, "ttft", TopScreen.NA)).isEqualTo("N/E");
    assertThat(TopScreen.why(server, "e2e", TopScreen.NA)).isEqualTo("IDLE");
    assertThat(TopScreen.why(server, "itl", TopScreen.NA)).isEqualTo("WAIT");
    assertThat(TopScreen.why(server, "waiting", TopScreen.NA)).isEqualTo("DOWN");
    assertThat(TopScreen.why(server, "queue", TopScreen.NA)).isEqualTo(TopScreen.NA);
    assertThat(TopScreen.why(server, "ttft", "12ms")).isEqualTo("12ms");
    assertThat(TopScreen.KEY).contains("N/E not exported").contains("IDLE").contains("WAIT").contains("DOWN").contains("≈");
  }
}
