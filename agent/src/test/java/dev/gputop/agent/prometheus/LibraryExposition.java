package dev.gputop.agent.prometheus;

import io.opentelemetry.exporter.prometheus.PrometheusMetricReader;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code /metrics} the way it was written before the agent had its own writer: OpenTelemetry's
 * {@link PrometheusMetricReader} converts, Prometheus's Java text writers write, and the agent
 * adds HELP to {@code target_info} and renames the Kubernetes labels ({@link PrometheusLabels}).
 * Kept, in the tests only, as the reference {@link PrometheusTextWriter} is tested against byte for
 * byte (PrometheusTextWriterTest); the agent registers an {@link ExpositionReader}, and neither the
 * exporter nor Prometheus's writers are in its jar. Stateless.
 */
final class LibraryExposition {

  private static final PrometheusTextFormatWriter TEXT = PrometheusTextFormatWriter.create();
  private static final OpenMetricsTextFormatWriter OPENMETRICS = OpenMetricsTextFormatWriter.create();

  private LibraryExposition() {}

  /** A collected read, to be written once. */
  interface Body {
    /** Writes the exposition to {@code out}; {@code out} is not closed. */
    void write(boolean openMetrics, OutputStream out) throws IOException;
  }

  /** Collects {@code reader} now; the text is written by the result. */
  static Body collect(PrometheusMetricReader reader) {
    MetricSnapshots snapshots = withTargetInfoHelp(reader.collect());
    boolean renaming = mayNeedRenaming(snapshots);
    return (openMetrics, out) -> {
      OutputStream body = renaming ? new RenamingStream(new NotClosing(out)) : out;
      (openMetrics ? OPENMETRICS : TEXT).write(body, snapshots);
      if (renaming) {
        body.close(); // writes what the renaming holds back; out stays open
      }
    };
  }

  /**
   * Whether the text of {@code snapshots} can hold a name to rename: a label name or a HELP text
   * with {@code k8s_} in it (the renaming looks at nothing else that is written unescaped). When
   * not, /metrics is written without the renaming stream, which costs a scan of every byte.
   */
  static boolean mayNeedRenaming(MetricSnapshots snapshots) {
    for (MetricSnapshot s : snapshots) {
      String help = s.getMetadata().getHelp();
      if (help != null && help.contains("k8s_")) {
        return true;
      }
      for (DataPointSnapshot d : s.getDataPoints()) {
        Labels labels = d.getLabels();
        for (int i = 0; i < labels.size(); i++) {
          if (labels.getName(i).startsWith("k8s") || labels.getPrometheusName(i).startsWith("k8s")) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * The snapshots with a HELP text on {@code target_info}: OpenTelemetry's Prometheus reader
   * writes it without one, which {@code promtool check metrics} reports (PromtoolLintIT). Every
   * other snapshot is passed on as it is.
   */
  static MetricSnapshots withTargetInfoHelp(MetricSnapshots snapshots) {
    List<MetricSnapshot> out = new ArrayList<>(snapshots.size());
    for (MetricSnapshot s : snapshots) {
      MetricMetadata m = s.getMetadata();
      if (s instanceof InfoSnapshot && "target".equals(m.getPrometheusName())
          && (m.getHelp() == null || m.getHelp().isEmpty())) {
        out.add(new InfoSnapshot(new MetricMetadata(m.getName(), PrometheusTextWriter.TARGET_INFO_HELP),
            ((InfoSnapshot) s).getDataPoints()));
      } else {
        out.add(s);
      }
    }
    return new MetricSnapshots(out);
  }

  /** {@code out} without its close. */
  private static final class NotClosing extends OutputStream {
    private final OutputStream out;

    NotClosing(OutputStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }
  }
}
