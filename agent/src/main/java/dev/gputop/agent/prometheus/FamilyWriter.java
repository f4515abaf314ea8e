package dev.gputop.agent.prometheus;

import dev.gputop.agent.prometheus.PrometheusTextWriter.Bound;
import dev.gputop.agent.prometheus.PrometheusTextWriter.Buckets;
import dev.gputop.agent.prometheus.PrometheusTextWriter.Group;
import dev.gputop.agent.prometheus.PrometheusTextWriter.LabelName;
import dev.gputop.agent.prometheus.PrometheusTextWriter.Meta;
import dev.gputop.agent.prometheus.PrometheusTextWriter.Quantiles;
import dev.gputop.agent.prometheus.PrometheusTextWriter.Text;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Logger;

/**
 * The walk over one read's families that both exposition formats share: each family's rows in the
 * Prometheus model's order, the samples with their labels, a histogram's cumulative buckets, a
 * summary's quantiles, and label values and bounds as text (cached across reads). What the formats
 * write differently is left to the two writers: the name a family's header gives, the TYPE, UNIT
 * and HELP lines and their escaping, exemplars, a histogram's {@code _count} without a sum, and
 * the end of the exposition ({@link TextFormatWriter} for text 0.0.4, {@link OpenMetricsWriter}
 * for OpenMetrics 1.0). One per response; not thread-safe.
 */
abstract class FamilyWriter {

  private static final Logger logger = Logger.getLogger(PrometheusTextWriter.class.getName());

  /** The slots a label value is looked for in, from its hash's. */
  private static final int PROBES = 4;

  private static final byte[] LE = PrometheusTextWriter.ascii("le");
  private static final byte[] QUANTILE = PrometheusTextWriter.ascii("quantile");
  static final byte[] EQ_QUOTE = PrometheusTextWriter.ascii("=\"");

  final PrometheusTextWriter.Read read;
  final TextBuffer out;
  /** Whether the Kubernetes renaming applies to this read. */
  final boolean renaming;

  private final Bound[] bounds;
  private final Text[] values;
  private final TextBuffer scratch = new TextBuffer(OutputStream.nullOutputStream(), 1024);

  FamilyWriter(PrometheusTextWriter.Read read, TextBuffer out, boolean renaming, Bound[] bounds, Text[] values) {
    this.bounds = bounds;
    this.values = values;
    this.read = read;
    this.out = out;
    this.renaming = renaming;
  }

  /** The name a counter's header gives its family, from the name its samples have ({@code _total}). */
  abstract String counterFamily(String counter);

  /** The name a gauge's header and samples have. */
  abstract String gaugeName(Meta meta);

  /** The header of an info metric, whose samples are named {@code info} ({@code _info}). */
  abstract void infoHeader(String info, Meta meta) throws IOException;

  /** TYPE, UNIT and HELP lines, in the format's order and escaping. */
  abstract void header(String name, String type, Meta meta) throws IOException;

  /** Whether HELP text escapes quotes as a label value does. */
  abstract boolean helpEscapesQuotes();

  /** Whether a histogram without a sum still has its {@code _count} sample. */
  abstract boolean countWithoutSum();

  /** After a counter's sample value: its exemplar, where the format writes one. */
  void counterExemplar(int row) throws IOException {}

  /** After a bucket's sample value: the exemplar of (lower, upper], where the format writes one. */
  void bucketExemplar(int row, double lower, double upper) throws IOException {}

  /** After the last family. */
  void end() throws IOException {}

  final void family(Group g) throws IOException {
    int[] rows = rows(g);
    if (rows.length == 0) {
      return;
    }
    String name = g.meta.prometheusName();
    switch (g.kind) {
      case COUNTER: {
        String counter = name.endsWith("_total") ? name : name + "_total";
        header(counterFamily(counter), "counter", g.meta);
        byte[] sample = PrometheusTextWriter.ascii(counter);
        for (int r : rows) {
          sampleName(sample, r);
          out.number(PrometheusTextWriter.sampleValue(read.points[r]));
          counterExemplar(r);
          out.write('\n');
        }
        break;
      }
      case GAUGE: {
        String gauge = gaugeName(g.meta);
        header(gauge, "gauge", g.meta);
        byte[] sample = PrometheusTextWriter.ascii(gauge);
        for (int r : rows) {
          sampleName(sample, r);
          out.number(PrometheusTextWriter.sampleValue(read.points[r]));
          out.write('\n');
        }
        break;
      }
      case HISTOGRAM:
        header(name, "histogram", g.meta);
        histogram(name, rows);
        break;
      case SUMMARY:
        summary(name, g.meta, rows);
        break;
      default: {
        String info = name.endsWith("_info") ? name : name + "_info";
        infoHeader(info, g.meta);
        byte[] sample = PrometheusTextWriter.ascii(info);
        for (int r : rows) {
          sampleName(sample, r);
          out.write('1');
          out.write('\n');
        }
      }
    }
  }

