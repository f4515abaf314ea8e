package dev.gputop.inference.engine;

/**
 * One gauge or counter series from one scrape. Immutable.
 *
 * @param key the series' identity
 * @param model the served model it belongs to, or {@code ""} when the engine does not say
 * @param value its value
 */
public record Series(SeriesKey key, String model, double value) {}
