package dev.gputop.agent.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.exporter.prometheus.PrometheusMetricReader;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every row of docs/metrics.md, registered the way its receiver registers it, must appear on
 * /metrics under the Prometheus name the row gives: the doc is the contract, this keeps it true.
 */
class PrometheusNamesTest {

  private static final Pattern ROW =
      Pattern.compile("^\\| `([^`]+)`[^|]*\\| `([^`]+)`[^|]*\\| `([^`]+)` \\|(.*)\\|\\s*$");

  record Row(String otelName, String promName, String unit, String kind) {}

  @Test
  void metricsDoc_everyPrometheusNameIsWhatTheExporterWrites() throws Exception {
    List<Row> rows = rows(Files.readAllLines(Path.of("..", "docs", "metrics.md"), StandardCharsets.UTF_8));
    assertThat(rows).hasSizeGreaterThan(30);

    PrometheusMetricReader reader = PrometheusMetricReader.builder().setOtelScopeLabelsEnabled(false).build();
    try (SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build()) {
      Meter meter = provider.get("names-test");
      for (Row r : rows) {
        switch (r.kind()) {
          case "histogram":
            meter.histogramBuilder(r.otelName()).setUnit(r.unit()).build().record(1.0);
            break;
          case "counter":
            meter.counterBuilder(r.otelName()).setUnit(r.unit()).build().add(1);
            break;
          default:
            meter.gaugeBuilder(r.otelName()).setUnit(r.unit())
                .buildWithCallback(m -> m.record(1.0, Attributes.empty()));
        }
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      PrometheusTextFormatWriter.create().write(out, reader.collect());
      String exposition = out.toString(StandardCharsets.UTF_8);
      for (Row r : rows) {
        // A gauge named *_info is an info: its family is written without the suffix (its samples
        // keep it: PrometheusTextWriterTest).
        String family = r.promName().endsWith("_info")
            ? r.promName().substring(0, r.promName().length() - "_info".length()) : r.promName();
        assertThat(exposition).as(r.otelName()).contains("# TYPE " + family + " " + r.kind() + "\n");
      }
    }
  }

  /** Table rows: histograms by section or meaning, counters by their _total, the rest gauges. */
  static List<Row> rows(List<String> lines) {
    List<Row> rows = new ArrayList<>();
    boolean histogramSection = false;
    for (String line : lines) {
      if (line.startsWith("## ")) {
        histogramSection = line.contains("histograms");
      }
      Matcher m = ROW.matcher(line);
      if (!m.matches()) {
        continue;
      }
      String prom = m.group(2);
      String kind =
          histogramSection || m.group(4).trim().startsWith("histogram")
              ? "histogram"
              : prom.endsWith("_total") ? "counter" : "gauge";
      rows.add(new Row(m.group(1), prom, m.group(3), kind));
    }
    return rows;
  }
}
