package dev.gputop.inference.engine;

import java.util.List;
import java.util.Objects;

/**
 * One metric that can carry a concept, by its name on the wire after prefix normalization.
 *
 * <ul>
 *   <li>{@link Form#GAUGE}: samples named exactly {@code name};
 *   <li>{@link Form#COUNTER}: samples named {@code name} or {@code name + "_total"} (counters
 *       with and without the suffix, as TGI writes them);
 *   <li>{@link Form#SAMPLE}: samples named exactly {@code name}, read as a counter (for example
 *       a histogram's {@code _sum} or {@code _count} used as a token or request counter);
 *   <li>{@link Form#HISTOGRAM}: the {@code name_bucket}, {@code name_sum} and {@code name_count}
 *       samples of a classic histogram.
 * </ul>
 *
 * Immutable.
 *
 * @param name the base name, with the engine's canonical prefix (e.g. {@code vllm:})
 * @param form how the samples are named
 * @param labelName a label the samples must carry, or null for all samples
 * @param labelValue the value {@code labelName} must have
 */
public record Source(String name, Form form, String labelName, String labelValue) {

  /** How a source's samples are named on the wire. */
  public enum Form {
    GAUGE,
    COUNTER,
    SAMPLE,
    HISTOGRAM
  }

  public Source {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(form, "form");
    if ((labelName == null) != (labelValue == null)) {
      throw new IllegalArgumentException("label name and value go together");
    }
  }

  public Source(String name, Form form) {
    this(name, form, null, null);
  }

  /** This source restricted to the samples whose label {@code label} is {@code value}. */
  public Source where(String label, String value) {
    return new Source(name, form, Objects.requireNonNull(label), Objects.requireNonNull(value));
  }

  /** Whether a sample with these labels belongs to this source. */
  boolean accepts(dev.gputop.inference.parse.Labels labels) {
    return labelName == null || labelValue.equals(labels.get(labelName));
  }

  // Written out: sources are map keys on every scrape.
  @Override
  public int hashCode() {
    return 31 * name.hashCode() + form.ordinal() + (labelName == null ? 0 : 7 * labelValue.hashCode());
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Source)) {
      return false;
    }
    Source s = (Source) o;
    return form == s.form && name.equals(s.name) && Objects.equals(labelName, s.labelName)
        && Objects.equals(labelValue, s.labelValue);
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

  /** The sample names this source matches, with the role of each. */
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
}
