package dev.gputop.inference.engine;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The series of one concept in one scrape, read from the first of its sources that had samples.
 * Immutable.
 *
 * @param concept the concept
 * @param source the metric it was read from
 * @param series gauge or counter series by key (empty for histograms)
 * @param histograms histogram series by key (empty for gauges and counters)
 */
public record ConceptValues(
    Concept concept,
    Source source,
    Map<SeriesKey, Series> series,
    Map<SeriesKey, HistogramSeries> histograms) {

  public ConceptValues {
    Objects.requireNonNull(concept, "concept");
    Objects.requireNonNull(source, "source");
    // Compact and ordered: a server's window keeps every concept of twenty scrapes or more.
    series = OrderedMap.copyOf(series);
    histograms = OrderedMap.copyOf(histograms);
  }

  /** How many gauge or counter series there are. */
  public int seriesCount() {
    return series.size();
  }

  /** The {@code i}-th gauge or counter series, in order: read without an iterator. */
  public Series seriesAt(int i) {
    return ((OrderedMap<SeriesKey, Series>) series).valueAt(i);
  }

  /** How many histogram series there are. */
  public int histogramCount() {
    return histograms.size();
  }

  /** The {@code i}-th histogram series, in order. */
  public HistogramSeries histogramAt(int i) {
    return ((OrderedMap<SeriesKey, HistogramSeries>) histograms).valueAt(i);
  }

  static ConceptValues ofSeries(Concept concept, Source source, List<Series> list) {
    Object[] keys = new Object[list.size()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = list.get(i).key();
    }
    Map<SeriesKey, Series> m = OrderedMap.ofDistinct(keys, list.toArray());
    if (m == null) {
      m = new LinkedHashMap<>();
      for (Series s : list) {
        m.put(s.key(), s);
      }
    }
    return new ConceptValues(concept, source, m, Map.of());
  }

  static ConceptValues ofHistograms(Concept concept, Source source, List<HistogramSeries> list) {
    Object[] keys = new Object[list.size()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = list.get(i).key();
    }
    Map<SeriesKey, HistogramSeries> m = OrderedMap.ofDistinct(keys, list.toArray());
    if (m == null) {
      m = new LinkedHashMap<>();
      for (HistogramSeries h : list) {
        m.put(h.key(), h);
      }
    }
    return new ConceptValues(concept, source, Map.of(), m);
  }
}
