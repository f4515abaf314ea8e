package dev.gputop.inference.scrape;

import static dev.gputop.inference.scrape.HttpScraperTest.EXPOSITION;
import static dev.gputop.inference.scrape.HttpScraperTest.PROMETHEUS_TEXT;
import static dev.gputop.inference.scrape.HttpScraperTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.config.Endpoint;
import dev.gputop.config.ScrapeConfig;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import dev.gputop.testing.ManualClock;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scrape cycle's deadline is kept on the injected clock ({@link ScrapeDeadline}): a server
 * moves the test's {@link ManualClock} past the deadline while it answers, and the scraper
 * starts nothing more in that cycle, though hardly any real time has passed. And a clock that
 * stands still does not stop the real timeout from ending an exchange that hangs.
 */
class HttpScraperClockTest {

  static final Duration TIMEOUT = Duration.ofSeconds(1);
  /** One slot, so the second target waits for the first. */
  static final ScrapeConfig ONE_SLOT = new ScrapeConfig(TIMEOUT, 1 << 20, 64 << 10, 200_000, 64, 1);

  private final ManualClock clock = new ManualClock();
  private final List<AutoCloseable> resources = new ArrayList<>();

  @AfterEach
  void closeResources() throws Exception {
    for (AutoCloseable resource : resources) {
      resource.close();
    }
  }

  @Test
  void scrapeAll_clockPassesTheDeadlineWhileATargetWaitsForASlot_itIsNotStarted()
      throws Exception {
    TestHttpServer slow = track(TestHttpServer.http()).handle("/metrics", exchange -> {
      clock.advance(TIMEOUT); // the deadline, on the injected clock
      TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION));
    });
    TestHttpServer next = track(TestHttpServer.http()).handle("/metrics",
        exchange -> TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION)));

    List<ScrapeResult> results = scrape(ONE_SLOT,
        Endpoint.of("slow", slow.uri("/metrics")), Endpoint.of("next", next.uri("/metrics")));

    // The first ended one timeout after it started by the clock: read, or (when the caller looked
    // at the clock between the handler's advance and the response's arrival, a race the clock
    // can't order) ended at the deadline, as a real clock past it would end it.
    assertThat(results.get(0).outcome()).isIn(Outcome.SUCCESS, Outcome.TIMEOUT);
    assertThat(results.get(0).durationNanos()).isEqualTo(TIMEOUT.toNanos());
    // Its slot came free after the deadline had passed on the clock: the second never started.
    assertThat(results.get(1).outcome()).isEqualTo(Outcome.TIMEOUT);
    assertThat(results.get(1).error()).isEqualTo(
        "not started within 1s: all 1 scrape slots were busy (inference.scrape.concurrency)");
    assertThat(next.requests).isEmpty();
  }

  @Test
  void scrapeAll_clockPassesTheDeadlineBeforeARedirect_theRedirectIsNotFollowed()
      throws Exception {
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics", exchange -> {
      if (exchange.getRequestURI().getPath().equals("/metrics")) {
        clock.advance(TIMEOUT);
        exchange.getResponseHeaders().set("Location", "/metrics/");
        TestHttpServer.send(exchange, 307, "text/html", bytes("moved"));
      } else {
        TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION));
      }
    });

    ScrapeResult result =
        scrape(HttpScraperDeadlineTest.CONFIG, Endpoint.of("moved", server.uri("/metrics")))
            .get(0);

    assertThat(result.outcome()).isEqualTo(Outcome.TIMEOUT);
    // Before the redirect was sent, or while the 307 was still being read when the caller saw the
    // clock past the deadline (the same race as above): either way at the deadline, not after it.
    assertThat(result.error()).isIn(
        "timed out after 1s waiting for a response from 127.0.0.1:" + server.port(),
        "timed out after 1s reading the body from 127.0.0.1:" + server.port() + " (0 bytes received)");
    assertThat(result.durationNanos()).isEqualTo(TIMEOUT.toNanos());
    // Only the first request was sent: no time was left on the clock for the second.
    assertThat(server.requests).hasSize(1);
  }

  @Test
  void scrapeAll_clockThatStandsStill_aServerThatNeverAnswersIsCutOffByTheRealTimeout()
      throws Exception {
    AtomicBoolean hungUp = new AtomicBoolean();
    Duration later = TIMEOUT.multipliedBy(3);
    RawServer silent = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      hungUp.set(RawServer.awaitClientClose(socket, later));
      if (!hungUp.get()) {
        RawServer.respond(socket, "HTTP/1.1 200 OK\r\nContent-Type: text/plain", bytes(EXPOSITION));
      }
    }));

    long start = System.nanoTime();
    ScrapeResult result =
        scrape(HttpScraperDeadlineTest.CONFIG, Endpoint.of("silent", silent.uri("/metrics")))
            .get(0);
    long elapsed = System.nanoTime() - start;

    // The server would have answered at `later`: the timeout, on real time, ended the exchange.
    assertThat(result.outcome()).isEqualTo(Outcome.TIMEOUT);
    assertThat(result.error()).isEqualTo(
        "timed out after 1s waiting for a response from 127.0.0.1:" + silent.port());
    assertThat(elapsed).isGreaterThanOrEqualTo(TIMEOUT.toNanos());
    // Measured on the clock, which did not move.
    assertThat(result.durationNanos()).isZero();
    assertThat(silent.finished.await(later.toSeconds() + 5, TimeUnit.SECONDS)).isTrue();
    assertThat(hungUp.get()).isTrue();
  }

  private List<ScrapeResult> scrape(ScrapeConfig config, Endpoint... targets) {
    try (HttpScraper scraper = new HttpScraper(config, clock, OpenTelemetry.noop())) {
      return scraper.scrapeAll(List.of(targets));
    }
  }

  private <T extends AutoCloseable> T track(T resource) {
    resources.add(resource);
    return resource;
  }
}
