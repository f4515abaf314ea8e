package dev.gputop.agent.prometheus;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * How /metrics names what OpenTelemetry calls a metric, a unit and an attribute: the rules of
 * OpenTelemetry's Prometheus exporter (1.66, strategy {@code UNDERSCORE_ESCAPING_WITH_SUFFIXES})
 * and of the Prometheus model it writes through (client_java 1.8, underscore escaping), written
 * down once so that {@link PrometheusTextWriter} gives the names the library gave. Every rule is
 * checked against the library by {@code PrometheusTextWriterTest}. Per metric, not per point: the
 * results are cached by the writer. Stateless.
 */
final class ExpositionNames {

  /** The suffixes a metric's base name never ends with: the writers append them. */
  private static final String[] RESERVED_SUFFIXES = {"_total", "_created", "_bucket", "_info"};

  /** OpenTelemetry units with a Prometheus name (UCUM case-sensitive codes). */
  private static final Map<String, String> PLURAL = Map.ofEntries(
      Map.entry("a", "years"), Map.entry("mo", "months"), Map.entry("wk", "weeks"),
      Map.entry("d", "days"), Map.entry("h", "hours"), Map.entry("min", "minutes"),
      Map.entry("s", "seconds"), Map.entry("ms", "milliseconds"), Map.entry("us", "microseconds"),
      Map.entry("ns", "nanoseconds"), Map.entry("By", "bytes"), Map.entry("KiBy", "kibibytes"),
      Map.entry("MiBy", "mebibytes"), Map.entry("GiBy", "gibibytes"), Map.entry("TiBy", "tebibytes"),
      Map.entry("kBy", "kilobytes"), Map.entry("MBy", "megabytes"), Map.entry("GBy", "gigabytes"),
      Map.entry("TBy", "terabytes"), Map.entry("m", "meters"), Map.entry("V", "volts"),
      Map.entry("A", "amperes"), Map.entry("J", "joules"), Map.entry("W", "watts"),
      Map.entry("g", "grams"), Map.entry("Cel", "celsius"), Map.entry("Hz", "hertz"),
      Map.entry("%", "percent"));

  /**
   * The same units after "per" ({@code m/s} is {@code meters_per_second}): each plural name
   * without its "s", except the units that have no singular there ({@code Cel}, {@code Hz},
   * {@code %}), which the exporter leaves as they are.
   */
  private static final Map<String, String> SINGULAR = singulars(Set.of("Cel", "Hz", "%"));

  private static Map<String, String> singulars(Set<String> without) {
    Map<String, String> out = new HashMap<>();
    PLURAL.forEach((unit, plural) -> {
      if (!without.contains(unit)) {
        out.put(unit, plural.substring(0, plural.length() - 1));
      }
    });
    return Map.copyOf(out);
  }

  private ExpositionNames() {}

  /**
   * The exporter's name of a metric, before the Prometheus model's own unit rule ({@link
   * #withUnit}): the instrument name with invalid characters collapsed to {@code _}, reserved
   * suffixes stripped, the Prometheus unit appended unless the name ends with it.
   *
   * @param unit the Prometheus unit ({@link #unit}), or null
   * @throws IllegalArgumentException when nothing valid is left of the name (the metric is left out)
   */
  static String metricName(String instrumentName, String unit) {
    if (instrumentName.isEmpty()) {
      throw new IllegalArgumentException("metric name is empty");
    }
    String name = stripReservedSuffixes(collapseInvalid(instrumentName));
    if (unit != null && !name.endsWith(unit)) {
      name = name + "_" + unit;
    }
    if (name.isEmpty() || onlyUnderscores(name)) {
      throw new IllegalArgumentException(
          "normalization for metric \"" + instrumentName + "\" resulted in invalid name \"" + name + "\"");
    }
    return name;
  }

  /**
   * The Prometheus model's base name of a metric: {@code name} with {@code _unit} appended unless it
   * ends with {@code _unit} or {@code .unit} (so {@code foobytes} with unit {@code bytes} becomes
   * {@code foobytes_bytes}, as the library writes it).
   */
  static String withUnit(String name, String unit) {
    if (unit != null && !name.endsWith("_" + unit) && !name.endsWith("." + unit)) {
      return name + "_" + unit;
    }
    return name;
  }

  /** [a-zA-Z0-9:] kept (no digit first), every run of anything else one {@code _}. */
  private static String collapseInvalid(String name) {
    StringBuilder out = new StringBuilder(name.length());
    boolean underscore = false;
    for (int i = 0; i < name.length(); ) {
      int c = name.codePointAt(i);
      boolean valid = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == ':'
          || (c >= '0' && c <= '9' && i > 0);
      if (valid) {
        out.appendCodePoint(c);
        underscore = false;
      } else if (!underscore) {
        out.append('_');
        underscore = true;
      }
      i += Character.charCount(c);
    }
    return out.toString();
  }

