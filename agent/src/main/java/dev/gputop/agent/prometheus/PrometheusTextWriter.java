package dev.gputop.agent.prometheus;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.AttributeType;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.Value;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.DoubleExemplarData;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.ExemplarData;
import io.opentelemetry.sdk.metrics.data.ExponentialHistogramBuckets;
import io.opentelemetry.sdk.metrics.data.ExponentialHistogramPointData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongExemplarData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.metrics.data.SummaryPointData;
import io.opentelemetry.sdk.metrics.data.ValueAtQuantile;
import io.opentelemetry.sdk.resources.Resource;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The agent's own Prometheus exposition writer: the text of {@code /metrics}, written straight
 * from the SDK's collected {@link MetricData} into a plain byte buffer. It writes, byte for byte,
 * what OpenTelemetry's Prometheus exporter (1.66: {@code PrometheusMetricReader} with scope labels
 * off and target_info on) and Prometheus's Java text writers (client_java 1.8, text 0.0.4 and
 * OpenMetrics 1.0) wrote through the agent's listener before it, with the agent's own
 * post-processing: HELP on {@code target_info} and the Kubernetes labels under their short names
 * ({@link PrometheusLabels}). The same names, units and suffixes ({@link ExpositionNames}), the
 * same order of families (by name) and series (by label names, then values), the same escaping and
 * number formatting, and the same metrics left out (an attribute name with nothing valid in it, a
 * negative counter, invalid buckets, two series with the same labels): {@code
 * PrometheusTextWriterTest} runs both on the same SDK and compares the bytes.
 *
 * <p>Exemplars (recorded only when {@code otel.metrics.exemplar.filter} is changed, {@code
 * StandaloneSdk}) are written in OpenMetrics as the library writes them: a counter's first, a
 * bucket's newest. What it does not do the library's way: where two scopes' metrics of one name
 * would give a series twice (the library fails the whole read), the second is left out.
 *
 * <p>Why: at 500 servers a read is about 10 MB of text, and the library's path cost 167–183 ms of
 * CPU and 37 MB of garbage per read (a synchronized writer call per token, label names validated
 * again for every point, a label map and sorted arrays per point). Here per metric the names are
 * worked out once (cached, bounded), and per point only bytes are written (docs/PERFORMANCE.md,
 * "The export path"). Thread-safe: each {@link #write} has its own buffers.
 *
 * <p>This class converts and checks a read (families by name, each series' labels sorted, names
 * and values cached); the bytes are written by one writer per format over the walk they share
 * ({@link FamilyWriter}): {@link TextFormatWriter} for text 0.0.4, {@link OpenMetricsWriter} for
 * OpenMetrics 1.0.
 */
public final class PrometheusTextWriter {

  private static final Logger logger = Logger.getLogger(PrometheusTextWriter.class.getName());

  public static final String TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  public static final String OPENMETRICS_CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";

  /** HELP of {@code target_info}, as the OpenTelemetry specification words it. */
  static final String TARGET_INFO_HELP = "Target metadata";

  /** The most metric descriptions and attribute names kept converted; past it they are converted each time. */
  static final int CACHE_LIMIT = 4096;

  /** The most metric names whose being left out is logged at WARNING; the rest at FINE. */
  private static final int WARNED_LIMIT = 256;

  private static final int BUFFER = 16 * 1024;

  /** The most labels a read's arrays may hold and still be kept for the next read (4 MB each). */
  static final int KEPT_LABELS = 1 << 20;

  /** Whether the scraper asked for OpenMetrics ({@code Accept}), as the library's writer decides it. */
  public static boolean wantsOpenMetrics(String accept) {
    return accept != null && accept.contains("application/openmetrics-text");
  }

  enum Kind {
    GAUGE, COUNTER, HISTOGRAM, SUMMARY, INFO
  }

  /** What a metric's description converts to: its kind and metadata, or why it is left out. */
  private record Converted(Kind kind, Meta meta, String failure) {}

  /** The key of a metric's description in the cache. */
  private record Description(String name, String description, String unit, MetricDataType type, boolean monotonic) {}

  /**
   * A metric's metadata as the Prometheus model holds it: {@code name} the base name (unit
   * included), {@code originalName} the name it was given, HELP and unit (null for none).
   */
  record Meta(String name, String originalName, String help, String unit) {
    static Meta of(String name, String help, String unit) {
      return new Meta(ExpositionNames.withUnit(name, unit), name, help, unit);
    }

    String prometheusName() {
      return ExpositionNames.escaped(name);
    }
  }

  /** A label value and its bytes as written. */
  record Text(String value, byte[] text) {}

  /** A bound's bits and its text. */
  record Bound(long bits, byte[] text) {}

  /** A label name, converted once: the name series are sorted by, and the bytes written. */
  record LabelName(String name, byte[] first, byte[] next, boolean kubernetes) {}

  private final Map<Description, Converted> descriptions = new ConcurrentHashMap<>();
  private final Map<String, LabelName> labelNames = new ConcurrentHashMap<>();
  private final Map<String, Boolean> warned = new ConcurrentHashMap<>();
  /**
   * {@code le} and {@code quantile} values as text, by their bits, in slots of a hash: the same few
   * bucket bounds are written for every server. A slot holds one immutable entry, so reads on two
   * threads see one or the other, never half of one.
   */
  private final Bound[] bounds = new Bound[1024];
  /**
   * Label values as written, by the value string (identity), in slots of a hash in the same way:
   * the SDK keeps a series' attributes, and the same strings (a server's name, its engine, its
   * model) are in every family. Two tables, since the renaming of a value's end depends on the
   * read. At most 16,384 entries each.
   */
  private final Text[] values = new Text[16384];
  private final Text[] renamedValues = new Text[16384];
  /**
   * The arrays of the last read, for the next one: at 500 servers they hold 20,000 series and
   * 100,000 labels, several MB if grown anew for every read. Only one is kept, and none past
   * {@link #KEPT_LABELS}.
   */
  private final AtomicReference<Read> spare = new AtomicReference<>();

  /**
   * Writes {@code metrics} to {@code out} as {@code /metrics} serves them, in OpenMetrics 1.0 when
   * {@code openMetrics}, else text 0.0.4. {@code out} is not closed.
   */
  void write(Collection<MetricData> metrics, boolean openMetrics, OutputStream out) throws IOException {
    prepare(metrics).write(openMetrics, out);
  }

  /**
   * Converts and checks {@code metrics} without writing: what can fail before a response is sent
   * fails here.
   */
  Prepared prepare(Collection<MetricData> metrics) {
    Read spare = this.spare.getAndSet(null);
    Read read = spare != null ? spare : new Read();
    Map<String, Group> groups = new HashMap<>();
    Resource resource = null;
    for (MetricData m : metrics) {
      Group g = read.convert(m);
      if (g == null) {
        continue;
      }
      if (resource == null) {
        resource = m.getResource();
      }
      putOrMerge(groups, g);
    }
    if (resource != null) {
      Group target = read.targetInfo(resource);
      if (target != null) {
        putOrMerge(groups, target);
      }
    }
    List<Group> sorted = new ArrayList<>(groups.values());
    sorted.sort(Comparator.comparing(g -> g.key));
    boolean renaming = false;
    for (Group g : sorted) {
      if (g.kind == Kind.INFO && g.key.equals("target") && (g.meta.help() == null || g.meta.help().isEmpty())) {
        g.meta = new Meta(g.meta.name(), g.meta.name(), TARGET_INFO_HELP, null);
      }
      renaming |= g.kubernetes || (g.meta.help() != null && g.meta.help().contains("k8s_"));
    }
    return new Prepared(read, sorted, renaming);
  }

  /** A read converted and checked, to be written once. */
  public final class Prepared {
    private final Read read;
    private final List<Group> groups;
    /** Whether the Kubernetes renaming applies to this read: a label name or HELP text has {@code k8s_} in it. */
    private final boolean renaming;

    private Prepared(Read read, List<Group> groups, boolean renaming) {
      this.read = read;
      this.groups = groups;
      this.renaming = renaming;
    }

    /** Writes the exposition to {@code out} (not closed); once. */
    public void write(boolean openMetrics, OutputStream out) throws IOException {
      try {
        TextBuffer buf = new TextBuffer(out, BUFFER);
        Text[] cached = renaming ? renamedValues : values;
        FamilyWriter w = openMetrics
            ? new OpenMetricsWriter(read, buf, renaming, bounds, cached)
            : new TextFormatWriter(read, buf, renaming, bounds, cached);
        for (Group g : groups) {
          w.family(g);
        }
        w.end();
        buf.drain();
      } finally {
        if (read.clear()) {
          spare.set(read);
        }
      }
    }
  }

  /**
   * The exporter's merge of metrics with one Prometheus name (the same instrument in two scopes):
   * of the same kind and unit, their series are written as one family; otherwise the later one is
   * left out.
   */
  private void putOrMerge(Map<String, Group> groups, Group b) {
    Group a = groups.get(b.key);
    if (a == null) {
      groups.put(b.key, b);
      return;
    }
    Meta am = a.meta;
    Meta bm = b.meta;
    String name = am.name().equals(bm.name()) ? am.name() : am.prometheusName();
    String help = am.help() != null && am.help().equals(bm.help()) ? am.help() : null;
    if (am.unit() != null && !am.unit().equals(bm.unit())) {
      leftOut(b.key, "another metric of that name has the unit " + am.unit() + ", this one " + bm.unit());
      return;
    }
    if (a.kind != b.kind) {
      leftOut(b.key, "another metric of that name is a " + a.kind.name().toLowerCase(Locale.ROOT)
          + ", this one a " + b.kind.name().toLowerCase(Locale.ROOT));
      return;
    }
    a.meta = Meta.of(name, help, am.unit());
    a.segments.addAll(b.segments);
    a.kubernetes |= b.kubernetes;
  }

  private void leftOut(String metric, String why) {
    boolean first = warned.size() < WARNED_LIMIT && warned.putIfAbsent(metric, Boolean.TRUE) == null;
    logger.log(first ? Level.WARNING : Level.FINE,
        () -> "/metrics: " + metric + " left out: " + why + (first ? " (logged once)" : ""));
  }

  private Converted describe(MetricData m) {
    MetricDataType type = m.getType();
    boolean monotonic = type == MetricDataType.LONG_SUM ? m.getLongSumData().isMonotonic()
        : type == MetricDataType.DOUBLE_SUM && m.getDoubleSumData().isMonotonic();
    Description d = new Description(m.getName(), m.getDescription(), m.getUnit(), type, monotonic);
    Converted c = descriptions.get(d);
    if (c == null) {
      c = convert(d);
      if (descriptions.size() < CACHE_LIMIT) {
        descriptions.put(d, c);
      }
    }
    return c;
  }

  private static Converted convert(Description d) {
    Kind kind;
    switch (d.type()) {
      case LONG_GAUGE:
      case DOUBLE_GAUGE:
        kind = Kind.GAUGE;
        break;
      case LONG_SUM:
      case DOUBLE_SUM:
        kind = d.monotonic() ? Kind.COUNTER : Kind.GAUGE;
        break;
      case HISTOGRAM:
      case EXPONENTIAL_HISTOGRAM:
        kind = Kind.HISTOGRAM;
        break;
      case SUMMARY:
        kind = Kind.SUMMARY;
        break;
      default:
        return new Converted(null, null, "type " + d.type() + " is not exported");
    }
    try {
      String unit = ExpositionNames.unit(d.unit());
      String name = ExpositionNames.metricName(d.name(), unit);
      return new Converted(kind, Meta.of(name, d.description(), unit), null);
    } catch (IllegalArgumentException e) {
      return new Converted(null, null, e.getMessage());
    }
  }

  private LabelName labelName(String key) {
    LabelName n = labelNames.get(key);
    if (n == null) {
      String name = ExpositionNames.labelName(key); // IllegalArgumentException: the metric is left out
      String written = PrometheusLabels.shortName(name);
      n = new LabelName(name, ascii(written + "=\""), ascii("," + written + "=\""), name.startsWith("k8s"));
      if (labelNames.size() < CACHE_LIMIT) {
        labelNames.put(key, n);
      }
    }
    return n;
  }

  /** One family to write: its kind and metadata, and the runs of rows of each metric in it. */
  static final class Group {
    final String key;
    final Kind kind;
    Meta meta;
    /** Pairs of row indices: from (inclusive), to (exclusive), each run sorted in {@link Read#order}. */
    final List<int[]> segments = new ArrayList<>(1);
    boolean kubernetes;

    Group(Kind kind, Meta meta, int from, int to, boolean kubernetes) {
      this.key = meta.prometheusName();
      this.kind = kind;
      this.meta = meta;
      this.segments.add(new int[] {from, to});
      this.kubernetes = kubernetes;
    }
  }

  /**
   * The series of one read: every point's labels in flat arrays (label names and values from
   * {@code labelStart[row]} to {@code labelStart[row + 1]}, sorted by name), the point itself, and
   * per metric the order of its rows. Grows with the read, then is dropped with it.
   */
  final class Read implements BiConsumer<AttributeKey<?>, Object> {
    LabelName[] names = new LabelName[1024];
    String[] values = new String[1024];
    int labels;
    int[] labelStart = new int[257];
    Object[] points = new Object[256];
    /** The exemplars OpenMetrics writes with a row (a counter's first, a histogram's all), or null. */
    Object[] exemplars = new Object[256];
    int[] order = new int[256];
    int rows;
    /** Whether a label of the metric being converted starts with {@code k8s}. */
    boolean kubernetes;
    /** Whether two attributes of the point being converted gave one label name. */
    boolean collision;

    /**
     * Forgets the read (drops its references to the SDK's points and strings) so that the arrays
     * can be used again; false when they are too large to keep.
     */
    boolean clear() {
      Arrays.fill(names, 0, labels, null);
      Arrays.fill(values, 0, labels, null);
      Arrays.fill(points, 0, rows, null);
      Arrays.fill(exemplars, 0, rows, null);
      labels = 0;
      rows = 0;
      return names.length <= KEPT_LABELS;
    }

    /** The rows of {@code m}, checked and sorted, as a group; null when it is left out. */
    Group convert(MetricData m) {
      Converted c = describe(m);
      if (c.kind() == null) {
        leftOut(m.getName(), c.failure());
        return null;
      }
      Collection<? extends PointData> data;
      switch (m.getType()) {
        case LONG_GAUGE:
          data = m.getLongGaugeData().getPoints();
          break;
        case DOUBLE_GAUGE:
          data = m.getDoubleGaugeData().getPoints();
          break;
        case LONG_SUM:
          if (m.getLongSumData().getAggregationTemporality() == AggregationTemporality.DELTA) {
            return null;
          }
          data = m.getLongSumData().getPoints();
          break;
        case DOUBLE_SUM:
          if (m.getDoubleSumData().getAggregationTemporality() == AggregationTemporality.DELTA) {
            return null;
          }
          data = m.getDoubleSumData().getPoints();
          break;
        case HISTOGRAM:
          if (m.getHistogramData().getAggregationTemporality() == AggregationTemporality.DELTA) {
            return null;
          }
          data = m.getHistogramData().getPoints();
          break;
        case EXPONENTIAL_HISTOGRAM:
          if (m.getExponentialHistogramData().getAggregationTemporality() == AggregationTemporality.DELTA) {
            return null;
          }
          data = m.getExponentialHistogramData().getPoints();
          for (PointData p : data) {
            if (((ExponentialHistogramPointData) p).getScale() < -4) {
              leftOut(m.getName(), "an exponential histogram's scale is below -4, which Prometheus cannot take");
              return null;
            }
          }
          break;
        default:
          data = m.getSummaryData().getPoints();
      }
      int from = rows;
      int labelsFrom = labels;
      kubernetes = false;
      try {
        for (PointData p : data) {
          row(c.kind(), p);
        }
        sortRows(from, rows);
        for (int i = from + 1; i < rows; i++) {
          if (compare(order[i - 1], order[i]) == 0) {
            throw new IllegalArgumentException("two series with the same labels");
          }
        }
      } catch (IllegalArgumentException e) {
        rows = from;
        labels = labelsFrom;
        leftOut(m.getName(), e.getMessage());
        return null;
      }
      return new Group(c.kind(), c.meta(), from, rows, kubernetes);
    }

    /** target_info: one series, the resource's attributes. */
    Group targetInfo(Resource resource) {
      int from = rows;
      int labelsFrom = labels;
      kubernetes = false;
      try {
        row(Kind.INFO, null, resource.getAttributes());
      } catch (IllegalArgumentException e) {
        // The exporter would fail the whole read here; /metrics goes on without target_info.
        rows = from;
        labels = labelsFrom;
        leftOut("target_info", e.getMessage());
        return null;
      }
      order[from] = from;
      return new Group(Kind.INFO, Meta.of("target", null, null), from, rows, kubernetes);
    }

    private void row(Kind kind, PointData p) {
      Object point = p;
      switch (kind) {
        case COUNTER:
          double v = sampleValue(p);
          if (v < 0.0) {
            throw new IllegalArgumentException(v + ": counters cannot have a negative value");
          }
          created(p);
          break;
        case HISTOGRAM:
          created(p);
          point = p instanceof HistogramPointData ? checked((HistogramPointData) p) : exponential((ExponentialHistogramPointData) p);
          break;
        case SUMMARY:
          created(p);
          point = quantiles((SummaryPointData) p);
          break;
        default:
          break;
      }
      List<Exemplar> ex = p.getExemplars().isEmpty() || kind == Kind.SUMMARY ? null : exemplars(kind, p);
      row(kind, point, p.getAttributes());
      if (ex != null && kind != Kind.GAUGE) { // a gauge's is converted (and can fail) but not written
        exemplars[rows - 1] = ex;
      }
    }

    private void row(Kind kind, Object point, Attributes attributes) {
      if (rows == points.length) {
        points = Arrays.copyOf(points, rows * 2);
        exemplars = Arrays.copyOf(exemplars, rows * 2);
        order = Arrays.copyOf(order, rows * 2);
        labelStart = Arrays.copyOf(labelStart, rows * 2 + 1);
      }
      int start = labels;
      labelStart[rows] = start;
      collision = false;
      attributes.forEach(this);
      // sorted by label name (the attributes are sorted by key, which the conversion may reorder)
      for (int i = start + 1; i < labels; i++) {
        LabelName n = names[i];
        String value = values[i];
        int j = i - 1;
        while (j >= start && compareNames(names[j].name(), n.name()) > 0) {
          names[j + 1] = names[j];
          values[j + 1] = values[j];
          j--;
        }
        names[j + 1] = n;
        values[j + 1] = value;
        collision |= j >= start && names[j].name().equals(n.name());
      }
      if (collision) {
        merged(start, attributes);
      }
      if (kind == Kind.HISTOGRAM || kind == Kind.SUMMARY) {
        String reserved = kind == Kind.HISTOGRAM ? "le" : "quantile";
        for (int i = start; i < labels; i++) {
          if (names[i].name().equals(reserved)) {
            throw new IllegalArgumentException(reserved + " is a reserved label name");
          }
        }
      }
      points[rows] = point;
      exemplars[rows] = null;
      order[rows] = rows;
      rows++;
      labelStart[rows] = labels;
    }

    @Override
    public void accept(AttributeKey<?> key, Object value) {
      LabelName n = labelName(key.getKey());
      kubernetes |= n.kubernetes();
      if (labels == names.length) {
        names = Arrays.copyOf(names, labels * 2);
        values = Arrays.copyOf(values, labels * 2);
      }
      names[labels] = n;
      values[labels] = key.getType() == AttributeType.STRING ? (String) value : labelValue(key.getType(), value);
      labels++;
    }

    /**
     * Two attributes gave one label name: the point's labels made again by the exporter's rule
     * ({@link #joinedByLabelName}), sorted by name.
     */
    private void merged(int start, Attributes attributes) {
      Map<String, JoinedLabel> byName = joinedByLabelName(attributes);
      labels = start;
      List<String> sortedNames = new ArrayList<>(byName.keySet());
      sortedNames.sort(PrometheusTextWriter::compareNames);
      for (String name : sortedNames) {
        JoinedLabel label = byName.get(name);
        names[labels] = labelName(label.firstKey());
        values[labels] = label.value();
        labels++;
      }
    }

    private void created(PointData p) {
      if (p.getStartEpochNanos() / 1_000_000L < 0) {
        throw new IllegalArgumentException("Created timestamp cannot be negative.");
      }
    }

    /** Sorts rows {@code from} to {@code to} in {@link #order} as the Prometheus model sorts series. */
    void sortRows(int from, int to) {
      if (to - from < 2) {
        return;
      }
      int[] tmp = new int[to - from];
      mergeSort(order, from, to, tmp);
    }

    private void mergeSort(int[] a, int from, int to, int[] tmp) {
      if (to - from <= 12) {
        for (int i = from + 1; i < to; i++) {
          int x = a[i];
          int j = i - 1;
          while (j >= from && compare(a[j], x) > 0) {
            a[j + 1] = a[j];
            j--;
          }
          a[j + 1] = x;
        }
        return;
      }
      int mid = (from + to) >>> 1;
      mergeSort(a, from, mid, tmp);
      mergeSort(a, mid, to, tmp);
      if (compare(a[mid - 1], a[mid]) <= 0) {
        return;
      }
      System.arraycopy(a, from, tmp, 0, mid - from);
      int i = 0;
      int n = mid - from;
      int j = mid;
      int k = from;
      while (i < n && j < to) {
        a[k++] = compare(a[j], tmp[i]) < 0 ? a[j++] : tmp[i++];
      }
      while (i < n) {
        a[k++] = tmp[i++];
      }
    }

    /** The Prometheus model's order of label sets: the names first, then the values. */
    int compare(int a, int b) {
      int as = labelStart[a];
      int an = labelStart[a + 1] - as;
      int bs = labelStart[b];
      int bn = labelStart[b + 1] - bs;
      for (int i = 0; i < an; i++) {
        if (i >= bn) {
          return 1;
        }
        int c = compareNames(names[as + i].name(), names[bs + i].name());
        if (c != 0) {
          return c;
        }
      }
      if (bn > an) {
        return -1;
      }
      for (int i = 0; i < an; i++) {
        String x = values[as + i];
        String y = values[bs + i];
        int c = x == y ? 0 : x.compareTo(y);
        if (c != 0) {
          return c;
        }
      }
      return 0;
    }
  }

  /** An exemplar as OpenMetrics writes it: its labels sorted, value and timestamp (0 for none). */
  record Exemplar(String[] names, String[] values, double value, long timestampMillis) {}

  /** The exporter's most code points in an exemplar's label names and values. */
  private static final int EXEMPLAR_MAX_LABEL_SET_LENGTH = 128;

  /** A point's exemplars as the exporter converts them: a counter's or gauge's first, a histogram's all. */
  private static List<Exemplar> exemplars(Kind kind, PointData p) {
    List<? extends ExemplarData> all = p.getExemplars();
    List<Exemplar> out = new ArrayList<>(kind == Kind.HISTOGRAM ? all.size() : 1);
    for (ExemplarData e : kind == Kind.HISTOGRAM ? all : all.subList(0, 1)) {
      double value = e instanceof LongExemplarData ? (double) ((LongExemplarData) e).getValue()
          : ((DoubleExemplarData) e).getValue();
      out.add(exemplar(value, e));
    }
    return out;
  }

  private static Exemplar exemplar(double value, ExemplarData e) {
    SpanContext span = e.getSpanContext();
    Map<String, String> labels = exemplarLabels(e.getFilteredAttributes(), span);
    int length = 0;
    for (Map.Entry<String, String> l : labels.entrySet()) {
      length += l.getKey().codePointCount(0, l.getKey().length()) + l.getValue().codePointCount(0, l.getValue().length());
    }
    if (length > EXEMPLAR_MAX_LABEL_SET_LENGTH) {
      labels = exemplarLabels(Attributes.empty(), span); // the exporter keeps only trace_id and span_id
    }
    List<String> names = new ArrayList<>(labels.keySet());
    names.sort(PrometheusTextWriter::compareNames);
    String[] values = new String[names.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = labels.get(names.get(i));
    }
    return new Exemplar(names.toArray(new String[0]), values, value, e.getEpochNanos() / 1_000_000L);
  }

  private static Map<String, String> exemplarLabels(Attributes filtered, SpanContext span) {
    Map<String, String> labels = new LinkedHashMap<>();
    joinedByLabelName(filtered).forEach((name, label) -> labels.put(name, label.value()));
    if (span.isValid()) {
      labels.putIfAbsent("trace_id", span.getTraceId());
      labels.putIfAbsent("span_id", span.getSpanId());
    }
    return labels;
  }

  /** A label that attributes giving one label name make: the first of their keys, and the value. */
  private record JoinedLabel(String firstKey, String value) {}

  /**
   * The exporter's rule for attributes that give one label name, for a series' labels and an
   * exemplar's alike: one label whose value is theirs joined with {@code ;} in the order of their
   * keys. By label name, in the order the names first come.
   */
  private static Map<String, JoinedLabel> joinedByLabelName(Attributes attributes) {
    Map<String, List<String[]>> byName = new LinkedHashMap<>();
    attributes.forEach((k, v) -> byName.computeIfAbsent(ExpositionNames.labelName(k.getKey()), x -> new ArrayList<>())
        .add(new String[] {k.getKey(), labelValue(k.getType(), v)}));
    Map<String, JoinedLabel> joined = new LinkedHashMap<>();
    byName.forEach((name, entries) -> {
      entries.sort(Comparator.comparing(e -> e[0]));
      StringJoiner values = new StringJoiner(";");
      entries.forEach(e -> values.add(e[1]));
      joined.put(name, new JoinedLabel(entries.get(0)[0], values.toString()));
    });
    return joined;
  }

  private static int compareNames(String x, String y) {
    return x == y ? 0 : x.compareTo(y);
  }

  /** A histogram point's buckets as the Prometheus model checks them: +Inf last, sorted, no NaN. */
  record Buckets(double[] bounds, long[] counts, double sum) {}

  /**
   * The point itself when its buckets are as the Prometheus model wants them (the SDK's and the
   * servers' always are), else its buckets sorted ({@link #buckets}); either way checked.
   */
  private static Object checked(HistogramPointData p) {
    List<Double> boundaries = p.getBoundaries();
    List<Long> counts = p.getCounts();
    int n = boundaries.size() + 1;
    if (counts.size() != n) {
      throw new IllegalArgumentException("upperBounds.length == " + n + " but counts.length == " + counts.size());
    }
    double previous = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      double b = i < n - 1 ? boundaries.get(i) : Double.POSITIVE_INFINITY;
      if (Double.isNaN(b) || counts.get(i) < 0 || (i > 0 && !(previous < b))) {
        return buckets(p); // sorts, or says what is wrong
      }
      previous = b;
    }
    return p;
  }

  /** The buckets of a point whose lengths {@link #checked} found right, sorted and checked. */
  private static Buckets buckets(HistogramPointData p) {
    List<Double> boundaries = p.getBoundaries();
    List<Long> counts = p.getCounts();
    int n = boundaries.size() + 1;
    double[] b = new double[n];
    long[] c = new long[n];
    boolean sorted = true;
    for (int i = 0; i < n; i++) {
      b[i] = i < n - 1 ? boundaries.get(i) : Double.POSITIVE_INFINITY;
      c[i] = counts.get(i);
      sorted &= i == 0 || b[i - 1] < b[i];
    }
    if (!sorted) {
      sortBuckets(b, c);
    }
    for (int i = 0; i < n; i++) {
      if (Double.isNaN(b[i])) {
        throw new IllegalArgumentException("Cannot use NaN as an upper bound");
      }
      if (c[i] < 0) {
        throw new IllegalArgumentException("bucket counts cannot be negative");
      }
      if (i > 0 && b[i - 1] == b[i]) {
        throw new IllegalArgumentException("Duplicate upper bound " + b[i]);
      }
    }
    if (b[n - 1] != Double.POSITIVE_INFINITY) {
      throw new IllegalArgumentException("the buckets must end with +Inf");
    }
    return new Buckets(b, c, p.getSum());
  }

  private static void sortBuckets(double[] b, long[] c) {
    Integer[] idx = new Integer[b.length];
    for (int i = 0; i < idx.length; i++) {
      idx[i] = i;
    }
    Arrays.sort(idx, (x, y) -> Double.compare(b[x], b[y]));
    double[] b2 = b.clone();
    long[] c2 = c.clone();
    for (int i = 0; i < idx.length; i++) {
      b[i] = b2[idx[i]];
      c[i] = c2[idx[i]];
    }
  }

  /** An exponential histogram as the text formats show it: one +Inf bucket with every observation. */
  private static Buckets exponential(ExponentialHistogramPointData p) {
    if (p.getZeroCount() < 0) {
      throw new IllegalArgumentException(p.getZeroCount() + ": nativeZeroCount cannot be negative");
    }
    long total = p.getZeroCount() + nativeCount(p.getPositiveBuckets()) + nativeCount(p.getNegativeBuckets());
    return new Buckets(new double[] {Double.POSITIVE_INFINITY}, new long[] {total}, p.getSum());
  }

  private static long nativeCount(ExponentialHistogramBuckets buckets) {
    long total = 0;
    for (long c : buckets.getBucketCounts()) {
      if (c < 0) {
        throw new IllegalArgumentException("Bucket counts cannot be negative.");
      }
      total += c;
    }
    return total;
  }

  /** A summary point: quantiles sorted, count and sum (NaN for none). */
  record Quantiles(double[] quantiles, double[] values, long count, double sum) {}

  private static Quantiles quantiles(SummaryPointData p) {
    List<ValueAtQuantile> list = new ArrayList<>(p.getValues());
    for (ValueAtQuantile q : list) {
      if (q.getQuantile() < 0.0 || q.getQuantile() > 1.0) {
        throw new IllegalArgumentException(q.getQuantile() + ": illegal quantile");
      }
    }
    list.sort(Comparator.comparing(ValueAtQuantile::getQuantile));
    double[] qs = new double[list.size()];
    double[] vs = new double[list.size()];
    for (int i = 0; i < qs.length; i++) {
      qs[i] = list.get(i).getQuantile();
      vs[i] = list.get(i).getValue();
      if (i > 0 && qs[i - 1] == qs[i]) {
        throw new IllegalArgumentException("duplicate quantile " + qs[i]);
      }
    }
    return new Quantiles(qs, vs, p.getCount(), p.getSum());
  }

  /** An attribute value as a label value: JSON for arrays, as the exporter writes them. */
  static String labelValue(AttributeType type, Object value) {
    switch (type) {
      case STRING:
      case BOOLEAN:
      case LONG:
      case DOUBLE:
        return value.toString();
      case BOOLEAN_ARRAY:
      case LONG_ARRAY:
      case DOUBLE_ARRAY:
      case STRING_ARRAY:
        StringJoiner joiner = new StringJoiner(",", "[", "]");
        for (Object o : (List<?>) value) {
          joiner.add(o instanceof String ? json((String) o) : String.valueOf(o));
        }
        return joiner.toString();
      default:
        return ((Value<?>) value).asString();
    }
  }

  private static String json(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          sb.append("\\\"");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        case '\b':
          sb.append("\\b");
          break;
        case '\f':
          sb.append("\\f");
          break;
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        default:
          if (c <= 0x1F) {
            sb.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
          } else {
            sb.append(c);
          }
      }
    }
    return sb.append('"').toString();
  }

  /** A gauge's or a counter's value: its long or double. */
  static double sampleValue(Object point) {
    return point instanceof LongPointData ? (double) ((LongPointData) point).getValue()
        : ((DoublePointData) point).getValue();
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "PrometheusTextWriter{" + descriptions.size() + " metrics, " + labelNames.size() + " label names cached}";
  }
}
