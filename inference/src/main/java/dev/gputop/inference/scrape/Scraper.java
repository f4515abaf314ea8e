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

  /** Releases threads and connections. Idempotent. */
  @Override
  void close();
}
