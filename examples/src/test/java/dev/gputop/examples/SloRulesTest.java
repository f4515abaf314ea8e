package dev.gputop.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The SLO rules of examples/prometheus/slo.yml: valid for promtool, unit-tested, the SRE-workbook pairs. */
class SloRulesTest {

  static final Set<String> SLO_ALERTS = Set.of("GputopSloFastBurn", "GputopSloSlowBurn");

  @Test
  void promtoolCheckRules_passes() {
    Path promtool = Promtool.promtool();
    Examples.Run r = Examples.run(Examples.dir().resolve("prometheus"), 60, promtool.toString(), "check", "rules", "slo.yml");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS: " + rules().size() + " rules found");
  }

  @Test
  void promtoolTestRules_passes() {
    Path promtool = Promtool.promtool();
    Examples.Run r = Examples.run(Examples.dir().resolve("prometheus"), 60, promtool.toString(), "test", "rules", "slo.test.yml");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS");
  }

  @Test
  void alerts_areTheWorkbookPairs() {
    JsonNode fast = alert("GputopSloFastBurn");
    assertThat(fast.path("expr").asText()).contains("ratio_rate1h", "ratio_rate5m", "> 14.4").doesNotContain("rate6h");
    JsonNode slow = alert("GputopSloSlowBurn");
    assertThat(slow.path("expr").asText()).contains("ratio_rate6h", "ratio_rate30m", "> 6").doesNotContain("rate1h");
  }

  @Test
  void everyRecordedWindow_isDefinedForEverySlo() {
    Set<String> recorded = new TreeSet<>();
    for (JsonNode r : rules()) {
      if (r.has("record")) {
        recorded.add(r.path("record").asText() + " " + r.path("labels").path("slo").asText());
      }
    }
    for (String window : List.of("5m", "30m", "1h", "6h")) {
      for (String slo : List.of("ttft", "itl")) {
        assertThat(recorded).contains("gputop:slo_attainment:ratio_rate" + window + " " + slo);
      }
    }
  }

  @Test
  void everyAlert_hasSeveritySummaryAndAUnitTestThatFiresItAndOneThatKeepsItSilent() {
    JsonNode tests = Examples.yaml("prometheus/slo.test.yml");
    Set<String> fired = new TreeSet<>();
    Set<String> silent = new TreeSet<>();
    for (JsonNode t : tests.path("tests")) {
      for (JsonNode a : t.path("alert_rule_test")) {
        (a.path("exp_alerts").isEmpty() ? silent : fired).add(a.path("alertname").asText());
      }
    }
    Set<String> names = new TreeSet<>();
    for (JsonNode rule : rules()) {
      if (!rule.has("alert")) {
        continue;
      }
      String name = rule.path("alert").asText();
      names.add(name);
      assertThat(rule.path("labels").path("severity").asText()).as(name).isEqualTo("critical");
      assertThat(rule.path("annotations").path("summary").asText()).as(name).isNotBlank();
      assertThat(fired).as("slo.test.yml fires " + name).contains(name);
      assertThat(silent).as("slo.test.yml keeps " + name + " silent somewhere").contains(name);
    }
    assertThat(names).isEqualTo(SLO_ALERTS);
  }

  private static JsonNode alert(String name) {
    return rules().stream().filter(r -> r.path("alert").asText().equals(name)).findFirst().orElseThrow();
  }

  /** Every rule of slo.yml. */
  static List<JsonNode> rules() {
    List<JsonNode> rules = new ArrayList<>();
    for (JsonNode g : Examples.yaml("prometheus/slo.yml").path("groups")) {
      g.path("rules").forEach(rules::add);
    }
    return rules;
  }
}
