package dev.gputop.inference.scrape;

import dev.gputop.config.Endpoint;
import static dev.gputop.inference.scrape.HttpScraperTest.EXPOSITION;
import static dev.gputop.inference.scrape.HttpScraperTest.PROMETHEUS_TEXT;
import static dev.gputop.inference.scrape.HttpScraperTest.bytes;
import static dev.gputop.inference.scrape.HttpScraperTest.scrapeOne;
import static dev.gputop.inference.scrape.HttpScraperTest.scraper;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import dev.gputop.config.ScrapeConfig;
import dev.gputop.config.TlsConfig;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTPS scrapes against the JDK's HTTPS server on 127.0.0.1, with the test PKI in
 * {@code src/test/resources/dev/gputop/inference/scrape/tls} (EC P-256, made by its
 * {@code generate.sh}): a custom CA, a client certificate, a certificate for the wrong host.
 */
class HttpScraperTlsTest {

  private static final char[] PASSWORD = "test".toCharArray();

  /**
   * A generous timeout: these tests are about TLS, not time, and a cold JVM's first handshake on
   * a loaded CI machine can take seconds.
   */
  private static final ScrapeConfig CONFIG =
      new ScrapeConfig(Duration.ofSeconds(15), 1 << 20, 64 << 10, 200_000, 64, 4);

  private static final ScrapeConfig FIVE_SECONDS =
      new ScrapeConfig(Duration.ofSeconds(5), 1 << 20, 64 << 10, 200_000, 64, 4);

  private final List<AutoCloseable> resources = new ArrayList<>();

  @TempDir Path dir;

  @AfterEach
  void closeResources() throws Exception {
    for (AutoCloseable resource : resources) {
      resource.close();
    }
  }

  @Test
  void scrapeAll_customCa_trustsTheServer() throws Exception {
    TestHttpServer server = https("server", false);
    TlsConfig tls = new TlsConfig(pki("ca.pem"), null, null, false);

    ScrapeResult result = scrapeOne(CONFIG, target(server, tls));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(HttpScraperTest.text(result)).isEqualTo(EXPOSITION);
  }

  @Test
  void scrapeAll_noCustomCa_reportsAnUntrustedCertificate() throws Exception {
    TestHttpServer server = https("server", false);

    ScrapeResult result = scrapeOne(CONFIG, target(server, TlsConfig.defaults()));

    assertThat(result.outcome()).isEqualTo(Outcome.TLS_ERROR);
    assertThat(result.error()).isEqualTo("TLS handshake failed with 127.0.0.1:" + server.port()
        + ": the server's certificate is not trusted (set tls.caFile to the CA that signed it)");
  }

