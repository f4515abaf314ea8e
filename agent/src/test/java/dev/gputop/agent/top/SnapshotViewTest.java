package dev.gputop.agent.top;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jline.utils.AttributedString;
import org.junit.jupiter.api.Test;

/**
 * How top reads the agent's documents into its views: from their text, as it receives them,
 * leniently. A field that is missing, null, of the wrong type or a number written as a string
 * shows as N/A, as it did when top read JSON trees, and never fails the document.
 */
class SnapshotViewTest {

  /** One server and one GPU with every field of the table set. */
  private static final String DOCUMENT = """
      {"timestamp": "2026-12-01T00:00:00Z",
       "inference": [{"name": "chat", "engine": "vllm", "servedModels": ["llama"], "state": "up",
         "running": 3, "waiting": 1, "kvCacheUsage": 0.42, "requestsPerSecond": 4.5,
         "promptTokensPerSecond": 1200, "generationTokensPerSecond": 900,
         "ttft": {"p50": 0.15, "p99": 1.84}, "itl": {"p50": 0.012}, "e2e": {"p50": 2.5, "p99": 9},
         "gpus": [0], "efficiency": {"joulesPerGeneratedToken": 3.05}}],
       "gpus": [{"index": 0, "name": "H100", "state": "ok", "utilization": 0.97, "powerWatts": 300,
         "temperatureCelsius": 61, "processes": [{"pid": 123, "server": "chat"}]}],
       "alerts": [],
       "overview": {"serving": {"worstTtftP99": 1.84, "waiting": 1}}}
      """;

