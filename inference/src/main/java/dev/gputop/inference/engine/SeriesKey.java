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
}
