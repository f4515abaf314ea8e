package dev.gputop.inference.scrape;

import dev.gputop.config.Endpoint;
import static dev.gputop.inference.scrape.HttpScraperTest.EXPOSITION;
import static dev.gputop.inference.scrape.HttpScraperTest.bytes;
import static dev.gputop.inference.scrape.HttpScraperTest.scraper;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gputop.config.ScrapeConfig;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scraper's time bounds against servers that misbehave on purpose: silent, trickling, slow,
 * many. No bound is guessed on the wall clock of a loaded machine: each hostile server would
 * give the scraper what it asks for {@link #LATER} (three timeouts) after the request, a valid
 * and complete response, so a scrape that ends with {@link Outcome#TIMEOUT} and the deadline's
 * message was cut by the deadline and not by anything else; that it was not cut before the
 * deadline is exact ({@code scrapeAll} takes at least the timeout); and that the connection was
 * closed is an event the server sees.
 */
class HttpScraperDeadlineTest {

  static final Duration TIMEOUT = Duration.ofSeconds(1);
  /** When each hostile server would have completed its response. */
  static final Duration LATER = TIMEOUT.multipliedBy(3);
  static final ScrapeConfig CONFIG = new ScrapeConfig(TIMEOUT, 1 << 20, 64 << 10, 200_000, 64, 8);

  private final List<AutoCloseable> resources = new ArrayList<>();

  @AfterEach
  void closeResources() throws Exception {
    for (AutoCloseable resource : resources) {
      resource.close();
    }
  }

  @Test
  void scrapeAll_serverThatNeverAnswers_timesOutAtTheDeadlineAndHangsUp() throws Exception {
    AtomicBoolean hungUp = new AtomicBoolean();
    RawServer silent = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      hungUp.set(RawServer.awaitClientClose(socket, LATER));
      if (!hungUp.get()) {
        RawServer.respond(socket, "HTTP/1.1 200 OK\r\nContent-Type: text/plain", bytes(EXPOSITION));
      }
    }));

    Timed timed = scrapeTimed(CONFIG, Endpoint.of("silent", silent.uri("/metrics")));
    ScrapeResult result = timed.result();

    assertThat(result.outcome()).isEqualTo(Outcome.TIMEOUT);
    assertThat(result.error()).isEqualTo(
        "timed out after 1s waiting for a response from 127.0.0.1:" + silent.port());
    assertThat(timed.elapsedNanos()).isGreaterThanOrEqualTo(TIMEOUT.toNanos());
    assertThat(result.durationNanos()).isLessThanOrEqualTo(timed.elapsedNanos());
    // The connection was closed, not left open for the server to hold.
    assertThat(silent.finished.await(LATER.toSeconds() + 5, TimeUnit.SECONDS)).isTrue();
    assertThat(hungUp.get()).isTrue();
  }

  @Test
  void scrapeAll_connectThatNeverCompletes_isAConnectTimeout() throws Exception {
    // A listening socket whose accept queue is full: Linux drops further SYNs, as a firewall
    // that drops packets would, so the connect hangs.
    try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      List<Socket> fillers = new ArrayList<>();
      try {
        boolean hung = false;
        for (int i = 0; i < 8 && !hung; i++) {
          Socket filler = new Socket();
          fillers.add(filler);
          try {
            filler.connect(full.getLocalSocketAddress(), 200);
          } catch (SocketTimeoutException e) {
            hung = true; // the queue is full: this connect hung
          }
        }
        assumeTrue(hung, "this kernel answers SYNs beyond the accept queue");
        // 2s, so the 1.5s connect timeout keeps a margin over a cold JVM's first connect.
        ScrapeConfig twoSeconds =
            new ScrapeConfig(Duration.ofSeconds(2), 1 << 20, 64 << 10, 200_000, 64, 8);
        Timed timed = scrapeTimed(twoSeconds, Endpoint.of("dropped",
            URI.create("http://127.0.0.1:" + full.getLocalPort() + "/metrics")));
        ScrapeResult result = timed.result();

        // The connect timeout's message, not the deadline's: the connect timeout ended it.
        assertThat(result.outcome()).isEqualTo(Outcome.TIMEOUT);
        assertThat(result.error()).isEqualTo(
            "connect to 127.0.0.1:" + full.getLocalPort() + " timed out after 1.5s");
        assertThat(timed.elapsedNanos()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(1500));
      } finally {
        for (Socket filler : fillers) {
          filler.close();
        }
      }
    }
  }

  @Test
  void scrapeAll_bodyTrickledByteByByte_isCutOffAtTheDeadline() throws Exception {
    byte[] body = bytes("x 1\n".repeat(10));
    RawServer trickle = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      OutputStream out = socket.getOutputStream();
      out.write(bytes("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
          + body.length + "\r\n\r\n"));
      out.flush();
      // Never idle long enough for a read timeout; the last byte would leave at LATER.
      RawServer.trickle(socket, body, LATER);
    }));

    Timed timed = scrapeTimed(CONFIG, Endpoint.of("trickle", trickle.uri("/metrics")));
    ScrapeResult result = timed.result();

    assertThat(result.outcome()).isEqualTo(Outcome.TIMEOUT);
    assertThat(result.error()).startsWith(
        "timed out after 1s reading the body from 127.0.0.1:" + trickle.port() + " (");
    assertThat(result.error()).endsWith(" received)");
    assertThat(timed.elapsedNanos()).isGreaterThanOrEqualTo(TIMEOUT.toNanos());
    // Hung up on: the server's writes fail long before it would have sent its last byte.
    assertThat(trickle.finished.await(LATER.toSeconds() + 5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void scrapeAll_headersTrickledByteByByte_areCutOffAtTheDeadline() throws Exception {
    RawServer trickle = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      // A complete, valid response, whose last byte would leave at LATER.
      RawServer.trickle(socket, bytes("HTTP/1.1 200 OK\r\nX-Padding: yyyy\r\n"
          + "Content-Length: 4\r\n\r\nx 1\n"), LATER);
    }));

    Timed timed = scrapeTimed(CONFIG, Endpoint.of("trickle", trickle.uri("/metrics")));
    ScrapeResult result = timed.result();

    assertThat(result.outcome()).isEqualTo(Outcome.TIMEOUT);
    assertThat(result.error()).isEqualTo(
        "timed out after 1s waiting for a response from 127.0.0.1:" + trickle.port());
    assertThat(timed.elapsedNanos()).isGreaterThanOrEqualTo(TIMEOUT.toNanos());
    assertThat(trickle.finished.await(LATER.toSeconds() + 5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void scrapeAll_endlessHeaders_failWithinTheDeadline() throws Exception {
    RawServer flood = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      OutputStream out = socket.getOutputStream();
      out.write(bytes("HTTP/1.1 200 OK\r\n"));
      byte[] header = bytes("X-Flood: " + "z".repeat(8000) + "\r\n");
      while (true) {
        out.write(header); // throws once the client hangs up
      }
    }));

    Timed timed = scrapeTimed(CONFIG, Endpoint.of("flood", flood.uri("/metrics")));
    ScrapeResult result = timed.result();

    // The response headers are capped (HttpClients.MAX_RESPONSE_HEADER_BYTES): the scrape
    // fails as soon as they pass the cap, long before the deadline would end it, and the
    // connection is closed (the server's writes fail).
    assertThat(result.outcome()).isEqualTo(Outcome.IO_ERROR);
    assertThat(result.error())
        .startsWith("invalid HTTP response from 127.0.0.1:" + flood.port() + ": ");
    assertThat(flood.finished.await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void scrapeAll_malformedHeaderThenSilence_failsAndHangsUp() throws Exception {
    // Strict parsing: the malformed line fails the response at once, the deadline is not needed.
    RawServer broken = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      socket.getOutputStream().write(bytes("HTTP/1.1 200 OK\r\nBad Header Without Colon\r\n\r\n"));
      socket.getOutputStream().flush();
      RawServer.awaitClientClose(socket);
    }));

    Timed timed = scrapeTimed(CONFIG, Endpoint.of("broken", broken.uri("/metrics")));
    ScrapeResult result = timed.result();

    assertThat(result.outcome()).isEqualTo(Outcome.IO_ERROR);
    assertThat(result.error())
        .startsWith("invalid HTTP response from 127.0.0.1:" + broken.port() + ": ");
    assertThat(broken.finished.await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void scrapeAll_oneHostileAmongFiveGood_goodResultsArriveWithinTheDeadline() throws Exception {
    List<Endpoint> targets = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      TestHttpServer good = track(TestHttpServer.http()).handle("/metrics",
          exchange -> TestHttpServer.send(exchange, 200, "text/plain", bytes(EXPOSITION)));
      targets.add(Endpoint.of("good-" + i, good.uri("/metrics")));
    }
    Duration timeout = Duration.ofSeconds(3);
    byte[] body = bytes("x 1\n".repeat(25));
    RawServer hostile = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      socket.getOutputStream().write(bytes("HTTP/1.1 200 OK\r\nContent-Length: " + body.length
          + "\r\n\r\n"));
      RawServer.trickle(socket, body, timeout.multipliedBy(3));
    }));
    targets.add(2, Endpoint.of("hostile", hostile.uri("/metrics")));

    // 3s: on a loaded 2-core CI machine a local scrape can take half a second.
    ScrapeConfig config = new ScrapeConfig(timeout, 1 << 20, 64 << 10, 200_000, 64, 8);
    try (HttpScraper scraper = scraper(config)) {
      List<ScrapeResult> results = scraper.scrapeAll(targets);

      assertThat(results).extracting(r -> r.target().name()).containsExactly(
          "good-0", "good-1", "hostile", "good-2", "good-3", "good-4");
      ScrapeResult cut = results.get(2);
      // Cut off at the deadline: it would have completed at three timeouts.
      assertThat(cut.outcome()).isEqualTo(Outcome.TIMEOUT);
      assertThat(cut.durationNanos()).isGreaterThan(0);
      long cutAt = cut.startNanos() + cut.durationNanos();
      for (ScrapeResult result : results) {
        if (result != cut) {
          assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
          assertThat(HttpScraperTest.text(result)).isEqualTo(EXPOSITION);
          // Each good result took its own time, not the hostile server's: it was complete
          // before the hostile one was cut off (both on the scraper's monotonic clock).
          assertThat(result.startNanos() + result.durationNanos()).isLessThan(cutAt);
        }
      }
    }
  }

  @Test
  void scrapeAll_manyTargets_neverMoreInFlightThanTheConcurrency() throws Exception {
    AtomicInteger active = new AtomicInteger();
    AtomicInteger maxActive = new AtomicInteger();
    AtomicInteger requests = new AtomicInteger();
    // The first requests are held until three are in flight at once (an event, not a guessed
    // sleep): however slow the machine, the scraper then has had every chance to exceed its limit.
    CountDownLatch threeInFlight = new CountDownLatch(3);
    RawServer counting = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      requests.incrementAndGet();
      maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
      try {
        threeInFlight.countDown();
        threeInFlight.await(8, TimeUnit.SECONDS);
      } finally {
        active.decrementAndGet();
      }
      RawServer.respond(socket, "HTTP/1.1 200 OK\r\nContent-Type: text/plain", bytes(EXPOSITION));
    }));
    ScrapeConfig threeAtOnce =
        new ScrapeConfig(Duration.ofSeconds(10), 1 << 20, 64 << 10, 200_000, 64, 3);
    List<Endpoint> targets = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      targets.add(Endpoint.of("s" + i, counting.uri("/metrics?n=" + i)));
    }

    List<ScrapeResult> results;
    try (HttpScraper scraper = scraper(threeAtOnce)) {
      results = scraper.scrapeAll(targets);
    }

    assertThat(results).extracting(ScrapeResult::outcome).containsOnly(Outcome.SUCCESS);
    // Requests, not connections: the client may open a connection ahead that it then not needs.
    assertThat(requests.get()).isEqualTo(12);
    assertThat(maxActive.get()).isEqualTo(3);
  }

  @Test
  void scrapeAll_targetStillWaitingForASlotAtTheDeadline_timesOutUnstarted() throws Exception {
    RawServer silent = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      RawServer.awaitClientClose(socket);
    }));
    ScrapeConfig oneAtOnce = new ScrapeConfig(TIMEOUT, 1 << 20, 64 << 10, 200_000, 64, 1);

    try (HttpScraper scraper = scraper(oneAtOnce)) {
      List<ScrapeResult> results = scraper.scrapeAll(List.of(
          Endpoint.of("first", silent.uri("/a")), Endpoint.of("second", silent.uri("/b"))));

      // Both ended at the one deadline: the second was never started (one connection), so it
      // did not get a timeout of its own after the first.
      assertThat(results.get(0).outcome()).isEqualTo(Outcome.TIMEOUT);
      assertThat(results.get(1).outcome()).isEqualTo(Outcome.TIMEOUT);
      assertThat(results.get(1).error()).isEqualTo("not started within 1s: all 1 scrape slots "
          + "were busy (inference.scrape.concurrency)");
      assertThat(silent.connections.get()).isEqualTo(1);
    }
  }

  @Test
  void scrapeAll_slowCycleDoesNotHoldSlotsIntoTheNext() throws Exception {
    RawServer silent = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      RawServer.awaitClientClose(socket);
    }));
    TestHttpServer good = track(TestHttpServer.http()).handle("/metrics",
        exchange -> TestHttpServer.send(exchange, 200, "text/plain", bytes(EXPOSITION)));
    ScrapeConfig oneAtOnce = new ScrapeConfig(TIMEOUT, 1 << 20, 64 << 10, 200_000, 64, 1);

    try (HttpScraper scraper = scraper(oneAtOnce)) {
      assertThat(scraper.scrapeAll(List.of(Endpoint.of("silent", silent.uri("/metrics"))))
          .get(0).outcome()).isEqualTo(Outcome.TIMEOUT);
      ScrapeResult next =
          scraper.scrapeAll(List.of(Endpoint.of("good", good.uri("/metrics")))).get(0);

      assertThat(next.outcome()).isEqualTo(Outcome.SUCCESS);
    }
  }

  @Test
  void close_whileScraping_endsTheScrapeAtOnce() throws Exception {
    RawServer silent = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      RawServer.awaitClientClose(socket);
    }));
    ScrapeConfig patient =
        new ScrapeConfig(Duration.ofSeconds(30), 1 << 20, 64 << 10, 200_000, 64, 8);
    HttpScraper scraper = scraper(patient);
    CompletableFuture<List<ScrapeResult>> results = CompletableFuture.supplyAsync(
        () -> scraper.scrapeAll(List.of(Endpoint.of("silent", silent.uri("/metrics")))));
    awaitConnection(silent);

    scraper.close();
    // Well before the 30s deadline; "scraper is closed" says it was the close that ended it.
    ScrapeResult result = results.get(20, TimeUnit.SECONDS).get(0);

    assertThat(result.outcome()).isEqualTo(Outcome.IO_ERROR);
    assertThat(result.error()).isEqualTo("scraper is closed");
    assertThat(silent.finished.await(20, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void scrapeAll_callerInterruptedWhileWaiting_returnsPromptlyAndKeepsTheFlag() throws Exception {
    RawServer silent = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      RawServer.awaitClientClose(socket);
    }));
    ScrapeConfig patient =
        new ScrapeConfig(Duration.ofSeconds(30), 1 << 20, 64 << 10, 200_000, 64, 8);
    AtomicReference<ScrapeResult> result = new AtomicReference<>();
    AtomicBoolean flagKept = new AtomicBoolean();

    try (HttpScraper scraper = scraper(patient)) {
      Thread caller = new Thread(() -> {
        result.set(scraper.scrapeAll(
            List.of(Endpoint.of("silent", silent.uri("/metrics")))).get(0));
        flagKept.set(Thread.currentThread().isInterrupted());
      });
      caller.start();
      awaitConnection(silent);
      caller.interrupt();
      // Well before the 30s deadline; "interrupted" below says it was the interrupt.
      caller.join(TimeUnit.SECONDS.toMillis(20));

      assertThat(caller.isAlive()).isFalse();
    }
    assertThat(flagKept.get()).isTrue();
    assertThat(result.get().outcome()).isEqualTo(Outcome.IO_ERROR);
    assertThat(result.get().error()).isEqualTo("interrupted");
    assertThat(silent.finished.await(5, TimeUnit.SECONDS)).isTrue();
  }

  private static void awaitConnection(RawServer server) throws InterruptedException {
    long start = System.nanoTime();
    while (server.connections.get() == 0
        && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10)) {
      Thread.sleep(10);
    }
    assertThat(server.connections.get()).isPositive();
  }

  /** One target's result and the wall time of the {@code scrapeAll} that produced it. */
  private record Timed(ScrapeResult result, long elapsedNanos) {}

  /** Scrapes one target with a fresh scraper, timing only {@code scrapeAll}. */
  private static Timed scrapeTimed(ScrapeConfig config, Endpoint target) {
    try (HttpScraper scraper = scraper(config)) {
      long start = System.nanoTime();
      ScrapeResult result = scraper.scrapeAll(List.of(target)).get(0);
      return new Timed(result, System.nanoTime() - start);
    }
  }

  private <T extends AutoCloseable> T track(T resource) {
    resources.add(resource);
    return resource;
  }
}
