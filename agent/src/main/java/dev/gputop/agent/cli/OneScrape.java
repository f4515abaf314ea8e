package dev.gputop.agent.cli;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.Endpoint;
import dev.gputop.config.ScrapeConfig;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionFormatException;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.scrape.HttpScraper;
import dev.gputop.inference.scrape.ScrapeResult;
import dev.gputop.receiver.Clock;
import io.opentelemetry.api.OpenTelemetry;
import java.net.URI;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One scrape of one URL from the command line ({@code explain}, {@code engines --check}), made
 * and parsed exactly as {@code run}'s receiver does: the same scraper, limits and error texts, and
 * the headers, bearer token and TLS of the configured endpoint with that URL. Stateless.
 */
final class OneScrape {

  private OneScrape() {}

  /**
   * The configured endpoint with this URL (its headers, token and TLS), or a bare one named
   * {@code adhocName}.
   *
   * @throws IllegalArgumentException when the URL is not one the scraper can request
   */
  static Endpoint endpoint(AgentConfig cfg, URI url, String adhocName) {
    for (Endpoint e : cfg.inference().endpoints()) {
      if (e.url().normalize().toString().equalsIgnoreCase(url.normalize().toString())) {
        return e;
      }
    }
    return Endpoint.of(adhocName, Endpoint.parseUrl(url.toString()));
  }

  /** The scrape; its failure, if any, is the result's error. */
  static ScrapeResult scrape(ScrapeConfig s, Endpoint endpoint) {
    // The scraper logs a failure as a warning too; the command's error line says it once.
    Logger scraperLog = Logger.getLogger(HttpScraper.class.getName());
    Level level = scraperLog.getLevel();
    scraperLog.setLevel(Level.OFF);
    try (HttpScraper scraper = new HttpScraper(s, Clock.system(), OpenTelemetry.noop())) {
      return scraper.scrapeAll(List.of(endpoint)).get(0);
    } finally {
      scraperLog.setLevel(level);
    }
  }

  /** The scrape's body parsed under {@code s}'s limits, as the receiver parses it. */
  static Exposition parse(ScrapeConfig s, ScrapeResult result) throws ExpositionFormatException {
    return new ExpositionParser(HttpScraper.parserLimits(s))
        .parse(result.body(), 0, result.length());
  }
}
