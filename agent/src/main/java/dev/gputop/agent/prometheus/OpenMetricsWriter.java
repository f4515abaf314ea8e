package dev.gputop.agent.prometheus;

import dev.gputop.agent.prometheus.PrometheusTextWriter.Bound;
import dev.gputop.agent.prometheus.PrometheusTextWriter.Exemplar;
import dev.gputop.agent.prometheus.PrometheusTextWriter.Meta;
import dev.gputop.agent.prometheus.PrometheusTextWriter.Text;
import java.io.IOException;
import java.util.List;

/**
 * OpenMetrics 1.0 as client_java's {@code OpenMetricsTextFormatWriter} writes it: TYPE, UNIT,
 * then HELP (quotes escaped), a counter's family named without its {@code _total} and an info
 * metric's without its {@code _info}, exemplars after a counter's sample (its first) and a
 * bucket's (the newest in the bucket), a histogram's {@code _count} only with a sum, and {@code #
 * EOF} at the end.
 */
final class OpenMetricsWriter extends FamilyWriter {

  OpenMetricsWriter(PrometheusTextWriter.Read read, TextBuffer out, boolean renaming, Bound[] bounds, Text[] values) {
    super(read, out, renaming, bounds, values);
  }

  @Override
  String counterFamily(String counter) {
    return counter.substring(0, counter.length() - "_total".length());
  }

  @Override
  String gaugeName(Meta meta) {
    return meta.prometheusName();
  }

  @Override
  void infoHeader(String info, Meta meta) throws IOException {
    header(info.substring(0, info.length() - "_info".length()), "info", meta);
  }

  @Override
  void header(String name, String type, Meta meta) throws IOException {
    type(name, type);
    if (meta.unit() != null) {
      out.ascii("# UNIT ");
      out.ascii(name);
      out.write(' ');
      out.escaped(meta.unit(), true);
      out.write('\n');
    }
    help(name, meta);
  }

  @Override
  boolean helpEscapesQuotes() {
    return true;
  }

  @Override
  boolean countWithoutSum() {
    return false;
  }

  @Override
  void counterExemplar(int row) throws IOException {
    if (read.exemplars[row] != null) {
      exemplar(((List<?>) read.exemplars[row]).get(0));
    }
  }

  /** The exemplar of a bucket, the newest of those in (lower, upper], as the library picks it. */
  @Override
  void bucketExemplar(int row, double lower, double upper) throws IOException {
    if (read.exemplars[row] == null) {
      return;
    }
    Exemplar pick = null;
    for (Object o : (List<?>) read.exemplars[row]) {
      Exemplar e = (Exemplar) o;
      if (e.value() > lower && e.value() <= upper) {
        if (pick == null || (pick.timestampMillis() != 0 && e.timestampMillis() != 0
            && e.timestampMillis() > pick.timestampMillis())) {
          pick = e;
        }
      }
    }
    if (pick != null) {
      exemplar(pick);
    }
  }

  @Override
  void end() throws IOException {
    out.ascii("# EOF\n");
  }

  /** {@code  # {labels} value timestamp} after a sample. */
  private void exemplar(Object o) throws IOException {
    Exemplar e = (Exemplar) o;
    out.ascii(" # {");
    for (int i = 0; i < e.names().length; i++) {
      if (i > 0) {
        out.write(',');
      }
      out.ascii(renaming ? PrometheusLabels.shortName(e.names()[i]) : e.names()[i]);
      out.write(EQ_QUOTE);
      out.write(value(e.values()[i]));
      out.write('"');
    }
    out.ascii("} ");
    out.number(e.value());
    long ts = e.timestampMillis();
    if (ts != 0) {
      out.write(' ');
      out.decimal(ts / 1000);
      out.write('.');
      long ms = ts % 1000;
      if (ms < 100) {
        out.write('0');
      }
      if (ms < 10) {
        out.write('0');
      }
      out.decimal(ms);
    }
  }
}
