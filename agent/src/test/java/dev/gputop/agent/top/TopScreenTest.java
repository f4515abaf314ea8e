package dev.gputop.agent.top;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** top's sparklines and N/A reasons, on documents shaped like /api/history and /api/snapshot. */
class TopScreenTest {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final long T0 = 1_700_000_000_000L;
  private static final long TEN_MINUTES = 600_000;

  /**
   * {@code seconds} points one second apart, ending at T0 + seconds·1000; value(i) each: an
   * /api/history document with a TTFT p50 series, read from its text as top reads it.
   */
  private static HistoryView history(int seconds, java.util.function.IntFunction<Double> value) throws IOException {
    ObjectNode doc = F.objectNode();
    ArrayNode times = doc.putArray("times");
    ArrayNode values = doc.putObject("series").putArray("ttftP50");
    for (int i = 1; i <= seconds; i++) {
      times.add(T0 + i * 1000L);
      Double v = value.apply(i);
      if (v == null) {
        values.addNull();
      } else {
        values.add(v);
      }
    }
    return HistoryView.parse(doc.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** The TTFT p50 line of {@code h}. */
  private static String sparkline(HistoryView h, long spanMillis, int width) {
    return TopScreen.sparkline(h.times(), h.series().ttftP50(), spanMillis, width);
  }

  @Test
  void sparkline_coversTheWholeTenMinutes_andKeepsAShortBurstVisible() throws IOException {
    // A 100 ms TTFT with one 6 s burst of six seconds, nine minutes ago.
    HistoryView h = history(600, i -> i > 60 && i <= 66 ? 6.0 : 0.1);
    String line = sparkline(h, TEN_MINUTES, 60);
    assertThat(line).hasSize(60).doesNotContain(" ");
    // 10 s a column: the burst (seconds 61-66) falls in column 6, at the top of the scale.
    assertThat(line.charAt(6)).isEqualTo('█');
    assertThat(line.chars().filter(c -> c == '█').count()).isEqualTo(1);
    assertThat(line.replace("█", "")).matches("▁+");
  }

  @Test
  void sparkline_placesAShortHistoryAtTheRightByTime() throws IOException {
    // Two minutes recorded: the last fifth of the columns; the rest is before the history began.
    HistoryView h = history(120, i -> 1.0 + (i % 2));
    String line = sparkline(h, TEN_MINUTES, 50);
    assertThat(line).hasSize(50);
    assertThat(line.substring(0, 40)).isBlank();
    assertThat(line.substring(40)).doesNotContain(" ");
  }

  @Test
  void sparkline_scalesBetweenTheSmallestAndLargestValue_andLeavesNaAsSpace() throws IOException {
    HistoryView h = history(600, i -> i <= 300 ? null : i <= 450 ? 1.0 : 2.0);
    String line = sparkline(h, TEN_MINUTES, 4);
    assertThat(line).isEqualTo("  ▁█");
    HistoryView flat = history(600, i -> 0.5);
    assertThat(sparkline(flat, TEN_MINUTES, 5)).isEqualTo("▁▁▁▁▁");
  }

  @Test
  void requestLengths_inWholeTokens_orTheReasonTheyAreNa() throws IOException {
    ObjectNode doc = F.objectNode();
    var server = doc.putArray("inference").addObject();
    var lengths = server.putObject("requestLengths");
    var prompt = lengths.putObject("prompt");
    prompt.put("mean", 400.0).put("p50", 449.6).put("p90", 875.0).put("p99", 987.5).put("count", 20);
    lengths.putNull("generation");
    server.putObject("unavailable").put("requestLengths.generation", "not_exported");
    SnapshotView.ServerRow read = SnapshotView.parse(doc.toString().getBytes(StandardCharsets.UTF_8))
        .inference().get(0);
    assertThat(TopScreen.length(read.requestLengths().prompt(), read.unavailable().requestLengthsPrompt()))
        .isEqualTo("mean 400 p50 450 p90 875 p99 988");
    assertThat(TopScreen.length(read.requestLengths().generation(), read.unavailable().requestLengthsGeneration()))
        .isEqualTo("N/E");
  }

  @Test
  void naCells_sayTheSnapshotsReason() throws IOException {
    ObjectNode doc = F.objectNode();
    var server = doc.putArray("inference").addObject();
    var why = server.putObject("unavailable");
    why.put("ttft", "not_exported");
    why.put("e2e", "no_requests");
    why.put("itl", "starting");
    why.put("waiting", "down");
    SnapshotView.Unavailable read = SnapshotView.parse(doc.toString().getBytes(StandardCharsets.UTF_8))
        .inference().get(0).unavailable();
    assertThat(TopScreen.why(read.ttft(), TopScreen.NA)).isEqualTo("N/E");
    assertThat(TopScreen.why(read.e2e(), TopScreen.NA)).isEqualTo("IDLE");
    assertThat(TopScreen.why(read.itl(), TopScreen.NA)).isEqualTo("WAIT");
    assertThat(TopScreen.why(read.waiting(), TopScreen.NA)).isEqualTo("DOWN");
    assertThat(TopScreen.why(read.queue(), TopScreen.NA)).isEqualTo(TopScreen.NA);
    assertThat(TopScreen.why(read.ttft(), "12ms")).isEqualTo("12ms");
    assertThat(TopScreen.KEY).contains("N/E not exported").contains("IDLE").contains("WAIT").contains("DOWN").contains("≈");
  }
}
