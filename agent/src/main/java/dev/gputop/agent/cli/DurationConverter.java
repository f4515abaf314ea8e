package dev.gputop.agent.cli;

import dev.gputop.config.ConfigLoader;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h} (or ISO-8601) for picocli options. Stateless. */
final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    try {
      Duration d = ConfigLoader.parseDuration(value.trim());
      if (d.isNegative() || d.isZero()) {
        throw new TypeConversionException("must be positive: '" + value + "'");
      }
      return d;
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException("expected a duration such as 500ms, 30s or 2m, not '" + value + "'");
    }
  }
}
