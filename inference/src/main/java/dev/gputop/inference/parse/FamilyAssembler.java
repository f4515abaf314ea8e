package dev.gputop.inference.parse;

import static dev.gputop.inference.parse.CachedLine.BOUND_LE;
import static dev.gputop.inference.parse.CachedLine.BOUND_QUANTILE;
import static dev.gputop.inference.parse.CachedLine.KIND_COMMENT;
import static dev.gputop.inference.parse.CachedLine.KIND_HELP;
import static dev.gputop.inference.parse.CachedLine.KIND_TYPE;
import static dev.gputop.inference.parse.CachedLine.KIND_UNIT;
import static dev.gputop.inference.parse.CachedLine.SUFFIXES;
import static dev.gputop.inference.parse.CachedLine.SUFFIX_BUCKET;
import static dev.gputop.inference.parse.CachedLine.SUFFIX_COUNT;
import static dev.gputop.inference.parse.CachedLine.SUFFIX_CREATED;
import static dev.gputop.inference.parse.CachedLine.SUFFIX_GCOUNT;
import static dev.gputop.inference.parse.CachedLine.SUFFIX_GSUM;
import static dev.gputop.inference.parse.CachedLine.SUFFIX_SUM;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;

/**
 * Groups the lines of one parse into metric families, for the {@link ExpositionParser}: HELP,
 * TYPE and UNIT lines declare a family, each sample joins the family its name fits (the rules are
 * in {@code docs/parser.md}, "Families"), and {@link #build} makes the {@link Exposition}, with
 * each histogram and summary family's samples grouped into its typed reading.
 *
 * <p>Its scratch space (family builders by name, in order, and a pool of them for the next parse)
 * lives in the {@link ParserTables}, which the parsers of one receiver share, one parse at a time.
 */
final class FamilyAssembler {

  /** Family builders kept for reuse between parses. */
  private static final int MAX_POOLED_FAMILIES = 4_096;

  private final ParserTables tables;
  /** Counts the lines, for the errors this finds. */
  private final LineScanner scanner;
  private final HashMap<String, FamilyBuilder> byName;
  private final ArrayList<FamilyBuilder> order;
  private final ArrayList<FamilyBuilder> pool;

  // State of one parse.
  /** The family declared or joined most recently. */
  private FamilyBuilder current;
  /** The name of the last sample: the next sample is usually of the same name. */
  private String lastSampleName;
  /** The family of the last sample. */
  private FamilyBuilder lastFamily;

  FamilyAssembler(ParserTables tables, LineScanner scanner) {
    this.tables = tables;
    this.scanner = scanner;
    this.byName = tables.byName;
    this.order = tables.order;
    this.pool = tables.pool;
  }

  /** Forgets the families of the last parse, keeping their builders for the next. */
  void reset() {
    for (FamilyBuilder f : order) {
      f.clear();
    }
    order.clear();
    byName.clear();
    current = null;
    lastSampleName = null;
    lastFamily = null;
  }

  /** Takes in a comment line: a HELP, TYPE or UNIT line declares its family. */
  void comment(CachedLine e) throws ExpositionFormatException {
    if (e.kind == KIND_COMMENT) {
      return;
    }
    // A declaration may introduce the family of the next sample, even one named like the last.
    lastSampleName = null;
    switch (e.kind) {
      case KIND_HELP:
        declare(e.name).help = e.text;
        break;
      case KIND_TYPE:
        FamilyBuilder f = declare(e.name);
        if (f.typeDeclared && f.type != e.type) {
          throw scanner.error(
              "second TYPE line for '" + e.name + "' says " + typeName(e.type) + ", first said "
                  + typeName(f.type));
        }
        f.type = e.type;
        f.typeDeclared = true;
        break;
      case KIND_UNIT:
        declare(e.name).unit = e.text;
        break;
      default:
        break;
    }
  }

  /**
   * The family a sample of {@code e} belongs to, created when there is none. Small enough for
   * the client compiler to inline: the usual case is the last sample's family.
   */
  FamilyBuilder familyOf(CachedLine e) throws ExpositionFormatException {
    return e.name == lastSampleName ? lastFamily : find(e);
  }

  private FamilyBuilder find(CachedLine e) throws ExpositionFormatException {
    String name = e.name;
    FamilyBuilder f = current;
    if (f == null || !fits(f, e)) {
      f = byName.get(name);
      if (f != null && !fitsSuffix(f.type, "")) {
        throw scanner.error(
            "sample '" + name + "' has no suffix, which a " + typeName(f.type) + " needs");
      }
      if (f == null) {
        f = familyBySuffix(name);
      }
      if (f == null) {
        f = newFamily(name);
      }
    }
    lastSampleName = name;
    lastFamily = f;
    current = f;
    return f;
  }

