package dev.gputop.inference.scrape;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.config.Endpoint;
import dev.gputop.config.ScrapeConfig;
import dev.gputop.config.TlsConfig;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import dev.gputop.receiver.Clock;
import dev.gputop.testing.SharedFixtures;
import io.opentelemetry.api.OpenTelemetry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HttpScraper against real servers on 127.0.0.1: bodies, headers, errors, limits, redirects. */
class HttpScraperTest {

  static final String EXPOSITION = "# HELP vllm:num_requests_running Number of requests running.\n"
      + "# TYPE vllm:num_requests_running gauge\n"
      + "vllm:num_requests_running{model_name=\"llama\"} 3.0\n";
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  /**
   * 10s: these tests are about bodies, headers, errors and limits, not time (that is
   * HttpScraperDeadlineTest), and the first exchange of a cold JVM on a loaded 2-core machine
   * (the HTTP client's classes loading) can take more than a second.
   */
  static final ScrapeConfig CONFIG =
      new ScrapeConfig(Duration.ofSeconds(10), 1 << 20, 64 << 10, 200_000, 64, 4);

  private final List<AutoCloseable> resources = new ArrayList<>();

  @TempDir Path dir;

  @AfterEach
  void closeResources() throws Exception {
    for (AutoCloseable resource : resources) {
      resource.close();
    }
  }

  @Test
  void parserLimits_areTheScrapeKeys_andTheirDefaultsAreTheParsersOwn() {
    // The parse package reads no config, so the defaults are written twice: this keeps them one.
    assertThat(HttpScraper.parserLimits(ScrapeConfig.defaults())).isEqualTo(ParserLimits.defaults());
    ScrapeConfig tight = ScrapeConfig.builder().maxLineLength(512).maxSeries(9).maxLabels(3).build();
    assertThat(HttpScraper.parserLimits(tight)).isEqualTo(new ParserLimits(512, 9, 3));
  }