  private static String stripReservedSuffixes(String name) {
    boolean modified = true;
    while (modified) {
      modified = false;
      for (String suffix : RESERVED_SUFFIXES) {
        if (name.equals(suffix)) {
          return name.substring(1);
        }
        if (name.endsWith(suffix)) {
          name = name.substring(0, name.length() - suffix.length());
          modified = true;
        }
      }
    }
    return name;
  }

  /**
   * The Prometheus unit of an OpenTelemetry unit: null for none ({@code ""}, {@code 1}, only
   * annotations like {@code {request}}); {@code s} is {@code seconds}, {@code By/s} {@code
   * bytes_per_second}; anything else sanitized.
   */
  static String unit(String otelUnit) {
    if (otelUnit == null || otelUnit.isEmpty() || otelUnit.equals("1")) {
      return null;
    }
    if (otelUnit.contains("{")) {
      otelUnit = otelUnit.replaceAll("\\{[^}]*}", "").trim();
      if (otelUnit.isEmpty() || otelUnit.equals("/") || otelUnit.equals("1")) {
        return null;
      }
    }
    String predefined = PLURAL.get(otelUnit);
    if (predefined != null) {
      return predefined;
    }
    if (otelUnit.contains("/")) {
      String[] parts = otelUnit.split("/", 2);
      String first = PLURAL.getOrDefault(parts[0], parts[0]).trim();
      String second = SINGULAR.getOrDefault(parts[1], parts[1]).trim();
      return sanitizedUnit(first.isEmpty() ? "per_" + second : first + "_per_" + second);
    }
    return sanitizedUnit(otelUnit);
  }

  private static String sanitizedUnit(String name) {
    if (name.isEmpty()) {
      return null;
    }
    char[] chars = name.toCharArray();
    for (int i = 0; i < chars.length; i++) {
      char c = chars[i];
      if (!(c == ':' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
        chars[i] = '_';
      }
    }
    String s = new String(chars);
    int start = 0;
    int end = s.length();
    while (start < end && (s.charAt(start) == '_' || s.charAt(start) == '.')) {
      start++;
    }
    while (end > start && (s.charAt(end - 1) == '_' || s.charAt(end - 1) == '.')) {
      end--;
    }
    s = s.substring(start, end);
    if (s.isEmpty()) {
      return null;
    }
    s = stripReservedUnitSuffixes(s);
    // The Prometheus model trims a unit's name; sanitizing left no white space in it.
    return s.isEmpty() ? null : s;
  }

  private static String stripReservedUnitSuffixes(String name) {
    boolean modified = true;
    while (modified) {
      modified = false;
      for (String suffix : RESERVED_SUFFIXES) {
        if (name.equals(suffix.substring(1))) {
          return "";
        }
        if (name.endsWith(suffix)) {
          name = name.substring(0, name.length() - suffix.length());
          modified = true;
        }
      }
      while (name.endsWith("_") || name.endsWith(".")) {
        name = name.substring(0, name.length() - 1);
        modified = true;
      }
    }
    return name;
  }

  /**
   * The label name of an attribute: [a-zA-Z0-9] kept, every run of anything else one {@code _},
   * {@code key_} before a leading digit.
   *
   * @throws IllegalArgumentException for an empty name or one of only underscores (the metric is
   *     left out, as the exporter does)
   */
  static String labelName(String key) {
    if (key.isEmpty()) {
      throw new IllegalArgumentException("label name is empty");
    }
    StringBuilder out = new StringBuilder(key.length());
    boolean underscore = false;
    boolean changed = false;
    for (int i = 0; i < key.length(); ) {
      int c = key.codePointAt(i);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
        out.appendCodePoint(c);
        underscore = false;
      } else {
        changed |= c != '_' || underscore;
        if (!underscore) {
          out.append('_');
          underscore = true;
        }
      }
      i += Character.charCount(c);
    }
    String name = changed ? out.toString() : key;
    if (Character.isDigit(name.charAt(0))) {
      name = "key_" + name;
    }
    if (onlyUnderscores(name)) {
      throw new IllegalArgumentException(
          "normalization for label name \"" + key + "\" resulted in invalid name \"" + name + "\"");
    }
    return name;
  }

  /**
   * The Prometheus model's underscore escaping: a name that is not a valid legacy metric name gets
   * {@code _} for each code point outside [a-zA-Z0-9_:] (and for a leading digit).
   */
  static String escaped(String name) {
    if (name.isEmpty() || isLegacyMetricName(name)) {
      return name;
    }
    StringBuilder out = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); ) {
      int c = name.codePointAt(i);
      boolean valid = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'
          || (c >= '0' && c <= '9' && i > 0);
      out.append(valid ? (char) c : '_');
      i += Character.charCount(c);
    }
    return out.toString();
  }

  static boolean isLegacyMetricName(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean valid = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'
          || (c >= '0' && c <= '9' && i > 0);
      if (!valid) {
        return false;
      }
    }
    return true;
  }

  private static boolean onlyUnderscores(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) != '_') {
        return false;
      }
    }
    return true;
  }
}