  private FamilyBuilder familyBySuffix(String name) {
    for (String suffix : SUFFIXES) {
      if (name.endsWith(suffix)) {
        FamilyBuilder f = byName.get(name.substring(0, name.length() - suffix.length()));
        if (f != null && fitsSuffix(f.type, suffix)) {
          return f;
        }
      }
    }
    return null;
  }

  /**
   * {@link #fits(FamilyBuilder, String)}, first by identity: family and sample names come from
   * one string table, so a sample of the family usually has the family's name as its {@link
   * CachedLine#text} (or its name), and its suffix is known.
   */
  private static boolean fits(FamilyBuilder f, CachedLine e) {
    if (f.name == e.text) {
      return fitsSuffix(f.type, SUFFIXES[e.suffix - 1]);
    }
    if (f.name == e.name) {
      return fitsSuffix(f.type, "");
    }
    return fits(f, e.name);
  }

  private static boolean fits(FamilyBuilder f, String name) {
    String base = f.name;
    if (!name.startsWith(base)) {
      return false;
    }
    int n = base.length();
    if (name.length() == n) {
      return fitsSuffix(f.type, "");
    }
    for (String suffix : SUFFIXES) {
      if (name.length() == n + suffix.length() && name.startsWith(suffix, n)) {
        return fitsSuffix(f.type, suffix);
      }
    }
    return false;
  }

  private static boolean fitsSuffix(MetricType type, String suffix) {
    switch (type) {
      case COUNTER:
        return suffix.isEmpty() || suffix.equals("_total") || suffix.equals("_created");
      case HISTOGRAM:
        return suffix.equals("_bucket")
            || suffix.equals("_sum")
            || suffix.equals("_count")
            || suffix.equals("_created");
      case GAUGE_HISTOGRAM:
        return suffix.equals("_bucket") || suffix.equals("_gsum") || suffix.equals("_gcount");
      case SUMMARY:
        return suffix.isEmpty()
            || suffix.equals("_sum")
            || suffix.equals("_count")
            || suffix.equals("_created");
      case INFO:
        return suffix.isEmpty() || suffix.equals("_info");
      default:
        return suffix.isEmpty();
    }
  }

  private static String typeName(MetricType type) {
    switch (type) {
      case GAUGE_HISTOGRAM:
        return "gaugehistogram";
      case UNTYPED:
        return "untyped";
      default:
        return type.name().toLowerCase(Locale.ROOT);
    }
  }

  private FamilyBuilder declare(String name) {
    FamilyBuilder f = byName.get(name);
    if (f == null) {
      f = newFamily(name);
    }
    current = f;
    return f;
  }

  private FamilyBuilder newFamily(String name) {
    int k = order.size();
    FamilyBuilder f;
    if (k < pool.size()) {
      f = pool.get(k);
    } else {
      f = new FamilyBuilder();
      if (pool.size() < MAX_POOLED_FAMILIES) {
        pool.add(f);
      }
    }
    f.name = name;
    f.type = MetricType.UNTYPED;
    f.typeDeclared = false;
    f.help = null;
    f.unit = null;
    order.add(f);
    byName.put(name, f);
    return f;
  }

  // ---------------------------------------------------------------- building

  /** The families of this parse, in the order they were first declared or seen. */
  Exposition build() {
    MetricFamily[] built = new MetricFamily[order.size()];
    for (int k = 0, n = order.size(); k < n; k++) {
      FamilyBuilder f = order.get(k);
      List<Histogram> histograms = List.of();
      List<Summary> summaries = List.of();
      if (f.size > 0) {
        switch (f.type) {
          case HISTOGRAM:
          case GAUGE_HISTOGRAM:
            histograms = histograms(f, f.type == MetricType.GAUGE_HISTOGRAM);
            break;
          case SUMMARY:
            summaries = summaries(f);
            break;
          case UNTYPED:
            if (f.name.endsWith("_bucket") && hasBucketBounds(f)) {
              histograms = fragment(f);
            }
            break;
          default:
            break;
        }
      }
      built[k] = new MetricFamily(f.name, f.type, f.help, f.unit, f.samplesList(), histograms, summaries);
    }
    return new Exposition(FrozenList.wrap(built));
  }