  /** The family's rows in the Prometheus model's order; a series a second metric repeats is left out. */
  private int[] rows(Group g) {
    int n = 0;
    for (int[] s : g.segments) {
      n += s[1] - s[0];
    }
    int[] rows = new int[n];
    int k = 0;
    for (int[] s : g.segments) {
      System.arraycopy(read.order, s[0], rows, k, s[1] - s[0]);
      k += s[1] - s[0];
    }
    if (g.segments.size() > 1) {
      Integer[] boxed = new Integer[n];
      for (int i = 0; i < n; i++) {
        boxed[i] = rows[i];
      }
      Arrays.sort(boxed, read::compare); // stable: of two equal series the first metric's comes first
      int m = 0;
      for (int i = 0; i < n; i++) {
        if (m > 0 && read.compare(rows[m - 1], boxed[i]) == 0) {
          logger.fine(() -> "/metrics: " + g.key + ": a series repeated by another scope left out");
          continue;
        }
        rows[m++] = boxed[i];
      }
      rows = Arrays.copyOf(rows, m);
    }
    return rows;
  }

  private void histogram(String name, int[] rows) throws IOException {
    byte[] bucket = PrometheusTextWriter.ascii(name + "_bucket");
    byte[] count = PrometheusTextWriter.ascii(name + "_count");
    byte[] sum = PrometheusTextWriter.ascii(name + "_sum");
    for (int r : rows) {
      Object p = read.points[r];
      long cumulative = 0;
      double total;
      if (p instanceof HistogramPointData) {
        HistogramPointData h = (HistogramPointData) p;
        List<Double> bounds = h.getBoundaries();
        List<Long> counts = h.getCounts();
        for (int i = 0; i <= bounds.size(); i++) {
          cumulative += counts.get(i);
          out.write(bucket);
          double upper = i < bounds.size() ? bounds.get(i) : Double.POSITIVE_INFINITY;
          labels(r, LE, upper);
          out.decimal(cumulative);
          bucketExemplar(r, i == 0 ? Double.NEGATIVE_INFINITY : bounds.get(i - 1), upper);
          out.write('\n');
        }
        total = h.getSum();
      } else {
        Buckets b = (Buckets) p;
        for (int i = 0; i < b.bounds().length; i++) {
          cumulative += b.counts()[i];
          out.write(bucket);
          labels(r, LE, b.bounds()[i]);
          out.decimal(cumulative);
          bucketExemplar(r, i == 0 ? Double.NEGATIVE_INFINITY : b.bounds()[i - 1], b.bounds()[i]);
          out.write('\n');
        }
        total = b.sum();
      }
      // the count of a Prometheus histogram is its buckets' sum, whatever the point says
      boolean hasSum = !Double.isNaN(total);
      if (countWithoutSum() || hasSum) {
        sampleName(count, r);
        out.decimal(cumulative);
        out.write('\n');
      }
      if (hasSum) {
        sampleName(sum, r);
        out.number(total);
        out.write('\n');
      }
    }
  }

  private void summary(String name, Meta meta, int[] rows) throws IOException {
    byte[] sample = PrometheusTextWriter.ascii(name);
    byte[] count = PrometheusTextWriter.ascii(name + "_count");
    byte[] sum = PrometheusTextWriter.ascii(name + "_sum");
    boolean headerWritten = false;
    for (int r : rows) {
      Quantiles q = (Quantiles) read.points[r];
      boolean hasCount = q.count() >= 0;
      boolean hasSum = !Double.isNaN(q.sum());
      if (q.quantiles().length == 0 && !hasCount && !hasSum) {
        continue;
      }
      if (!headerWritten) {
        header(name, "summary", meta);
        headerWritten = true;
      }
      for (int i = 0; i < q.quantiles().length; i++) {
        out.write(sample);
        labels(r, QUANTILE, q.quantiles()[i]);
        out.number(q.values()[i]);
        out.write('\n');
      }
      if (hasCount) {
        sampleName(count, r);
        out.decimal(q.count());
        out.write('\n');
      }
      if (hasSum) {
        sampleName(sum, r);
        out.number(q.sum());
        out.write('\n');
      }
    }
  }

