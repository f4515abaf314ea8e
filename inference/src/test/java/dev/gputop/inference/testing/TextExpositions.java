package dev.gputop.inference.testing;

import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.Labels;
import dev.gputop.inference.parse.MetricFamily;
import dev.gputop.inference.parse.MetricType;
import dev.gputop.inference.parse.Sample;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small, forgiving reader of the Prometheus text format for tests of the layers above the
 * parser: it builds {@link Exposition} values from readable text. Not the product's parser.
 */
public final class TextExpositions {

  private TextExpositions() {}

  /** Reads a classpath resource such as {@code /fixtures/vllm/v1-t0.prom}. */
  public static String resource(String path) {
    try (var in = TextExpositions.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalArgumentException("no resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Exposition file(Path path) {
    try {
      return parse(Files.readString(path));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Exposition parse(String text) {
    List<MetricFamily> families = new ArrayList<>();
    String famName = null;
    MetricType famType = MetricType.UNTYPED;
    List<Sample> famSamples = new ArrayList<>();
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("#")) {
        String[] parts = line.split("\\s+", 4);
        if (parts.length >= 4 && parts[1].equals("TYPE")) {
          if (famName != null) {
            families.add(new MetricFamily(famName, famType, null, null, famSamples));
          }
          famName = parts[2];
          famType = type(parts[3]);
          famSamples = new ArrayList<>();
        }
        continue;
      }
      Sample s = sample(line);
      if (famName == null || !s.name().startsWith(famName)) {
        if (famName != null) {
          families.add(new MetricFamily(famName, famType, null, null, famSamples));
        }
        famName = s.name();
        famType = MetricType.UNTYPED;
        famSamples = new ArrayList<>();
      }
      famSamples.add(s);
    }
    if (famName != null) {
      families.add(new MetricFamily(famName, famType, null, null, famSamples));
    }
    return new Exposition(families);
  }

  private static MetricType type(String t) {
    switch (t.trim().toLowerCase(Locale.ROOT)) {
      case "counter":
        return MetricType.COUNTER;
      case "gauge":
        return MetricType.GAUGE;
      case "histogram":
        return MetricType.HISTOGRAM;
      case "summary":
        return MetricType.SUMMARY;
      default:
        return MetricType.UNTYPED;
    }
  }

  private static Sample sample(String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
      i++;
    }
    String name = line.substring(0, i);
    List<String> nv = new ArrayList<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i++;
      while (line.charAt(i) != '}') {
        int eq = line.indexOf('=', i);
        String ln = line.substring(i, eq).trim();
        i = eq + 2; // skip ="
        StringBuilder v = new StringBuilder();
        while (line.charAt(i) != '"') {
          char c = line.charAt(i);
          if (c == '\\') {
            char n = line.charAt(++i);
            v.append(n == 'n' ? '\n' : n);
          } else {
            v.append(c);
          }
          i++;
        }
        i++;
        nv.add(ln);
        nv.add(v.toString());
        while (line.charAt(i) == ',' || line.charAt(i) == ' ') {
          i++;
        }
      }
      i++;
    }
    String[] rest = line.substring(i).trim().split("\\s+");
    return new Sample(name, Labels.of(nv.toArray(new String[0])), value(rest[0]), Sample.NO_TIMESTAMP);
  }

  private static double value(String v) {
    switch (v) {
      case "+Inf":
      case "Inf":
      case "inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
      case "-inf":
        return Double.NEGATIVE_INFINITY;
      case "NaN":
        return Double.NaN;
      default:
        return Double.parseDouble(v);
    }
  }
}
