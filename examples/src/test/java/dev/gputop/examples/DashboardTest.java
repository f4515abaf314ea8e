package dev.gputop.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Structural checks of the Grafana dashboard: every panel queries the provisioned datasource with
 * a non-empty expression, every variable it uses is defined and resolvable, the layout fits, and
 * the content the issue asks for is there. {@link PrometheusEndToEndIT} runs the expressions.
 */
class DashboardTest {

  static final String DASHBOARD = "grafana/gputop-inference.json";
  private final Dashboard dashboard = Dashboard.load(DASHBOARD);

  @Test
  void dashboard_hasIdentity() {
    assertThat(dashboard.root.path("uid").asText()).isEqualTo("gputop-inference");
    assertThat(dashboard.root.path("title").asText()).isNotBlank();
    assertThat(dashboard.root.path("schemaVersion").asInt()).isGreaterThanOrEqualTo(36);
    assertThat(dashboard.root.has("id")).as("no instance-specific id, so provisioning works anywhere").isFalse();
  }

  @Test
  void provisionedDatasource_hasTheUidTheDashboardUses() {
    JsonNode ds = Examples.yaml("docker-compose/grafana/provisioning/datasources/prometheus.yml").path("datasources");
    assertThat(ds).hasSize(1);
    assertThat(ds.get(0).path("uid").asText()).isEqualTo(Examples.DATASOURCE_UID);
    assertThat(ds.get(0).path("type").asText()).isEqualTo("prometheus");
  }

  @Test
  void everyDataPanel_hasTargetsWithNonEmptyExprOnTheProvisionedDatasource() {
    assertThat(dashboard.dataPanels()).hasSizeGreaterThan(15);
    for (JsonNode p : dashboard.dataPanels()) {
      String title = p.path("title").asText();
      assertThat(title).as("panel id %s has a title", p.path("id")).isNotBlank();
      assertThat(p.path("datasource").path("uid").asText()).as(title).isEqualTo(Examples.DATASOURCE_UID);
      assertThat(p.path("targets")).as(title + " targets").isNotEmpty();
      Set<String> refIds = new HashSet<>();
      for (JsonNode t : p.path("targets")) {
        assertThat(t.path("expr").asText()).as(title + " expr").isNotBlank();
        assertThat(t.path("datasource").path("uid").asText()).as(title).isEqualTo(Examples.DATASOURCE_UID);
        assertThat(refIds.add(t.path("refId").asText())).as(title + " unique refId " + t.path("refId")).isTrue();
      }
    }
  }

  @Test
  void panelIds_areUnique_andTheLayoutFitsWithoutOverlap() {
    Set<Integer> ids = new HashSet<>();
    List<int[]> boxes = new ArrayList<>();
    for (JsonNode p : dashboard.panels()) {
      assertThat(ids.add(p.path("id").asInt())).as("unique id " + p.path("id")).isTrue();
      JsonNode g = p.path("gridPos");
      int x = g.path("x").asInt(), y = g.path("y").asInt(), w = g.path("w").asInt(), h = g.path("h").asInt();
      assertThat(w).as(p.path("title").asText()).isPositive();
      assertThat(h).as(p.path("title").asText()).isPositive();
      assertThat(x + w).as(p.path("title").asText() + " fits the 24-column grid").isLessThanOrEqualTo(24);
      for (int[] b : boxes) {
        boolean overlap = x < b[0] + b[2] && b[0] < x + w && y < b[1] + b[3] && b[1] < y + h;
        assertThat(overlap).as(p.path("title").asText() + " overlaps another panel").isFalse();
      }
      boxes.add(new int[] {x, y, w, h});
    }
  }

  @Test
  void everyVariableUsed_isDefinedOrBuiltIn() {
    Set<String> defined = dashboard.variables().keySet();
    Set<String> used = new TreeSet<>();
    for (JsonNode p : dashboard.panels()) {
      used.addAll(Dashboard.variablesUsedIn(p.path("title").asText()));
      for (JsonNode t : p.path("targets")) {
        used.addAll(Dashboard.variablesUsedIn(t.path("expr").asText()));
      }
    }
    for (Dashboard.Variable v : dashboard.variables().values()) {
      used.addAll(Dashboard.variablesUsedIn(v.query()));
    }
    assertThat(used).contains("instance", "server", "__rate_interval");
    for (String name : used) {
      assertThat(defined.contains(name) || Dashboard.BUILT_INS.contains(name)).as("$" + name + " is defined").isTrue();
    }
  }

  @Test
  void variables_areLabelValuesQueriesOnTheDatasource_thatOnlyUseEarlierVariables() {
    Set<String> earlier = new HashSet<>();
    for (JsonNode v : dashboard.root.path("templating").path("list")) {
      String name = v.path("name").asText();
      assertThat(v.path("type").asText()).as(name).isEqualTo("query");
      assertThat(v.path("datasource").path("uid").asText()).as(name).isEqualTo(Examples.DATASOURCE_UID);
      Dashboard.Variable var = dashboard.variables().get(name);
      Dashboard.LabelValues lv = Dashboard.parseLabelValues(var.query());
      assertThat(lv.label()).as(name).isNotBlank();
      assertThat(v.path("definition").asText()).as(name + " definition").isEqualTo(var.query());
      for (String ref : Dashboard.variablesUsedIn(var.query())) {
        assertThat(earlier).as(name + " refers to $" + ref + ", defined before it").contains(ref);
      }
      earlier.add(name);
    }
  }

