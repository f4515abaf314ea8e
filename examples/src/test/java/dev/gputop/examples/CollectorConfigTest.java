package dev.gputop.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The OpenTelemetry Collector configuration: every pipeline uses only defined components, every
 * defined component is used, and the pipelines are OTLP in, memory limiter first, batch last,
 * and out to Prometheus remote write, OTLP and debug.
 */
class CollectorConfigTest {

  private final JsonNode config = Examples.yaml("collector/otel-collector.yaml");

  @Test
  void pipelines_useOnlyDefinedComponents_andEveryComponentIsUsed() {
    JsonNode pipelines = config.path("service").path("pipelines");
    assertThat(pipelines.size()).isPositive();
    for (String kind : List.of("receivers", "processors", "exporters")) {
      Set<String> defined = names(config.path(kind));
      Set<String> used = new TreeSet<>();
      pipelines.forEach(p -> p.path(kind).forEach(n -> used.add(n.asText())));
      assertThat(defined).as(kind + " defined").isEqualTo(used);
    }
    Set<String> extensions = new TreeSet<>();
    config.path("service").path("extensions").forEach(n -> extensions.add(n.asText()));
    assertThat(names(config.path("extensions"))).isEqualTo(extensions);
  }

  @Test
  void metricsPipeline_isOtlpIn_limitedAndBatched_outToRemoteWriteAndDebug() {
    JsonNode metrics = config.path("service").path("pipelines").path("metrics");
    assertThat(list(metrics.path("receivers"))).containsExactly("otlp");
    List<String> processors = list(metrics.path("processors"));
    assertThat(processors.get(0)).isEqualTo("memory_limiter");
    assertThat(processors.get(processors.size() - 1)).isEqualTo("batch");
    assertThat(list(metrics.path("exporters"))).contains("prometheusremotewrite", "debug");
    JsonNode otlp = config.path("receivers").path("otlp").path("protocols");
    assertThat(otlp.path("grpc").path("endpoint").asText()).endsWith(":4317");
    assertThat(otlp.path("http").path("endpoint").asText()).endsWith(":4318");
  }

  @Test
  void ratioUnits_areClearedSoPushedNamesMatchTheAgentsMetricsEndpoint() {
    JsonNode statements = config.path("processors").path("transform/unit_ratio").path("metric_statements").get(0);
    assertThat(statements.path("context").asText()).isEqualTo("metric");
    assertThat(statements.path("statements").get(0).asText()).isEqualTo("set(unit, \"\") where unit == \"1\"");
  }

  @Test
  void tracesPipeline_goesOutOverOtlp() {
    JsonNode traces = config.path("service").path("pipelines").path("traces");
    assertThat(list(traces.path("exporters"))).contains("otlp/traces");
    assertThat(config.path("exporters").path("otlp/traces").path("endpoint").asText()).isNotBlank();
  }

  private static Set<String> names(JsonNode section) {
    Set<String> out = new TreeSet<>();
    section.fieldNames().forEachRemaining(out::add);
    return out;
  }

  private static List<String> list(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