  @Test
  void scrapeAll_httpTargets_neverInitializeTls_anHttpsTargetDoesBeforeItsScrape() throws Exception {
    TestHttpServer plain = track(TestHttpServer.http());
    plain.handle("/metrics", exchange -> TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION)));
    TestHttpServer secure = https("server", false);
    // A timeout far below a cold JSSE start-up on a loaded machine would still pass: the
    // initialization happens before the cycle's deadline starts.
    ScrapeConfig tight = new ScrapeConfig(Duration.ofSeconds(5), 1 << 20, 64 << 10, 200_000, 64, 4);

    try (HttpScraper scraper = scraper(tight)) {
      Endpoint http = Endpoint.of("plain", plain.uri("/metrics"));
      assertThat(scraper.scrapeAll(List.of(http)).get(0).outcome()).isEqualTo(Outcome.SUCCESS);
      assertThat(scraper.scrapeAll(List.of(http)).get(0).outcome()).isEqualTo(Outcome.SUCCESS);
      assertThat(scraper.defaultTlsInitialized()).isFalse();

      ScrapeResult https = scraper.scrapeAll(List.of(http, target(secure, TlsConfig.defaults()))).get(1);

      assertThat(scraper.defaultTlsInitialized()).isTrue();
      // Verified against the JDK's trust store, which does not hold the test CA.
      assertThat(https.outcome()).isEqualTo(Outcome.TLS_ERROR);
      assertThat(https.error()).contains("the server's certificate is not trusted");
    }
  }

  @Test
  void scrapeAll_customCaTarget_leavesTheDefaultTlsContextAlone() throws Exception {
    TestHttpServer server = https("server", false);
    TlsConfig tls = new TlsConfig(pki("ca.pem"), null, null, false);

    try (HttpScraper scraper = scraper(CONFIG)) {
      assertThat(scraper.scrapeAll(List.of(target(server, tls))).get(0).outcome()).isEqualTo(Outcome.SUCCESS);
      assertThat(scraper.defaultTlsInitialized()).isFalse();
    }
  }

  @Test
  void scrapeAll_certificateForAnotherHost_isRejected() throws Exception {
    TestHttpServer server = https("wrong-host", false);
    TlsConfig tls = new TlsConfig(pki("ca.pem"), null, null, false);

    ScrapeResult result = scrapeOne(CONFIG, target(server, tls));

    assertThat(result.outcome()).isEqualTo(Outcome.TLS_ERROR);
    assertThat(result.error()).startsWith("TLS handshake failed with 127.0.0.1:" + server.port()
        + ": the server's certificate does not name this host (");
  }

  @Test
  void scrapeAll_insecureSkipVerify_acceptsAnyCertificate() throws Exception {
    TestHttpServer server = https("wrong-host", false);
    TlsConfig tls = new TlsConfig(null, null, null, true);

    ScrapeResult result = scrapeOne(CONFIG, target(server, tls));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
  }

  @Test
  void scrapeAll_clientCertificate_isPresentedForMutualTls() throws Exception {
    TestHttpServer server = https("server", true);
    TlsConfig tls = new TlsConfig(pki("ca.pem"), pki("client.pem"), pki("client.key"), false);

    ScrapeResult result = scrapeOne(CONFIG, target(server, tls));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(peers).singleElement().isEqualTo("CN=gputop-agent");
  }

  @Test
  void scrapeAll_mutualTlsWithoutClientCertificate_isTlsError() throws Exception {
    TestHttpServer server = https("server", true);
    TlsConfig tls = new TlsConfig(pki("ca.pem"), null, null, false);

    // 5s rather than 15s: the deadline may be what ends it (below).
    ScrapeResult result = scrapeOne(FIVE_SECONDS, target(server, tls));

    // TLS 1.3: the server checks the client's certificate after the handshake and hangs up.
    // When the hang-up comes while the request is still being written, Jetty's client does not
    // notice it (the write fails, the failure is kept for a next write that never comes) and
    // the scrape ends at its deadline instead: a TIMEOUT, still naming the host.
    assertThat(result.outcome()).isIn(Outcome.IO_ERROR, Outcome.TLS_ERROR, Outcome.TIMEOUT);
    assertThat(result.error()).contains("127.0.0.1:" + server.port());
    if (result.outcome() == Outcome.IO_ERROR) {
      assertThat(result.error()).endsWith(
          "; if the server requires a client certificate, set tls.certFile and tls.keyFile");
    }
    assertThat(peers).isEmpty();
  }

  @Test
  void scrapeAll_httpsToAPlainHttpPort_saysTheServerDoesNotSpeakTls() throws Exception {
    // Like uvicorn (vLLM, SGLang): a TLS ClientHello is a bad request, answered in plain text.
    RawServer plain = track(new RawServer(socket -> {
      // The whole ClientHello record (5-byte header, then its length), as a server that reads
      // its socket does: one that answered after a partial read and then closed with bytes
      // unread would make the kernel reset the connection, and the client could see the reset
      // (an I/O error) before the answer, which is a race, not what this test asks.
      java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
      byte[] header = new byte[5];
      in.readFully(header);
      in.readFully(new byte[((header[3] & 0xff) << 8) | (header[4] & 0xff)]);
      RawServer.respond(socket, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain",
          bytes("Invalid HTTP request received."));
      RawServer.awaitClientClose(socket);
    }));
    Endpoint target = Endpoint.of("plain",
        java.net.URI.create("https://127.0.0.1:" + plain.port() + "/metrics"));

    ScrapeResult result = scrapeOne(CONFIG, target);

    assertThat(result.outcome()).isEqualTo(Outcome.TLS_ERROR);
    assertThat(result.error()).contains("does not speak TLS on this port (use http://)");
  }

  @Test
  void scrapeAll_missingCaFile_isATlsSetupErrorNamingTheFile() {
    String missing = dir.resolve("missing-ca.pem").toString();
    Endpoint target = new Endpoint("x", java.net.URI.create("https://127.0.0.1:1/metrics"),
        Map.of(), null, new TlsConfig(missing, null, null, false));

    ScrapeResult result = scrapeOne(CONFIG, target);

    assertThat(result.outcome()).isEqualTo(Outcome.TLS_ERROR);
    assertThat(result.error())
        .isEqualTo("TLS setup failed: tls.caFile " + missing + " does not exist");
  }

  @Test
  void scrapeAll_httpsRedirectToHttp_isRejected() throws Exception {
    TestHttpServer server = https("server", false);
    server.handle("/old", exchange -> {
      exchange.getResponseHeaders()
          .set("Location", "http://127.0.0.1:" + server.port() + "/metrics");
      TestHttpServer.send(exchange, 301, null, new byte[0]);
    });
    TlsConfig tls = new TlsConfig(pki("ca.pem"), null, null, false);
    Endpoint target = new Endpoint("down", server.uri("/old"), Map.of(), null, tls);

    ScrapeResult result = scrapeOne(CONFIG, target);

    assertThat(result.outcome()).isEqualTo(Outcome.REDIRECT_REJECTED);
    assertThat(result.error()).isEqualTo("redirect from https to http rejected");
  }

  @Test
  void scrapeAll_clients_areCachedPerTlsSettingAndRebuiltWhenAFileChanges() throws Exception {
    TestHttpServer server = https("server", false);
    Path ca = dir.resolve("ca.pem");
    Files.copy(Path.of(pki("ca.pem")), ca);
    TlsConfig tls = new TlsConfig(ca.toString(), null, null, false);

    try (HttpScraper scraper = scraper(CONFIG)) {
      List<ScrapeResult> results = scraper.scrapeAll(List.of(
          new Endpoint("a", server.uri("/metrics"), Map.of(), null, tls),
          new Endpoint("b", server.uri("/metrics"), Map.of("X-A", "1"), null, tls)));
      assertThat(results).extracting(ScrapeResult::outcome).containsOnly(Outcome.SUCCESS);
      assertThat(scraper.clientCount()).isEqualTo(2); // the default client and the CA's

      Files.setLastModifiedTime(ca, java.nio.file.attribute.FileTime.fromMillis(
          Files.getLastModifiedTime(ca).toMillis() + 60_000));
      assertThat(scraper.scrapeAll(List.of(new Endpoint("a", server.uri("/metrics"), Map.of(),
          null, tls))).get(0).outcome()).isEqualTo(Outcome.SUCCESS);
      assertThat(scraper.clientCount()).isEqualTo(3);
    }
  }

  // --- helpers

  private final List<String> peers = new CopyOnWriteArrayList<>();

  private TestHttpServer https(String certificate, boolean needClientAuth) throws Exception {
    SSLContext context = serverContext(certificate);
    HttpsConfigurator configurator = new HttpsConfigurator(context) {
      @Override
      public void configure(HttpsParameters params) {
        SSLParameters parameters = context.getDefaultSSLParameters();
        parameters.setNeedClientAuth(needClientAuth);
        params.setSSLParameters(parameters);
      }
    };
    return track(TestHttpServer.https(context, configurator)).handle("/metrics", exchange -> {
      if (needClientAuth) {
        var peer = ((HttpsExchange) exchange).getSSLSession().getPeerCertificates()[0];
        peers.add(((X509Certificate) peer).getSubjectX500Principal().getName());
      }
      TestHttpServer.send(exchange, 200, PROMETHEUS_TEXT, bytes(EXPOSITION));
    });
  }

  /** The server side: its key and chain, and the test CA to check client certificates. */
  private static SSLContext serverContext(String name) throws Exception {
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    List<X509Certificate> chain = TlsContexts.readCertificates(pki(name + ".pem"), "server");
    keys.setKeyEntry(name, TlsContexts.readPrivateKey(pki(name + ".key"), "server"), PASSWORD,
        chain.toArray(new X509Certificate[0]));
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, PASSWORD);
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", TlsContexts.readCertificates(pki("ca.pem"), "ca").get(0));
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return context;
  }

  static String pki(String name) {
    try {
      return Path.of(HttpScraperTlsTest.class.getResource("tls/" + name).toURI()).toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Endpoint target(TestHttpServer server, TlsConfig tls) {
    return new Endpoint("secure", server.uri("/metrics"), Map.of(), null, tls);
  }

  private <T extends AutoCloseable> T track(T resource) {
    resources.add(resource);
    return resource;
  }
}
