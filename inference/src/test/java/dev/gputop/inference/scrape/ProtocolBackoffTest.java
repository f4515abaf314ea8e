package dev.gputop.inference.scrape;

import dev.gputop.config.Endpoint;
import static dev.gputop.inference.scrape.HttpScraperTest.CONFIG;
import static dev.gputop.inference.scrape.HttpScraperTest.EXPOSITION;
import static dev.gputop.inference.scrape.HttpScraperTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.ManualClock;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** A server that answers with something other than HTTP is left alone for a while. */
class ProtocolBackoffTest {

  /** Monotonic time moved by the test; wall time fixed. */
  @Test
  void scrapeAll_invalidResponse_pausesTheServerAndDoublesThePause() throws Exception {
    AtomicBoolean healthy = new AtomicBoolean();
    ManualClock clock = new ManualClock(1_000_000_000L, 1_700_000_000_000_000_000L);
    try (RawServer server = new RawServer(socket -> {
          RawServer.readRequest(socket);
          if (healthy.get()) {
            RawServer.respond(
                socket, "HTTP/1.1 200 OK\r\nContent-Type: text/plain", bytes(EXPOSITION));
          } else {
            socket.getOutputStream().write(bytes("SSH-2.0-OpenSSH_9.2\r\n\r\n"));
            RawServer.awaitClientClose(socket);
          }
        });
        HttpScraper scraper = new HttpScraper(CONFIG, clock, OpenTelemetry.noop())) {
      List<Endpoint> target = List.of(Endpoint.of("ssh", server.uri("/metrics")));

      ScrapeResult first = scraper.scrapeAll(target).get(0);
      ScrapeResult paused = scraper.scrapeAll(target).get(0);
      clock.advance(Duration.ofSeconds(29));
      ScrapeResult stillPaused = scraper.scrapeAll(target).get(0);
      clock.advance(Duration.ofSeconds(2));
      ScrapeResult second = scraper.scrapeAll(target).get(0);
      clock.advance(Duration.ofSeconds(31));
      ScrapeResult pausedLonger = scraper.scrapeAll(target).get(0);
      int connectionsWhilePaused = server.connections.get();
      healthy.set(true);
      clock.advance(Duration.ofSeconds(30));
      ScrapeResult recovered = scraper.scrapeAll(target).get(0);
      ScrapeResult next = scraper.scrapeAll(target).get(0);

      // Jetty's parser names what is wrong ("No Status": no HTTP status line at all).
      String invalid = "invalid HTTP response from 127.0.0.1:" + server.port() + ": No Status";
      assertThat(first.outcome()).isEqualTo(Outcome.IO_ERROR);
      assertThat(first.error()).isEqualTo(invalid);
      assertThat(paused.outcome()).isEqualTo(Outcome.IO_ERROR);
      assertThat(paused.error()).isEqualTo(
          invalid + " (not scraped again for 30s: the server broke the HTTP protocol)");
      assertThat(stillPaused.error())
          .endsWith("(not scraped again for 1s: the server broke the HTTP protocol)");
      assertThat(second.error()).isEqualTo(invalid);
      assertThat(pausedLonger.error())
          .endsWith("(not scraped again for 29s: the server broke the HTTP protocol)");
      assertThat(connectionsWhilePaused).isEqualTo(2);
      assertThat(recovered.outcome()).isEqualTo(Outcome.SUCCESS);
      assertThat(next.outcome()).isEqualTo(Outcome.SUCCESS);
      assertThat(server.connections.get()).isGreaterThanOrEqualTo(3);
    }
  }
}
