package dev.gputop.agent.demo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict line-based reader of the Prometheus text format 0.0.4, for checking the demo writers
 * until the project's ExpositionParser is on main. It rejects what a Prometheus server would
 * reject: bad names, bad label syntax, unparsable values, TYPE after samples, samples that don't
 * belong to their family, duplicate series, non-cumulative histograms. Not thread-safe.
 */
final class MiniExposition {

  record Sample(String name, Map<String, String> labels, double value) {
    String label(String n) {
      return labels.get(n);
    }
  }

  record Family(String name, String type, String help, List<Sample> samples) {}

  private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern SAMPLE =
      Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})? (\\S+)");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"(,|$)");

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
    Map<String, String> help = new TreeMap<>();
    Map<String, String> type = new TreeMap<>();
    Map<String, List<Sample>> samples = new LinkedHashMap<>();
    java.util.Set<String> seen = new java.util.HashSet<>();
    int n = 0;
    for (String line : text.split("\n", -1)) {
      n++;
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
        String[] p = line.substring(7).split(" ", 2);
        if (!NAME.matcher(p[0]).matches() || p.length < 2) {
          throw new IllegalArgumentException("line " + n + ": bad metadata: " + line);
        }
        if (line.startsWith("# HELP ")) {
          if (help.put(p[0], p[1]) != null) {
            throw new IllegalArgumentException("line " + n + ": second HELP for " + p[0]);
          }
        } else {
          if (!p[1].matches("counter|gauge|histogram|summary|untyped")) {
            throw new IllegalArgumentException("line " + n + ": bad type " + p[1]);
          }
          if (samples.containsKey(p[0])) {
            throw new IllegalArgumentException("line " + n + ": TYPE after samples of " + p[0]);
          }
          if (type.put(p[0], p[1]) != null) {
            throw new IllegalArgumentException("line " + n + ": second TYPE for " + p[0]);
          }
        }
        addFamily(p[0]);
        continue;
      }
      if (line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches()) {
        throw new IllegalArgumentException("line " + n + ": bad sample: " + line);
      }
      Map<String, String> labels = new LinkedHashMap<>();
      if (m.group(3) != null && !m.group(3).isEmpty()) {
        Matcher l = LABEL.matcher(m.group(3));
        int pos = 0;
        while (pos < m.group(3).length()) {
          if (!l.find(pos) || l.start() != pos) {
            throw new IllegalArgumentException("line " + n + ": bad labels: " + line);
          }
          if (labels.put(l.group(1), l.group(2)) != null) {
            throw new IllegalArgumentException("line " + n + ": duplicate label: " + line);
          }
          pos = l.end();
        }
      }
      double value = value(m.group(4), n);
      String name = m.group(1);
      String family = familyOf(name, type);
      if (!seen.add(name + labels)) {
        throw new IllegalArgumentException("line " + n + ": duplicate series " + name + labels);
      }
      addFamily(family);
      samples.computeIfAbsent(family, k -> new ArrayList<>()).add(new Sample(name, labels, value));
    }
    for (String f : order) {
      families.put(f, new Family(f, type.getOrDefault(f, "untyped"), help.get(f),
          samples.getOrDefault(f, List.of())));
    }
    for (Family f : families.values()) {
      if (f.type().equals("histogram")) {
        checkHistogram(f);
      }
    }
  }

  private void addFamily(String f) {
    if (!order.contains(f)) {
      order.add(f);
    }
  }

  private static String familyOf(String name, Map<String, String> type) {
    for (String suffix : new String[] {"_bucket", "_count", "_sum"}) {
      if (name.endsWith(suffix)) {
        String base = name.substring(0, name.length() - suffix.length());
        String t = type.get(base);
        if ("histogram".equals(t) || ("summary".equals(t) && !suffix.equals("_bucket"))) {
          return base;
        }
      }
    }
    if (!type.containsKey(name)) {
      throw new IllegalArgumentException("sample " + name + " has no TYPE");
    }
    return name;
  }

  private static double value(String s, int line) {
    switch (s) {
      case "+Inf":
      case "inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      case "NaN":
      case "nan":
        return Double.NaN;
      default:
        try {
          return Double.parseDouble(s);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("line " + line + ": bad value " + s);
        }
    }
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
        double le = value(b.label("le"), 0);
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
