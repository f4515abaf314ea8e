package dev.gputop.inference.parse;

/**
 * Limits that stop a huge or hostile exposition before it costs memory. Immutable.
 *
 * @param maxLineLength longest line accepted, in bytes
 * @param maxSeries most samples accepted
 * @param maxLabels most labels on one sample
 */
public record ParserLimits(int maxLineLength, int maxSeries, int maxLabels) {

  public ParserLimits {
    if (maxLineLength <= 0 || maxSeries <= 0 || maxLabels <= 0) {
      throw new IllegalArgumentException("parser limits must be positive");
    }
  }

  public static ParserLimits defaults() {
    return new ParserLimits(64 << 10, 200_000, 64);
  }
}
