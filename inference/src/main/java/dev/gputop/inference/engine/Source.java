package dev.gputop.inference.engine;

import dev.gputop.inference.parse.Labels;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One metric that can carry a concept, by its name on the wire after prefix normalization, as a
 * profile file declares it (docs/engines/README.md).
 *
 * <ul>
 *   <li>{@link Form#GAUGE}: samples named exactly {@code name};
 *   <li>{@link Form#COUNTER}: samples named {@code name} or {@code name + "_total"} (counters
 *       with and without the suffix, as TGI writes them);
 *   <li>{@link Form#SAMPLE}: samples named exactly {@code name}, read as a counter (for example
 *       a histogram's {@code _sum} or {@code _count} used as a token or request counter);
 *   <li>{@link Form#HISTOGRAM}: the histogram family {@code name}, as the parser grouped it
 *       ({@code name_bucket}, {@code name_sum}, {@code name_count});
 *   <li>{@link Form#SUM}: the series of every one of {@link #parts()} together, so that the
 *       concept is their sum (llama.cpp's prompt tokens = {@code prompt_tokens} + {@code
 *       prompt_tokens_cached}); present when any part is.
 * </ul>
 *
 * Immutable.
 *
 * @param name the base name, with the engine's canonical prefix (e.g. {@code vllm:}); for a sum,
 *     the parts' names joined with {@code +}
 * @param form how the samples are named
 * @param where labels the samples must carry, each with one of the values listed (empty: all
 *     samples); an empty value also matches a sample without the label, as in Prometheus
 * @param scale the factor that turns the source's unit into the concept's (1: none; {@code
 *     1e-6} for Triton's microsecond counters); for a histogram it scales the bounds and the
 *     sum, never the counts
 * @param parts the sources summed by a {@link Form#SUM}; empty otherwise
 * @param history when the engine added, deprecated and removed the name (documentation, shown
 *     by {@code gputop-agent engines})
 */
public record Source(
    String name,
    Form form,
    Map<String, List<String>> where,
    double scale,
    List<Source> parts,
    History history) {

  /** How a source's samples are named on the wire. */
  public enum Form {
    GAUGE,
    COUNTER,
    SAMPLE,
    HISTOGRAM,
    SUM;

    /** The key of this form in a profile file. */
    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * The versions of a metric name, as the engine's source history tells them; each may be null.
   *
   * @param added the first version that exports the name
   * @param deprecated the version that deprecated it (often: renamed, both written for a while)
   * @param removed the first version that no longer exports it
   * @param note free text, e.g. what it was renamed to
   * @param when the condition under which the engine exports it (a flag, a draft model, the
   *     first failure), or null when every server of a version that has it does: a concept
   *     whose newest source has no condition is expected, and reported {@code missing} when
   *     the server exports none of its sources
   */
  public record History(String added, String deprecated, String removed, String note, String when) {
    public static final History NONE = new History(null, null, null, null, null);

    /** A history without a condition. */
    public History(String added, String deprecated, String removed, String note) {
      this(added, deprecated, removed, note, null);
    }

    /** A readable summary, e.g. {@code added 0.10, removed 0.12}; empty when nothing is known. */
    public String describe() {
      List<String> parts = new ArrayList<>(4);
      if (added != null) {
        parts.add("added " + added);
      }
      if (deprecated != null) {
        parts.add("deprecated " + deprecated);
      }
      if (removed != null) {
        parts.add("removed " + removed);
      }
      if (when != null) {
        parts.add("only " + when);
      }
      if (note != null) {
        parts.add(note);
      }
      return String.join(", ", parts);
    }
  }

  public Source {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(form, "form");
    Map<String, List<String>> w = new LinkedHashMap<>();
    where.forEach((k, v) -> w.put(Objects.requireNonNull(k), List.copyOf(v)));
    where = Collections.unmodifiableMap(w);
    parts = List.copyOf(parts);
    Objects.requireNonNull(history, "history");
    if (!(scale > 0) || Double.isInfinite(scale)) {
      throw new IllegalArgumentException("scale must be a positive number, not " + scale);
    }
    if ((form == Form.SUM) != !parts.isEmpty()) {
      throw new IllegalArgumentException("a sum has parts, and only a sum");
    }
  }

  public Source(String name, Form form) {
    this(name, form, Map.of(), 1.0, List.of(), History.NONE);
  }

  /** This source restricted to the samples whose label {@code label} is {@code value}. */
  public Source where(String label, String value) {
    return where(label, List.of(value));
  }

  /** This source restricted to the samples whose label {@code label} is one of {@code values}. */
  public Source where(String label, List<String> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("a filter needs at least one value");
    }
    Map<String, List<String>> w = new LinkedHashMap<>(where);
    w.put(Objects.requireNonNull(label), List.copyOf(values));
    return new Source(name, form, w, scale, parts, history);
  }

  /** This source with its values multiplied by {@code factor} (a unit conversion). */
  public Source scaled(double factor) {
    return new Source(name, form, where, factor, parts, history);
  }

  /** This source with its version history. */
  public Source withHistory(History h) {
    return new Source(name, form, where, scale, parts, h);
  }

  /** Whether a sample with these labels belongs to this source. */
  public boolean accepts(Labels labels) {
    if (where.isEmpty()) {
      return true;
    }
    for (Map.Entry<String, List<String>> e : where.entrySet()) {
      String v = labels.get(e.getKey());
      // In Prometheus an empty label value is the same as no label.
      if (!e.getValue().contains(v == null ? "" : v)) {
        return false;
      }
    }
    return true;
  }

  public static Source gauge(String name) {
    return new Source(name, Form.GAUGE);
  }

  public static Source counter(String name) {
    return new Source(name, Form.COUNTER);
  }

  public static Source sample(String name) {
    return new Source(name, Form.SAMPLE);
  }

  public static Source histogram(String name) {
    return new Source(name, Form.HISTOGRAM);
  }

  /** The sum of these sources' series. */
  public static Source sum(List<Source> parts) {
    StringBuilder name = new StringBuilder();
    for (Source p : parts) {
      if (p.form() == Form.SUM) {
        throw new IllegalArgumentException("a sum of sums");
      }
      if (name.length() > 0) {
        name.append('+');
      }
      name.append(p.name());
    }
    return new Source(name.toString(), Form.SUM, Map.of(), 1.0, parts, History.NONE);
  }

  /** The sources read from the wire: the parts of a sum, else this one. */
  public List<Source> leaves() {
    return form == Form.SUM ? parts : List.of(this);
  }

  /** The sample names this source matches (not for histograms, which are read by family). */
  List<String> sampleNames() {
    switch (form) {
      case COUNTER:
        return name.endsWith("_total") ? List.of(name) : List.of(name + "_total", name);
      case HISTOGRAM:
        return List.of(name + "_bucket", name + "_sum", name + "_count");
      default:
        return List.of(name);
    }
  }

  /** A readable form for {@code engines} and {@code explain}, e.g. {@code counter vllm:x where a="b"}. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    if (form == Form.SUM) {
      sb.append("sum of (");
      for (int i = 0; i < parts.size(); i++) {
        sb.append(i == 0 ? "" : " + ").append(parts.get(i).describe());
      }
      return sb.append(')').toString();
    }
    sb.append(form.key()).append(' ').append(name);
    if (!where.isEmpty()) {
      sb.append(" where ");
      int i = 0;
      for (Map.Entry<String, List<String>> e : where.entrySet()) {
        sb.append(i++ == 0 ? "" : ",").append(e.getKey());
        if (e.getValue().size() == 1) {
          sb.append("=\"").append(e.getValue().get(0)).append('"');
        } else {
          sb.append(" in ").append(e.getValue());
        }
      }
    }
    if (scale != 1.0) {
      sb.append(" × ").append(scale);
    }
    return sb.toString();
  }
}