  /** The TYPE line. */
  final void type(String name, String type) throws IOException {
    out.ascii("# TYPE ");
    out.ascii(name);
    out.write(' ');
    out.ascii(type);
    out.write('\n');
  }

  /** The HELP line, escaped as the format escapes it; none for a metric without HELP text. */
  final void help(String name, Meta meta) throws IOException {
    String help = meta.help();
    if (help == null || help.isEmpty()) {
      return;
    }
    // As the renaming stream did it on the whole text: a label name quoted in a HELP text too.
    ByteArrayOutputStream renamed = renaming && help.contains("k8s_") ? new ByteArrayOutputStream(128) : null;
    TextBuffer b = renamed != null ? new TextBuffer(renamed, 256) : out;
    b.ascii("# HELP ");
    b.ascii(name);
    b.write(' ');
    b.escaped(help, helpEscapesQuotes());
    b.write('\n');
    if (renamed != null) {
      b.drain();
      out.write(PrometheusLabels.kubernetesShortNames(renamed.toByteArray()));
    }
  }

  private void sampleName(byte[] sample, int row) throws IOException {
    out.write(sample);
    labels(row, null, 0);
  }

  /** {@code {name="value",...}} and the space before the value; nothing but the space for no labels. */
  private void labels(int row, byte[] extraName, double extraValue) throws IOException {
    int from = read.labelStart[row];
    int to = read.labelStart[row + 1];
    if (from == to && extraName == null) {
      out.write(' ');
      return;
    }
    out.write('{');
    for (int i = from; i < to; i++) {
      LabelName n = read.names[i];
      out.write(i > from ? n.next() : n.first());
      out.write(value(read.values[i]));
      out.write('"');
    }
    if (extraName != null) {
      if (to > from) {
        out.write(',');
      }
      out.write(extraName);
      out.write(EQ_QUOTE);
      out.write(bound(extraValue));
      out.write('"');
    }
    out.write('}');
    out.write(' ');
  }

  /**
   * A label value, escaped; when the renaming applies and the value ends in {@code
   * ,k8s_pod_name=} (or {@code {...}), that end renamed, as the renaming stream did it (the value's
   * closing quote completes {@code k8s_pod_name="}).
   */
  final byte[] value(String v) throws IOException {
    int mask = values.length - 1;
    int home = System.identityHashCode(v) & mask;
    int free = -1;
    for (int i = 0; i < PROBES; i++) {
      Text cached = values[(home + i) & mask];
      if (cached == null) {
        free = free < 0 ? (home + i) & mask : free;
      } else if (cached.value() == v) {
        return cached.text();
      }
    }
    // escaped into a scratch buffer (a value is at most 4 bytes per char, plus 6 for a renamed end)
    TextBuffer b = v.length() <= 250 ? scratch : new TextBuffer(OutputStream.nullOutputStream(), v.length() * 4 + 8);
    String end = null;
    if (renaming && v.endsWith("=")) {
      for (int i = 0; i < PrometheusLabels.LONG.length && end == null; i++) {
        String from = PrometheusLabels.LONG[i] + "=";
        int at = v.length() - from.length() - 1;
        if (at >= 0 && v.endsWith(from) && (v.charAt(at) == ',' || v.charAt(at) == '{')) {
          b.escaped(v.substring(0, at + 1), true);
          end = PrometheusLabels.SHORT[i] + "=";
        }
      }
    }
    if (end == null) {
      b.escaped(v, true);
    } else {
      b.ascii(end);
    }
    byte[] bytes = b.take();
    values[free >= 0 ? free : home] = new Text(v, bytes); // full: the home slot's value goes
    return bytes;
  }

  private byte[] bound(double d) {
    long bits = Double.doubleToRawLongBits(d);
    int slot = (int) ((bits * 0x9E3779B97F4A7C15L) >>> 54); // 10 bits: the bounds array's size
    Bound b = bounds[slot];
    if (b == null || b.bits() != bits) {
      b = new Bound(bits, PrometheusTextWriter.ascii(TextBuffer.numberText(d)));
      bounds[slot] = b;
    }
    return b.text();
  }
}
