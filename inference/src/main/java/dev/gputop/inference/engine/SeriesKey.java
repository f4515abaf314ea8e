package dev.gputop.inference.engine;

import dev.gputop.inference.parse.Labels;
import java.util.Objects;

/**
 * Identifies one series across scrapes: the canonical source name and the labels (without
 * {@code le} for histograms and without rank labels that were folded away). Immutable.
 *
 * @param source the source's canonical base name
 * @param labels the series' identifying labels
 */
public record SeriesKey(String source, Labels labels) {
  public SeriesKey {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(labels, "labels");
  }

  // Written out: series keys are hashed for every series of every scrape.
  @Override
  public int hashCode() {
    return 31 * source.hashCode() + labels.hashCode();
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof SeriesKey)) {
      return false;
    }
    SeriesKey k = (SeriesKey) o;
    return labels.equals(k.labels) && source.equals(k.source);
  }
}