  private static SnapshotView parse(String json) throws IOException {
    return SnapshotView.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  private static String screen(SnapshotView snapshot) {
    List<AttributedString> lines = TopScreen.render(new TopScreen.View(snapshot, null, 0, true, "test", null), 200);
    return String.join("\n", lines.stream().map(AttributedString::toString).toList());
  }

  @Test
  void mistypedFields_showAsNa_asMissingOnesDo_andUnknownFieldsAreIgnored() throws IOException {
    String odd = DOCUMENT
        .replace("\"running\": 3", "\"running\": \"3\"") // a number written as a string
        .replace("\"waiting\": 1,", "\"waiting\": {\"now\": 1},")
        .replace("\"kvCacheUsage\": 0.42", "\"kvCacheUsage\": [0.42]")
        .replace("\"ttft\": {\"p50\": 0.15, \"p99\": 1.84}", "\"ttft\": \"fast\"")
        .replace("\"utilization\": 0.97", "\"utilization\": true")
        .replace("\"index\": 0", "\"index\": 3000000000") // beyond an int: no key
        .replace("\"alerts\": []", "\"alerts\": \"none\", \"future\": {\"field\": [1, 2]}");
    String missing = DOCUMENT
        .replace("\"running\": 3, \"waiting\": 1, \"kvCacheUsage\": 0.42,", "")
        .replace("\"ttft\": {\"p50\": 0.15, \"p99\": 1.84}, ", "")
        .replace("\"utilization\": 0.97, ", "")
        .replace("\"index\": 0, ", "")
        .replace("\"alerts\": [],", "");
    assertThat(odd).isNotEqualTo(DOCUMENT);

    String shown = screen(parse(odd));
    assertThat(shown).isEqualTo(screen(parse(missing)));
    assertThat(shown).containsPattern("chat +vllm +llama +up +N/A +N/A +N/A +N/A +N/A +12ms +2.50s +9.00s +4.50 +1200 +900 +0 +3.05")
        .contains("GPU null H100 ok · util N/A · mem N/A / N/A · 300 W · 61 °C · pids 123 · servers chat")
        .contains("Alerts: none");
    assertThat(screen(parse(DOCUMENT))).containsPattern("chat +vllm +llama +up +3 +1 +42% +150ms +1.84s")
        .contains("GPU 0 H100 ok · util 97%");
  }

  @Test
  void serversUp_countsOnlyThoseUp_andAStateThisBuildDoesNotKnowIsShownAsItIs() throws IOException {
    StringBuilder doc = new StringBuilder("{\"inference\": [");
    String[] states = {"up", "starting", "down", "draining", "up"};
    for (int i = 0; i < states.length; i++) {
      doc.append(i == 0 ? "" : ",").append("{\"name\": \"s").append(i).append("\", \"state\": \"")
          .append(states[i]).append("\"}");
    }
    SnapshotView read = parse(doc.append("]}").toString());
    assertThat(read.inference()).extracting(SnapshotView.ServerRow::isUp)
        .containsExactly(true, false, false, false, true);
    assertThat(screen(read)).contains("Serving: 2/5 up").containsPattern("s3 +.* draining");
  }

  @Test
  void textTakesANumberAsItsText_andAContainerAsEmpty() throws IOException {
    SnapshotView.ServerRow row = parse(DOCUMENT.replace("\"engine\": \"vllm\"", "\"engine\": 7")
        .replace("\"state\": \"up\"", "\"state\": {\"up\": true}")).inference().get(0);
    assertThat(row.engine()).isEqualTo("7");
    assertThat(row.state()).isEmpty();
    assertThat(screen(new SnapshotView(null, List.of(row), null, null, null, null)))
        .containsPattern("chat +7 +llama +N/A +3 ");
  }

  @Test
  void notJson_isAnError_whileNullOrAnotherShapeIsAnEmptySnapshot() throws IOException {
    assertThatThrownBy(() -> parse("{\"inference\": [")).isInstanceOf(IOException.class);
    for (String doc : List.of("null", "[]", "5", "\"x\"", "{\"inference\": {\"chat\": {}}, \"gpus\": 1}")) {
      SnapshotView read = parse(doc);
      assertThat(read.inference()).as(doc).isEmpty();
      assertThat(screen(read)).as(doc).contains("Serving: 0/0 up · worst TTFT p99 N/A", "(no inference servers)",
          "GPUs: none");
    }
  }

  @Test
  void gpuKey_isTheHistorysKey_orNullWithoutAWholeIndex() throws IOException {
    SnapshotView read = parse("{\"gpus\": [{\"index\": 1, \"migIndex\": 2}, {\"index\": 0}, {\"index\": \"0\"},"
        + " {\"index\": 3000000000}, {\"index\": 1, \"migIndex\": {}}, {}, null]}");
    assertThat(read.gpus().stream().map(TopScreen::gpuKey).toList())
        .containsExactly("1:2", "0", null, null, "1", null, null);
  }

  @Test
  void history_pointsThatAreNotNumbersAreNull_andMissingSeriesEmpty() throws IOException {
    HistoryView read = HistoryView.parse(("{\"times\": [1000, \"2000\", 3000], \"spanSeconds\": \"600\","
        + " \"intervalSeconds\": 2, \"series\": {\"ttftP50\": [0.1, \"0.2\", {}], \"kvCacheUsage\": \"x\"}, \"gpus\": []}")
        .getBytes(StandardCharsets.UTF_8));
    assertThat(read.times()).containsExactly(1000L, null, 3000L);
    assertThat(read.spanSeconds()).isNull();
    assertThat(read.intervalSeconds()).isEqualTo(2.0);
    assertThat(read.series().ttftP50()).containsExactly(0.1, null, null);
    assertThat(read.series().kvCacheUsage()).isEmpty();
    assertThat(read.series().ttftP99()).isEmpty();
    // Three columns of a second up to 3000 ms: the one number, at 1000 ms, in the middle one.
    assertThat(TopScreen.sparkline(read.times(), read.series().ttftP50(), 3000, 3)).isEqualTo(" ▁ ");
    assertThat(HistoryView.parse("null".getBytes(StandardCharsets.UTF_8))).isEqualTo(HistoryView.EMPTY);
  }
}
