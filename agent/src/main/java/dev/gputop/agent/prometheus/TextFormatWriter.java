package dev.gputop.agent.prometheus;

import dev.gputop.agent.prometheus.PrometheusTextWriter.Bound;
import dev.gputop.agent.prometheus.PrometheusTextWriter.Meta;
import dev.gputop.agent.prometheus.PrometheusTextWriter.Text;
import java.io.IOException;

/**
 * The Prometheus text format 0.0.4 as client_java's {@code PrometheusTextFormatWriter} writes it:
 * HELP (quotes not escaped) before TYPE and no UNIT, a counter's family named with its {@code
 * _total}, a gauge under its legacy name, an info metric as a gauge, no exemplars, a histogram's
 * {@code _count} even without a sum, and no end marker.
 */
final class TextFormatWriter extends FamilyWriter {

  TextFormatWriter(PrometheusTextWriter.Read read, TextBuffer out, boolean renaming, Bound[] bounds, Text[] values) {
    super(read, out, renaming, bounds, values);
  }

  @Override
  String counterFamily(String counter) {
    return counter;
  }

  /**
   * The name text 0.0.4 gives a gauge: the Prometheus model strips {@code .total} or {@code
   * .created} off the name the gauge was given, if it ends so.
   */
  @Override
  String gaugeName(Meta meta) {
    String original = meta.originalName();
    for (String suffix : new String[] {".created", ".total"}) {
      if (original.endsWith(suffix)) {
        return ExpositionNames.escaped(original.substring(0, original.length() - suffix.length()));
      }
    }
    return meta.prometheusName();
  }

  @Override
  void infoHeader(String info, Meta meta) throws IOException {
    header(info, "gauge", meta);
  }

  @Override
  void header(String name, String type, Meta meta) throws IOException {
    help(name, meta);
    type(name, type);
  }

  @Override
  boolean helpEscapesQuotes() {
    return false;
  }

  @Override
  boolean countWithoutSum() {
    return true;
  }
}