  @Test
  void tableRenames_referToQueriesThatExist() {
    for (JsonNode p : dashboard.dataPanels()) {
      Set<String> refIds = new HashSet<>();
      p.path("targets").forEach(t -> refIds.add(t.path("refId").asText()));
      for (JsonNode tr : p.path("transformations")) {
        tr.path("options").path("renameByName").fieldNames().forEachRemaining(field -> {
          if (field.startsWith("Value #")) {
            assertThat(refIds).as(p.path("title").asText() + " renames " + field).contains(field.substring(7));
          }
        });
      }
      for (JsonNode t : p.path("targets")) {
        if (p.path("type").asText().equals("table")) {
          assertThat(t.path("format").asText()).as(p.path("title") + " table query format").isEqualTo("table");
          assertThat(t.path("instant").asBoolean()).as(p.path("title") + " table query is instant").isTrue();
        }
      }
    }
  }

  @Test
  void dashboard_hasWhatTheInferenceTabShows() {
    Map<String, List<String>> byTitle = new java.util.LinkedHashMap<>();
    for (Dashboard.Query q : dashboard.queries()) {
      byTitle.computeIfAbsent(q.panelTitle(), k -> new ArrayList<>()).add(q.expr());
    }
    assertThat(byTitle).containsKeys("Worst TTFT p99", "Worst ITL p50", "Generation throughput", "Queued requests",
        "Servers", "Latency: $server", "TTFT: $server", "Requests: $server", "Generation throughput: $server",
        "KV cache: $server", "GPUs of $server", "GPUs", "GPU processes", "GPU utilization", "GPU memory", "GPU power",
        "Fleet TTFT", "Fleet ITL", "Fleet E2E latency");
    assertThat(String.join("\n", byTitle.get("Servers"))).contains("gputop_inference_server_state", "state",
        "gputop_inference_requests_waiting", "gputop_inference_kv_cache_usage_ratio", "quantile=\"0.5\"", "quantile=\"0.99\"",
        "gputop_inference_itl_seconds", "gputop_inference_e2e_seconds", "gputop_inference_request_rate_per_second",
        "gputop_inference_generation_tokens_rate_per_second");
    assertThat(String.join("\n", byTitle.get("Latency: $server"))).contains("mean_seconds", "quantile=\"0.5\"",
        "quantile=\"0.9\"", "quantile=\"0.99\"", "_observations");
    assertThat(String.join("\n", byTitle.get("GPU processes"))).contains("gputop_gpu_process_memory_usage_bytes", "server");
    for (String fleet : List.of("Fleet TTFT", "Fleet ITL", "Fleet E2E latency")) {
      assertThat(byTitle.get(fleet)).allSatisfy(e -> assertThat(e).startsWith("histogram_quantile(")
          .containsPattern("sum by \\(le\\) \\(rate\\((gen_ai_server_|gputop_inference_inter_token_latency_)")
          .contains("_bucket[$__rate_interval]"));
    }
    // ITL is per token, the semantic convention's TPOT per request: the ITL panels read ITL only.
    for (String itl : List.of("Fleet ITL")) {
      assertThat(byTitle.get(itl)).allSatisfy(e -> assertThat(e)
          .contains("gputop_inference_inter_token_latency_seconds_bucket").doesNotContain("time_per_output_token"));
    }
    String note = dashboard.panels().stream().filter(p -> p.path("type").asText().equals("text"))
        .map(p -> p.path("options").path("content").asText()).findFirst().orElse("");
    assertThat(note).contains("Percentiles do not aggregate", "sum by (le)", "histogram_quantile");
  }

  @Test
  void dashboard_hasTheSloRow() {
    Map<String, List<String>> byTitle = new java.util.LinkedHashMap<>();
    for (Dashboard.Query q : dashboard.queries()) {
      byTitle.computeIfAbsent(q.panelTitle(), k -> new ArrayList<>()).add(q.expr());
    }
    assertThat(String.join("\n", byTitle.get("SLO attainment (agents, over inference.window)")))
        .contains("gputop_inference_slo_attainment_ratio{");
    assertThat(String.join("\n", byTitle.get("SLO burn rate (agents)"))).contains("gputop_inference_slo_burn_rate{");
    // The Prometheus side reads the recording rules of examples/prometheus/slo.yml.
    List<String> recorded = new ArrayList<>();
    SloRulesTest.rules().forEach(r -> recorded.add(r.path("record").asText()));
    for (String title : List.of("Fleet SLO attainment by model (1h, Prometheus rules)", "Burn rate 1h and 6h (Prometheus rules)")) {
      assertThat(byTitle.get(title)).as(title).allSatisfy(e ->
          assertThat(recorded).anySatisfy(r -> assertThat(r).isNotEmpty().isEqualTo(e.replaceAll("\\{.*", ""))));
    }
  }

  @Test
  void dashboard_hasTheEfficiencyRow() {
    Map<String, List<String>> byTitle = new java.util.LinkedHashMap<>();
    for (Dashboard.Query q : dashboard.queries()) {
      byTitle.computeIfAbsent(q.panelTitle(), k -> new ArrayList<>()).add(q.expr());
    }
    // Energy per token from the counters (any range, over restarts), by model of single-model servers.
    assertThat(String.join("\n", byTitle.get("Energy per generated token by model")))
        .contains("increase(gputop_inference_energy_joules_total{", "increase(gputop_inference_generation_tokens_total{",
            "sum by (gen_ai_request_model)", "== 1");
    assertThat(String.join("\n", byTitle.get("Generated tokens/s per GPU")))
        .contains("gputop_inference_generation_tokens_per_gpu_rate_per_second{");
    assertThat(String.join("\n", byTitle.get("Good requests/s by SLO")))
        .contains("sum by (slo) (gputop_inference_slo_good_request_rate_per_second{");
  }
}
