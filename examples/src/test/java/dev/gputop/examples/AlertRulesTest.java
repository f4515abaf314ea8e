package dev.gputop.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The alert rules of examples/prometheus: valid for promtool, unit-tested, and complete. */
class AlertRulesTest {

  static final Set<String> REQUIRED_ALERTS =
      Set.of("GputopKvCacheFull", "GputopInferenceEndpointUnhealthy", "GputopGpuFailed", "GputopAgentDown",
          "GputopGpuXid", "GputopGpuRowRemapFailed", "GputopGpuMemoryRepairPending", "GputopGpuPcieReplaysRising",
          "GputopGpuNvLinkErrors");

  @Test
  void promtoolCheckRules_passes() {
    Path promtool = Promtool.promtool();
    Examples.Run r = Examples.run(Examples.dir().resolve("prometheus"), 60, promtool.toString(), "check", "rules", "alerts.yml");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS: " + alertRules().size() + " rules found");
  }

  @Test
  void promtoolTestRules_passes() {
    Path promtool = Promtool.promtool();
    Examples.Run r = Examples.run(Examples.dir().resolve("prometheus"), 60, promtool.toString(), "test", "rules", "alerts.test.yml");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS");
  }

  @Test
  void alerts_coverTheIssue() {
    Set<String> names = new TreeSet<>();
    for (JsonNode rule : alertRules()) {
      names.add(rule.path("alert").asText());
    }
    assertThat(names).containsAll(REQUIRED_ALERTS);
  }

  @Test
  void everyAlert_hasSeveritySummaryAndAUnitTestThatFiresIt() {
    JsonNode tests = Examples.yaml("prometheus/alerts.test.yml");
    Set<String> firedInTests = new TreeSet<>();
    Set<String> silentInTests = new TreeSet<>();
    for (JsonNode t : tests.path("tests")) {
      for (JsonNode a : t.path("alert_rule_test")) {
        (a.path("exp_alerts").isEmpty() ? silentInTests : firedInTests).add(a.path("alertname").asText());
      }
    }
    for (JsonNode rule : alertRules()) {
      String name = rule.path("alert").asText();
      assertThat(rule.path("labels").path("severity").asText()).as(name + " severity").isIn("warning", "critical");
      assertThat(rule.path("annotations").path("summary").asText()).as(name + " summary").isNotBlank();
      assertThat(rule.path("annotations").path("description").asText()).as(name + " description").isNotBlank();
      assertThat(firedInTests).as("alerts.test.yml fires " + name).contains(name);
      assertThat(silentInTests).as("alerts.test.yml checks when " + name + " stays silent").contains(name);
    }
  }

  @Test
  void agentDownAlert_matchesTheScrapeJobOfEveryPrometheusConfig() {
    JsonNode agentDown = alertRules().stream().filter(r -> r.path("alert").asText().equals("GputopAgentDown"))
        .findFirst().orElseThrow();
    assertThat(agentDown.path("expr").asText()).contains("job=\"" + Examples.AGENT_JOB + "\"");
    for (String config : List.of("docker-compose/prometheus/prometheus.yml", "docker-compose/prometheus/prometheus.gpu.yml",
        "kubernetes/prometheus.yml")) {
      List<String> jobs = new ArrayList<>();
      Examples.yaml(config).path("scrape_configs").forEach(j -> jobs.add(j.path("job_name").asText()));
      assertThat(jobs).as(config).contains(Examples.AGENT_JOB);
    }
  }

  /** Every rule of alerts.yml (all groups). */
  static List<JsonNode> alertRules() {
    List<JsonNode> rules = new ArrayList<>();
    for (JsonNode g : Examples.yaml("prometheus/alerts.yml").path("groups")) {
      g.path("rules").forEach(rules::add);
    }
    return rules;
  }
}
