package dev.gputop.inference.scrape;

import dev.gputop.config.Endpoint;
import java.util.List;

/**
 * Scrapes many inference servers at once. Implementations bound every scrape's time and size, so
 * one slow or hostile server never delays the others beyond the configured timeout.
 * Implementations must be thread-safe.
 */
public interface Scraper extends AutoCloseable {

  /**
   * Scrapes every target concurrently and returns one result per target, in the same order,
   * within about the configured timeout; each result carries its target ({@link
   * ScrapeResult#target()}), by which callers match it. Never throws: failures are results.
   */
  List<ScrapeResult> scrapeAll(List<Endpoint> targets);

  /**
   * As {@link #scrapeAll(List)}, with each successful body read by {@code reader} on the calling
   * thread before its scrape is counted: a body the reader refuses becomes a {@link
   * ScrapeResult.Outcome#MALFORMED} result with the reader's message, in the returned list and in
   * the scraper's own telemetry alike (docs/scraping.md, "Outcomes"). Never throws.
   */
  default List<ScrapeResult> scrapeAll(List<Endpoint> targets, BodyReader reader) {
    List<ScrapeResult> results = new java.util.ArrayList<>(scrapeAll(targets));
    results.replaceAll(reader::verdict);
    return results;
  }

  /**
   * Reads a successful scrape's body (typically by parsing it); used on the thread that called
   * {@code scrapeAll}, one result after another.
   */
  @FunctionalInterface
  interface BodyReader {
    /** Null when {@code result}'s body reads, else why not, in words a person can act on. */
    String unreadable(ScrapeResult result);

    /** {@code result} as it is, or as a malformed result when its body does not read. */
    default ScrapeResult verdict(ScrapeResult result) {
      if (!result.ok()) {
        return result;
      }
      String why = unreadable(result);
      return why == null ? result : result.malformed(why);
    }
  }

  /** Releases threads and connections. Idempotent. */
  @Override
  void close();
}
