package dev.gputop.agent.demo;

import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionFormatException;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.Labels;
import dev.gputop.inference.parse.MetricFamily;
import dev.gputop.inference.parse.MetricType;
import dev.gputop.inference.parse.ParserLimits;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The demo writers' output read by the agent's own {@link ExpositionParser} (the one every scrape
 * goes through), as families and samples the writer tests can look into. On top of what the parser
 * rejects it checks what a Prometheus server would also refuse and the parser tolerates: a body
 * without its final newline, a sample whose family has no TYPE, the same series twice, a histogram
 * whose buckets are not cumulative or whose {@code +Inf} bucket differs from {@code _count}. Not
 * thread-safe.
 */
final class MiniExposition {

  record Sample(String name, Map<String, String> labels, double value) {
    String label(String n) {
      return labels.get(n);
    }
  }

  record Family(String name, String type, String help, List<Sample> samples) {}

  final Map<String, Family> families = new LinkedHashMap<>();
  final List<String> order = new ArrayList<>();

  static MiniExposition parse(String text) {
    MiniExposition e = new MiniExposition();
    e.read(text);
    return e;
  }

  private void read(String text) {
    if (!text.isEmpty() && !text.endsWith("\n")) {
      throw new IllegalArgumentException("exposition must end with a newline");
    }
    Exposition exposition;
    try {
      exposition = new ExpositionParser(ParserLimits.defaults()).parse(text);
    } catch (ExpositionFormatException ex) {
      throw new IllegalArgumentException(ex.getMessage(), ex);
    }
    Set<String> seen = new HashSet<>();
    for (MetricFamily f : exposition.families()) {
      if (f.type() == MetricType.UNTYPED && !f.samples().isEmpty()) {
        throw new IllegalArgumentException("sample " + f.name() + " has no TYPE");
      }
      List<Sample> samples = new ArrayList<>(f.samples().size());
      for (dev.gputop.inference.parse.Sample s : f.samples()) {
        Map<String, String> labels = labels(s.labels());
        if (!seen.add(s.name() + labels)) {
          throw new IllegalArgumentException("duplicate series " + s.name() + labels);
        }
        samples.add(new Sample(s.name(), labels, s.value()));
      }
      Family family = new Family(f.name(), f.type().name().toLowerCase(Locale.ROOT), f.help(), samples);
      families.put(f.name(), family);
      order.add(f.name());
      if (f.type() == MetricType.HISTOGRAM) {
        checkHistogram(family);
      }
    }
  }

  private static Map<String, String> labels(Labels labels) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < labels.size(); i++) {
      out.put(labels.name(i), labels.value(i));
    }
    return out;
  }

  private static double le(String s) {
    return s.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(s);
  }

  private static void checkHistogram(Family f) {
    Map<Map<String, String>, List<Sample>> buckets = new LinkedHashMap<>();
    Map<Map<String, String>, Double> counts = new LinkedHashMap<>();
    for (Sample s : f.samples()) {
      Map<String, String> key = new TreeMap<>(s.labels());
      key.remove("le");
      if (s.name().endsWith("_bucket")) {
        buckets.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
      } else if (s.name().endsWith("_count")) {
        counts.put(key, s.value());
      }
    }
    for (Map.Entry<Map<String, String>, List<Sample>> e : buckets.entrySet()) {
      double prevLe = Double.NEGATIVE_INFINITY;
      double prev = 0;
      for (Sample b : e.getValue()) {
        double le = le(b.label("le"));
        if (!(le > prevLe) || b.value() < prev) {
          throw new IllegalArgumentException(f.name() + e.getKey() + ": buckets not increasing at le=" + b.label("le"));
        }
        prevLe = le;
        prev = b.value();
      }
      if (prevLe != Double.POSITIVE_INFINITY) {
        throw new IllegalArgumentException(f.name() + e.getKey() + ": no +Inf bucket");
      }
      if (!Double.valueOf(prev).equals(counts.get(e.getKey()))) {
        throw new IllegalArgumentException(f.name() + e.getKey() + ": +Inf bucket " + prev + " != _count");
      }
    }
  }

  Family family(String name) {
    return families.get(name);
  }

  /** The one sample with this name and these labels (as alternating name/value), or null. */
  Sample sample(String name, String... labels) {
    for (Family f : families.values()) {
      for (Sample s : f.samples()) {
        if (s.name().equals(name) && matches(s, labels)) {
          return s;
        }
      }
    }
    return null;
  }

  double value(String name, String... labels) {
    Sample s = sample(name, labels);
    if (s == null) {
      throw new AssertionError("no sample " + name + " " + String.join(",", labels));
    }
    return s.value();
  }

  /** The sum over every sample with this name whose labels include the given ones. */
  double sum(String name, String... labels) {
    double total = 0;
    for (Family f : families.values()) {
      for (Sample s : f.samples()) {
        if (s.name().equals(name) && matches(s, labels)) {
          total += s.value();
        }
      }
    }
    return total;
  }

  List<Sample> samples() {
    List<Sample> out = new ArrayList<>();
    for (Family f : families.values()) {
      out.addAll(f.samples());
    }
    return out;
  }

  private static boolean matches(Sample s, String... labels) {
    for (int i = 0; i < labels.length; i += 2) {
      if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
        return false;
      }
    }
    return true;
  }
}
