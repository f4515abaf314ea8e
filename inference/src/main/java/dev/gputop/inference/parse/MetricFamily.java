package dev.gputop.inference.parse;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One metric family: the samples that share a TYPE declaration (a histogram's {@code _bucket},
 * {@code _sum}, {@code _count} and {@code _created} samples, a counter's {@code _total} and
 * {@code _created}), and their typed reading. A family may have no samples (declared but never
 * observed). Immutable.
 *
 * <p>The typed views, by {@link #type()}:
 *
 * <ul>
 *   <li>{@link MetricType#HISTOGRAM}, {@link MetricType#GAUGE_HISTOGRAM}: {@link #histograms()},
 *       one per label set without {@code le}, bounds parsed once by the parser. An undeclared
 *       ({@link MetricType#UNTYPED}) family named {@code x_bucket} whose samples carry {@code le}
 *       is read the same way, with the {@code _sum} and {@code _count} of the untyped families
 *       {@code x_sum} and {@code x_count} (an excerpt that starts mid-family);
 *   <li>{@link MetricType#SUMMARY}: {@link #summaries()}, one per label set without {@code
 *       quantile};
 *   <li>counters, gauges, untyped, info, stateset: {@link #values()}, the samples that carry
 *       the value (a counter's without {@code _created}).
 * </ul>
 *
 * @param name the family name as declared by TYPE (or the sample name when undeclared)
 * @param type its type; {@link MetricType#UNTYPED} when no TYPE line was given
 * @param help the HELP text, unescaped, or null
 * @param unit the OpenMetrics UNIT, or null
 * @param samples the samples in exposition order
 * @param histograms the histogram series (empty unless the family holds buckets)
 * @param summaries the summary series (empty unless the family is a summary)
 */
public record MetricFamily(
    String name,
    MetricType type,
    String help,
    String unit,
    List<Sample> samples,
    List<Histogram> histograms,
    List<Summary> summaries) {

  public MetricFamily {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    samples = FrozenList.frozen(samples);
    histograms = List.copyOf(histograms);
    summaries = List.copyOf(summaries);
  }

  /**
   * The samples that carry a counter's, gauge's or untyped metric's value: for a counter those
   * not named {@code _created}, otherwise all; empty for histograms and summaries, which are
   * read through {@link #histograms()} and {@link #summaries()}.
   */
  public List<Sample> values() {
    switch (type) {
      case HISTOGRAM:
      case GAUGE_HISTOGRAM:
      case SUMMARY:
        return List.of();
      case COUNTER:
        String created = name + "_created";
        List<Sample> out = null;
        for (int i = 0; i < samples.size(); i++) {
          Sample s = samples.get(i);
          if (s.name().equals(created)) {
            if (out == null) {
              out = new ArrayList<>(samples.subList(0, i));
            }
          } else if (out != null) {
            out.add(s);
          }
        }
        return out == null ? samples : List.copyOf(out);
      default:
        return samples;
    }
  }
}