  /** Groups a histogram family's samples into one {@link Histogram} per label set. */
  private List<Histogram> histograms(FamilyBuilder f, boolean gauge) {
    CachedLine[] entries = f.entries;
    double[] values = f.values;
    for (int i = 0, n = f.size; i < n; i++) {
      CachedLine e = entries[i];
      double v = values[i];
      switch (e.suffix) {
        case SUFFIX_BUCKET:
          // PromQL skips a bucket without le or whose le does not parse (BadBucketLabel).
          double bound = e.bound;
          if (e.boundLabel == BOUND_LE && bound == bound) {
            // Buckets of one series come together, with one interned label set.
            GroupBuilder g = f.lastGroup;
            if (g == null || g.labels != e.group) {
              g = f.group(e.group, e);
            }
            g.add(bound, v);
          }
          break;
        case SUFFIX_SUM:
        case SUFFIX_GSUM:
          if ((e.suffix == SUFFIX_GSUM) == gauge) {
            f.group(e.group, e).sum = v;
          }
          break;
        case SUFFIX_COUNT:
        case SUFFIX_GCOUNT:
          if ((e.suffix == SUFFIX_GCOUNT) == gauge) {
            f.group(e.group, e).count = v;
          }
          break;
        case SUFFIX_CREATED:
          f.group(e.group, e).created = v;
          break;
        default:
          break;
      }
    }
    return emitHistograms(f);
  }

  private static boolean hasBucketBounds(FamilyBuilder f) {
    for (int i = 0; i < f.size; i++) {
      if (f.entries[i].boundLabel == BOUND_LE) {
        return true;
      }
    }
    return false;
  }

  /**
   * An undeclared {@code x_bucket} family (an excerpt without TYPE lines): its buckets, with the
   * {@code _sum} and {@code _count} of the undeclared {@code x_sum} and {@code x_count}.
   */
  private List<Histogram> fragment(FamilyBuilder f) {
    CachedLine[] entries = f.entries;
    for (int i = 0, n = f.size; i < n; i++) {
      CachedLine e = entries[i];
      if (e.boundLabel == BOUND_LE && !Double.isNaN(e.bound)) {
        f.group(e.group, e).add(e.bound, f.values[i]);
      }
    }
    String base = f.name.substring(0, f.name.length() - "_bucket".length());
    FamilyBuilder sums = byName.get(base + "_sum");
    if (sums != null && sums.type == MetricType.UNTYPED) {
      for (int i = 0; i < sums.size; i++) {
        f.group(sums.entries[i].group, sums.entries[i]).sum = sums.values[i];
      }
    }
    FamilyBuilder counts = byName.get(base + "_count");
    if (counts != null && counts.type == MetricType.UNTYPED) {
      for (int i = 0; i < counts.size; i++) {
        f.group(counts.entries[i].group, counts.entries[i]).count = counts.values[i];
      }
    }
    return emitHistograms(f);
  }

  private List<Histogram> emitHistograms(FamilyBuilder f) {
    if (f.groupCount == 0) {
      return List.of();
    }
    Histogram[] out = new Histogram[f.groupCount];
    for (int i = 0; i < f.groupCount; i++) {
      GroupBuilder g = f.groups.get(i);
      g.sort();
      out[i] = new Histogram(g.labels, g.boundsCopy(tables), g.valuesCopy(), g.sum, g.count, g.created);
    }
    return listOf(out);
  }

  /** Groups a summary family's samples into one {@link Summary} per label set. */
  private List<Summary> summaries(FamilyBuilder f) {
    CachedLine[] entries = f.entries;
    double[] values = f.values;
    for (int i = 0, n = f.size; i < n; i++) {
      CachedLine e = entries[i];
      double v = values[i];
      if (e.name.length() == f.name.length()) {
        if (e.boundLabel == BOUND_QUANTILE && !Double.isNaN(e.bound)) {
          f.group(e.group, e).add(e.bound, v);
        }
      } else if (e.suffix == SUFFIX_SUM) {
        f.group(e.group, e).sum = v;
      } else if (e.suffix == SUFFIX_COUNT) {
        f.group(e.group, e).count = v;
      } else if (e.suffix == SUFFIX_CREATED) {
        f.group(e.group, e).created = v;
      }
    }
    if (f.groupCount == 0) {
      return List.of();
    }
    Summary[] out = new Summary[f.groupCount];
    for (int i = 0; i < f.groupCount; i++) {
      GroupBuilder g = f.groups.get(i);
      g.sort();
      out[i] = new Summary(g.labels, g.boundsCopy(tables), g.valuesCopy(), g.sum, g.count, g.created);
    }
    return listOf(out);
  }

  /** An immutable list of these values, without copying the array for one or two. */
  private static <T> List<T> listOf(T[] a) {
    switch (a.length) {
      case 1:
        return List.of(a[0]);
      case 2:
        return List.of(a[0], a[1]);
      default:
        return List.of(a);
    }
  }
}
