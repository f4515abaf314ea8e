package dev.gputop.inference.parse;

import java.util.List;

/**
 * A parsed exposition: its families in the order they appeared. Immutable.
 *
 * @param families every family, including those declared without samples
 */
public record Exposition(List<MetricFamily> families) {

  public Exposition {
    families = FrozenList.frozen(families);
  }

  /** The family with this exact name, or null. */
  public MetricFamily family(String name) {
    for (MetricFamily f : families) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    return null;
  }

  /** The number of samples in all families. */
  public int sampleCount() {
    int n = 0;
    for (MetricFamily f : families) {
      n += f.samples().size();
    }
    return n;
  }
}
