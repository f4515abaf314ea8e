package dev.gputop.inference.parse;

import java.util.List;
import java.util.Objects;

/**
 * One metric family: the samples that share a TYPE declaration (a histogram's {@code _bucket},
 * {@code _sum}, {@code _count} and {@code _created} samples, a counter's {@code _total} and
 * {@code _created}). A family may have no samples (declared but never observed). Immutable.
 *
 * @param name the family name as declared by TYPE (or the sample name when undeclared)
 * @param type its type; {@link MetricType#UNTYPED} when no TYPE line was given
 * @param help the HELP text, unescaped, or null
 * @param unit the OpenMetrics UNIT, or null
 * @param samples the samples in exposition order
 */
public record MetricFamily(String name, MetricType type, String help, String unit, List<Sample> samples) {

  public MetricFamily {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    samples = List.copyOf(samples);
  }
}