  @Test
  void scrapeAll_success_returnsBodyContentTypeAndTiming() throws Exception {
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics",
        exchange -> TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION)));
    long before = Clock.system().epochNanos();

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("vllm", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(result.ok()).isTrue();
    assertThat(text(result)).isEqualTo(EXPOSITION);
    assertThat(result.contentType()).isEqualTo(PROMETHEUS_TEXT);
    assertThat(result.error()).isNull();
    assertThat(result.startEpochNanos()).isBetween(before, Clock.system().epochNanos());
    assertThat(result.durationNanos()).isPositive().isLessThan(CONFIG.timeout().toNanos());
  }

  @Test
  void prepareInBackground_loadsTheClientOncePerProcess_andALaterScraperScrapes() throws Exception {
    HttpScraper.prepareInBackground();
    CompletableFuture<Void> loading = HttpClients.loadClassesInBackground();
    HttpScraper.prepareInBackground();
    assertThat(HttpClients.loadClassesInBackground()).isSameAs(loading);
    loading.get(30, TimeUnit.SECONDS); // a bound for a hang, not a timing
    assertThat(loading).isCompletedWithValue(null);
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics",
        exchange -> TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION)));

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("vllm", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(text(result)).isEqualTo(EXPOSITION);
  }

  @Test
  void scrapeAll_openMetricsResponse_isPassedOnWithItsContentType() throws Exception {
    String openMetrics = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    String body = "# TYPE tgi_queue_size gauge\ntgi_queue_size 2\n# EOF\n";
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics",
        exchange -> TestHttpServer.send(exchange, 200, openMetrics, bytes(body)));

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("tgi", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(result.contentType()).isEqualTo(openMetrics);
    assertThat(text(result)).isEqualTo(body);
  }

  @Test
  void scrapeAll_request_sendsAcceptGzipAndTargetHeaders() throws Exception {
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics",
        exchange -> TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION)));
    Endpoint target = new Endpoint("chat-api", server.uri("/metrics"),
        Map.of("X-Api-Key", "key-123", "X-Tenant", "blue"), null, TlsConfig.defaults());

    ScrapeResult result = scrapeOne(CONFIG, target);

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
    var headers = server.requests.get(0);
    assertThat(headers.getFirst("Accept")).isEqualTo("text/plain;version=0.0.4");
    assertThat(headers.getFirst("Accept-Encoding")).isEqualTo("gzip");
    assertThat(headers.getFirst("User-Agent")).isEqualTo("gputop-agent");
    assertThat(headers.getFirst("X-Api-Key")).isEqualTo("key-123");
    assertThat(headers.getFirst("X-Tenant")).isEqualTo("blue");
    assertThat(headers.containsKey("Authorization")).isFalse();
  }

  @Test
  void scrapeAll_bearerTokenFile_isSentAndRotatedTokenPickedUp() throws Exception {
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics", exchange -> {
      String auth = exchange.getRequestHeaders().getFirst("Authorization");
      if ("Bearer token-two".equals(auth) || "Bearer token-one".equals(auth)) {
        TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION));
      } else {
        TestHttpServer.send(
            exchange, 401, "application/json", bytes("{\"error\":\"unauthorized\"}"));
      }
    });
    Path token = dir.resolve("token");
    Files.writeString(token, "token-one\n");
    Endpoint target = new Endpoint("secured", server.uri("/metrics"), Map.of(),
        token.toString(), TlsConfig.defaults());

    try (HttpScraper scraper = scraper(CONFIG)) {
      ScrapeResult first = scraper.scrapeAll(List.of(target)).get(0);
      Files.writeString(token, "token-two");
      Files.setLastModifiedTime(token, FileTime.from(Instant.now().plusSeconds(5)));
      ScrapeResult second = scraper.scrapeAll(List.of(target)).get(0);
      Files.writeString(token, "revoked");
      ScrapeResult third = scraper.scrapeAll(List.of(target)).get(0);

      assertThat(first.outcome()).isEqualTo(Outcome.SUCCESS);
      assertThat(second.outcome()).isEqualTo(Outcome.SUCCESS);
      assertThat(third.outcome()).isEqualTo(Outcome.HTTP_ERROR);
      assertThat(third.error()).startsWith("HTTP 401 Unauthorized from 127.0.0.1:" + server.port());
    }
    assertThat(server.requests).extracting(h -> h.getFirst("Authorization"))
        .containsExactly("Bearer token-one", "Bearer token-two", "Bearer revoked");
  }

  @Test
  void scrapeAll_missingTokenFile_failsNamingTheFileWithoutRequest() throws Exception {
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics",
        exchange -> TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION)));
    Path missing = dir.resolve("no-such-token");
    Endpoint target = new Endpoint("secured", server.uri("/metrics"), Map.of(),
        missing.toString(), TlsConfig.defaults());

    ScrapeResult result = scrapeOne(CONFIG, target);

    assertThat(result.outcome()).isEqualTo(Outcome.IO_ERROR);
    assertThat(result.error()).isEqualTo("bearer token file " + missing + " does not exist");
    assertThat(server.requests).isEmpty();
  }

  @Test
  void scrapeAll_multiLineTokenFile_failsWithoutQuotingTheToken() throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, "s3cr3t-part-one\ns3cr3t-part-two\n");
    Endpoint target = new Endpoint("secured", URI.create("http://127.0.0.1:1/metrics"),
        Map.of(), token.toString(), TlsConfig.defaults());

    ScrapeResult result = scrapeOne(CONFIG, target);

    assertThat(result.outcome()).isEqualTo(Outcome.IO_ERROR);
    assertThat(result.error()).contains(token.toString()).doesNotContain("s3cr3t");
  }

  @Test
  void scrapeAll_reservedHeader_failsNamingTheHeaderNotItsValue() throws Exception {
    Endpoint target = new Endpoint("bad-header", URI.create("http://127.0.0.1:1/metrics"),
        Map.of("Host", "secret-host-value"), null, TlsConfig.defaults());

    ScrapeResult result = scrapeOne(CONFIG, target);

    assertThat(result.outcome()).isEqualTo(Outcome.IO_ERROR);
    assertThat(result.error()).contains("header 'Host'").doesNotContain("secret-host-value");
  }

  @Test
  void scrapeAll_htmlLoginPage_isMalformedWithTheStartOfThePage() throws Exception {
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics",
        exchange -> TestHttpServer.send(exchange, 200, "text/html; charset=utf-8",
            bytes("\n  <!DOCTYPE html>\n<html><head><title>Sign in</title></head></html>\n")));

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("vllm", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.MALFORMED);
    assertThat(result.ok()).isFalse();
    assertThat(result.body()).isNull();
    assertThat(result.error()).isEqualTo("the body is an HTML or XML page (Content-Type text/html), not a"
        + " metrics exposition from 127.0.0.1:" + server.port()
        + ": <!DOCTYPE html> <html><head><title>Sign in</title></head></html>");
  }

  @Test
  void scrapeAll_jsonOrBinaryBodies_areMalformed_anEmptyOrUtf8NamedExpositionIsNot() throws Exception {
    TestHttpServer server = track(TestHttpServer.http())
        .handle("/json", exchange -> TestHttpServer.send(exchange, 200, "application/json",
            bytes("{\"status\":\"ok\"}")))
        .handle("/array", exchange -> TestHttpServer.send(exchange, 200, "text/plain", bytes("[1,2]")))
        .handle("/binary", exchange -> TestHttpServer.send(exchange, 200, "application/octet-stream",
            new byte[] {0x12, 0x05, 'h', 'e', 'l', 'l', 'o'}))
        .handle("/empty", exchange -> TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, new byte[0]))
        .handle("/quoted", exchange -> TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT,
            bytes("{\"vllm.requests\"} 1\n")));

    assertThat(scrapeOne(CONFIG, Endpoint.of("j", server.uri("/json"))).error())
        .startsWith("the body is a JSON document (Content-Type application/json), not a metrics exposition");
    assertThat(scrapeOne(CONFIG, Endpoint.of("a", server.uri("/array"))).outcome()).isEqualTo(Outcome.MALFORMED);
    assertThat(scrapeOne(CONFIG, Endpoint.of("b", server.uri("/binary"))).error())
        .startsWith("the body starts with byte 0x12, not a metrics exposition (Content-Type application/octet-stream)");
    assertThat(scrapeOne(CONFIG, Endpoint.of("e", server.uri("/empty"))).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(scrapeOne(CONFIG, Endpoint.of("q", server.uri("/quoted"))).outcome()).isEqualTo(Outcome.SUCCESS);
  }

  @Test
  void scrapeAll_notFound_isHttpErrorWithStatusAndBody() throws Exception {
    TestHttpServer server = track(TestHttpServer.http()).handle("/",
        exchange -> TestHttpServer.send(exchange, 404, "application/json",
            bytes("{\"detail\":\"Not Found\"}")));

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("sglang", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.HTTP_ERROR);
    assertThat(result.error()).isEqualTo(
        "HTTP 404 Not Found from 127.0.0.1:" + server.port() + ": {\"detail\":\"Not Found\"}");
    assertThat(result.body()).isNull();
  }

  @Test
  void scrapeAll_llamaCppWithoutMetricsFlag_showsTheStartOfIts501Answer() throws Exception {
    // What llama-server answers on /metrics when started without --metrics, padded past the
    // snippet length to check the cut.
    String answer = "{\"error\":{\"code\":501,\"message\":\"This server does not support metrics"
        + " endpoint. Start it with `--metrics`\",\"type\":\"not_supported_error\"}}"
        + " ".repeat(10) + "x".repeat(500);
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics",
        exchange -> TestHttpServer.send(exchange, 501, "application/json; charset=utf-8",
            bytes(answer)));

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("llama", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.HTTP_ERROR);
    String prefix = "HTTP 501 Not Implemented from 127.0.0.1:" + server.port() + ": ";
    assertThat(result.error()).startsWith(prefix + "{\"error\":{\"code\":501,\"message\":"
        + "\"This server does not support metrics endpoint. Start it with `--metrics`\"");
    assertThat(result.error()).endsWith("…");
    assertThat(result.error().length() - prefix.length()).isEqualTo(ScrapeCall.SNIPPET_CHARS + 1);
  }

  @Test
  void scrapeAll_nothingListening_isConnectError() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }

    ScrapeResult result = scrapeOne(CONFIG,
        Endpoint.of("gone", URI.create("http://127.0.0.1:" + port + "/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.CONNECT_ERROR);
    assertThat(result.error()).isEqualTo("connect to 127.0.0.1:" + port + " refused");
  }

  @Test
  void scrapeAll_gzipBody_isDecompressed() throws Exception {
    String big = EXPOSITION.repeat(2000);
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics", exchange -> {
      assertThat(exchange.getRequestHeaders().getFirst("Accept-Encoding")).isEqualTo("gzip");
      exchange.getResponseHeaders().set("Content-Encoding", "gzip");
      TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, gzip(bytes(big)));
    });

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("vllm", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(result.length()).isEqualTo(big.length());
    assertThat(text(result)).isEqualTo(big);
  }

  @Test
  void scrapeAll_sharedTgiFixtureOverGzip_arrivesByteForByte() throws Exception {
    Path fixture = SharedFixtures.file("fixtures/tgi/datadog-hugging-face-tgi-payload-partial.prom");
    byte[] payload = Files.readAllBytes(fixture);
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics", exchange -> {
      exchange.getResponseHeaders().set("Content-Encoding", "gzip");
      TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, gzip(payload));
    });

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("tgi", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(java.util.Arrays.copyOf(result.body(), result.length())).isEqualTo(payload);
  }

  @Test
  void scrapeAll_gzipBomb_isTooLargeAfterDecompression() throws Exception {
    // 64 KiB on the wire, 64 MiB inflated: far over the 1 MiB limit.
    byte[] bomb = gzip(new byte[64 << 20]);
    assertThat((long) bomb.length).isLessThan(CONFIG.maxBodyBytes());
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics", exchange -> {
      exchange.getResponseHeaders().set("Content-Encoding", "gzip");
      TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bomb);
    });

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("bomb", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.TOO_LARGE);
    assertThat(result.error()).isEqualTo("body exceeds 1 MiB limit after gzip decompression");
    assertThat(result.body()).isNull();
  }

  @Test
  void scrapeAll_endlessBody_isTooLargeAndTheConnectionIsClosed() throws Exception {
    AtomicLong written = new AtomicLong();
    RawServer server = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      OutputStream out = socket.getOutputStream();
      out.write(bytes("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"));
      byte[] chunk = bytes("x 1\n".repeat(16 << 10));
      while (true) {
        out.write(chunk); // throws once the client hangs up
        written.addAndGet(chunk.length);
      }
    }));

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("flood", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.TOO_LARGE);
    assertThat(result.error()).isEqualTo("body exceeds 1 MiB limit");
    // The scraper hung up: the server's writes fail soon after the limit, not after gigabytes.
    assertThat(server.finished.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(written.get()).isLessThan(64L << 20);
  }

  @Test
  void scrapeAll_contentLengthOverLimit_isRejectedBeforeReading() throws Exception {
    RawServer server = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      socket.getOutputStream().write(bytes("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
          + "Content-Length: 104857600\r\n\r\nx 1\n"));
      RawServer.awaitClientClose(socket); // never sends the rest
    }));
    ScrapeConfig slow = new ScrapeConfig(Duration.ofSeconds(10), 1 << 20, 64 << 10, 200_000, 64, 4);
    long start = System.nanoTime();

    ScrapeResult result = scrapeOne(slow, Endpoint.of("liar", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.TOO_LARGE);
    assertThat(result.error()).isEqualTo("body exceeds 1 MiB limit (Content-Length 104857600)");
    assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
  }

  @Test
  void scrapeAll_connectionClosedMidBody_isIoError() throws Exception {
    RawServer server = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      socket.getOutputStream().write(bytes("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nx 1\n"));
      socket.getOutputStream().flush();
    }));

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("cut", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.IO_ERROR);
    assertThat(result.error()).startsWith("connection to 127.0.0.1:" + server.port()
        + " closed before the response was complete");
  }

  @Test
  void scrapeAll_notHttp_isIoError() throws Exception {
    RawServer server = track(new RawServer(socket -> {
      RawServer.readRequest(socket);
      socket.getOutputStream().write(bytes("SSH-2.0-OpenSSH_9.2\r\n\r\n"));
      socket.getOutputStream().flush();
    }));

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("ssh", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.IO_ERROR);
    assertThat(result.error()).contains("127.0.0.1:" + server.port());
  }

  @Test
  void scrapeAll_unrequestedContentEncoding_isIoError() throws Exception {
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics", exchange -> {
      exchange.getResponseHeaders().set("Content-Encoding", "br");
      TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes("\u000b\u0001\u0080abc"));
    });

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("brotli", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.IO_ERROR);
    assertThat(result.error())
        .isEqualTo("unsupported Content-Encoding 'br' (only gzip was accepted)");
  }

  @Test
  void scrapeAll_sameHostRedirect_isFollowedWithHeaders() throws Exception {
    TestHttpServer server = track(TestHttpServer.http())
        .handle("/metrics", exchange -> {
          if (exchange.getRequestURI().getPath().equals("/metrics")) {
            exchange.getResponseHeaders().set("Location", "/metrics/");
            TestHttpServer.send(
                exchange, 307, "text/html", bytes("<a href=\"/metrics/\">moved</a>"));
          } else {
            TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION));
          }
        });
    Endpoint target = new Endpoint("redirected", server.uri("/metrics"),
        Map.of("X-Api-Key", "k"), null, TlsConfig.defaults());

    ScrapeResult result = scrapeOne(CONFIG, target);

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(text(result)).isEqualTo(EXPOSITION);
    assertThat(server.requests).hasSize(2);
    assertThat(server.requests.get(1).getFirst("X-Api-Key")).isEqualTo("k");
  }

  @Test
  void scrapeAll_redirectToOtherHost_isRejected() throws Exception {
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics", exchange -> {
      exchange.getResponseHeaders().set("Location", "http://evil.example/steal");
      TestHttpServer.send(exchange, 302, null, new byte[0]);
    });

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("moved", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.REDIRECT_REJECTED);
    assertThat(result.error()).isEqualTo("redirect to other host evil.example rejected");
  }

  @Test
  void scrapeAll_redirectLoop_isRejectedAfterThreeHops() throws Exception {
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics", exchange -> {
      exchange.getResponseHeaders().set("Location", "/metrics");
      TestHttpServer.send(exchange, 301, null, new byte[0]);
    });

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("loop", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.REDIRECT_REJECTED);
    assertThat(result.error()).isEqualTo("more than 3 redirects rejected");
    assertThat(server.requests).hasSize(ScrapeCall.MAX_REDIRECTS + 1);
  }

  @Test
  void scrapeAll_redirectWithoutLocation_isHttpError() throws Exception {
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics",
        exchange -> TestHttpServer.send(exchange, 302, null, new byte[0]));

    ScrapeResult result = scrapeOne(CONFIG, Endpoint.of("nowhere", server.uri("/metrics")));

    assertThat(result.outcome()).isEqualTo(Outcome.HTTP_ERROR);
    assertThat(result.error()).isEqualTo(
        "HTTP 302 from 127.0.0.1:" + server.port() + " without a Location header");
  }

  @Test
  void scrapeAll_mixedTargets_resultsInTargetOrder() throws Exception {
    TestHttpServer server = track(TestHttpServer.http())
        .handle("/ok",
            exchange -> TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION)))
        .handle("/missing", exchange -> TestHttpServer.send(exchange, 404, null, new byte[0]));
    List<Endpoint> targets = List.of(
        Endpoint.of("a", server.uri("/missing")),
        Endpoint.of("b", server.uri("/ok")),
        // Fails before any request: its token file does not exist.
        new Endpoint("c", server.uri("/ok"), Map.of(), "/nonexistent/gputop-token",
            TlsConfig.defaults()),
        Endpoint.of("d", server.uri("/ok")));

    List<ScrapeResult> results;
    try (HttpScraper scraper = scraper(CONFIG)) {
      results = scraper.scrapeAll(targets);
    }

    assertThat(results).extracting(ScrapeResult::target).containsExactlyElementsOf(targets);
    assertThat(results).extracting(ScrapeResult::outcome).containsExactly(
        Outcome.HTTP_ERROR, Outcome.SUCCESS, Outcome.IO_ERROR, Outcome.SUCCESS);
  }

  @Test
  void scrapeAll_noTargets_returnsEmptyList() {
    try (HttpScraper scraper = scraper(CONFIG)) {
      assertThat(scraper.scrapeAll(List.of())).isEmpty();
    }
  }

  @Test
  void scrapeAll_afterClose_failsEveryTarget() throws Exception {
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics",
        exchange -> TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION)));
    HttpScraper scraper = scraper(CONFIG);
    scraper.close();
    scraper.close(); // idempotent

    List<ScrapeResult> results =
        scraper.scrapeAll(List.of(Endpoint.of("a", server.uri("/metrics"))));

    assertThat(results).singleElement().satisfies(r -> {
      assertThat(r.outcome()).isEqualTo(Outcome.IO_ERROR);
      assertThat(r.error()).isEqualTo("scraper is closed");
    });
    assertThat(server.requests).isEmpty();
  }

  @Test
  void scrapeAll_keepAlive_reusesTheConnection() throws Exception {
    RawServer server = track(new RawServer(socket -> {
      while (true) {
        RawServer.readRequest(socket);
        byte[] body = bytes(EXPOSITION);
        socket.getOutputStream().write(bytes("HTTP/1.1 200 OK\r\nContent-Length: " + body.length
            + "\r\nContent-Type: text/plain\r\n\r\n"));
        socket.getOutputStream().write(body);
        socket.getOutputStream().flush();
      }
    }));
    Endpoint target = Endpoint.of("kept", server.uri("/metrics"));

    try (HttpScraper scraper = scraper(CONFIG)) {
      for (int i = 0; i < 3; i++) {
        assertThat(scraper.scrapeAll(List.of(target)).get(0).outcome()).isEqualTo(Outcome.SUCCESS);
      }
    }
    assertThat(server.connections.get()).isEqualTo(1);
  }

  @Test
  void scrapeAll_afterTheResultsAreDropped_nothingOfTheExchangeKeepsTheBody() throws Exception {
    // A body of its own size, kept-alive connections, and the scraper still open: only the
    // results may hold the bodies, so once they are dropped every body can be collected.
    String body = EXPOSITION.repeat(300);
    TestHttpServer server = track(TestHttpServer.http()).handle("/metrics",
        exchange -> TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(body)));
    List<Endpoint> targets = List.of(Endpoint.of("a", server.uri("/metrics")),
        Endpoint.of("b", server.uri("/metrics?b")), Endpoint.of("c", server.uri("/metrics?c")));

    try (HttpScraper scraper = scraper(CONFIG)) {
      List<java.lang.ref.WeakReference<byte[]>> bodies = new ArrayList<>();
      for (int cycle = 0; cycle < 3; cycle++) {
        bodies.addAll(scrapeAndKeepOnlyTheBodies(scraper, targets, body.length()));
      }

      // Waits for the event (every body collected), forcing collections; 30s is only the
      // point where a body that is never collected fails the test.
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (bodies.stream().anyMatch(ref -> ref.get() != null) && System.nanoTime() < end) {
        System.gc();
        Thread.sleep(20);
      }
      assertThat(bodies).hasSize(9).allMatch(ref -> ref.get() == null);
    }
  }

  /** Scrapes, checks the bodies arrived, and returns weak references to them only. */
  private static List<java.lang.ref.WeakReference<byte[]>> scrapeAndKeepOnlyTheBodies(
      HttpScraper scraper, List<Endpoint> targets, int length) {
    List<java.lang.ref.WeakReference<byte[]>> refs = new ArrayList<>();
    for (ScrapeResult result : scraper.scrapeAll(targets)) {
      assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
      assertThat(result.length()).isEqualTo(length);
      refs.add(new java.lang.ref.WeakReference<>(result.body()));
    }
    return refs;
  }

  // --- helpers

  private <T extends AutoCloseable> T track(T resource) {
    resources.add(resource);
    return resource;
  }

  static HttpScraper scraper(ScrapeConfig config) {
    return new HttpScraper(config, Clock.system(), OpenTelemetry.noop());
  }

  static ScrapeResult scrapeOne(ScrapeConfig config, Endpoint target) {
    try (HttpScraper scraper = scraper(config)) {
      List<ScrapeResult> results = scraper.scrapeAll(List.of(target));
      assertThat(results).hasSize(1);
      return results.get(0);
    }
  }

  static String text(ScrapeResult result) {
    return new String(result.body(), 0, result.length(), StandardCharsets.UTF_8);
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    }
    return out.toByteArray();
  }
}
