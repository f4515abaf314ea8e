package dev.gputop.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.agent.Siege;
import dev.gputop.agent.TestTools;
import dev.gputop.config.ListenerConfig;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slow and idle clients can't fill the listener (docs/RELIABILITY.md, "The listener under
 * siege"): with 200 connections trickling request headers or a TLS ClientHello, a probe on a new
 * connection gets /healthz within the issue's 250 ms (p99), over plain HTTP and TLS; and the
 * connections past their header or handshake deadline are closed (the deadline clock is moved
 * by the test, the sweep is the listener's own). The two sieges are load runs, only in {@code
 * ./mvnw -B verify -Plong} (what .ci/run runs); the deadlines are checked in every build.
 */
class ListenerSiegeTest {

  /** The issue's bound on a probe's answer under siege. */
  private static final double P99_MILLIS = 250;
  private static final int SLOW_CLIENTS = 200;

  @TempDir static Path pki;

  private final TestListener listener = new TestListener();
  private AgentHttpServer server;
  private final AtomicLong nanos = new AtomicLong();

  @BeforeAll
  static void makeCertificates() throws Exception {
    Assumptions.assumeTrue(TestTools.onPath("openssl"), "openssl is needed (.ci/run installs it)");
    TestTools.ca(pki, "ca", "/CN=siege CA");
    TestTools.issue(pki, "ca", "server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1");
  }

  @AfterEach
  void stop() {
    listener.close();
  }

  @Test
  @Tag("long")
  void slowHeaderClients_healthzAnswersEveryProbeWithin250ms() throws Exception {
    start(ListenerConfig.defaults());
    Siege.Latencies probes;
    try (Siege.SlowClients slow = Siege.slowClients(address(), SLOW_CLIENTS, false, Duration.ofMillis(500))) {
      Thread.sleep(500); // every slow client has sent its first bytes
      probes = Siege.probe(null, URI.create(server.url() + "/healthz"),
          Duration.ofMillis(100), Duration.ofSeconds(4), Duration.ofSeconds(2));
    }
    System.out.println("[ListenerSiegeTest] plain, " + SLOW_CLIENTS + " slow clients: " + probes);
    assertThat(probes.failures()).as(probes.toString()).isZero();
    assertThat(probes.statuses()).containsOnly(200);
    assertThat(probes.quantileMillis(0.99)).as(probes.toString()).isLessThanOrEqualTo(P99_MILLIS);
  }

  @Test
  @Tag("long")
  void slowTlsHandshakes_healthzAnswersEveryProbeWithin250ms() throws Exception {
    start(tls());
    SSLContext ssl = trustingCa();
    Siege.Latencies probes;
    try (Siege.SlowClients slow = Siege.slowClients(address(), SLOW_CLIENTS, true, Duration.ofMillis(500))) {
      Thread.sleep(500);
      probes = Siege.probe(ssl, URI.create(server.url() + "/healthz"),
          Duration.ofMillis(100), Duration.ofSeconds(4), Duration.ofSeconds(2));
    }
    System.out.println("[ListenerSiegeTest] TLS, " + SLOW_CLIENTS + " slow handshakes: " + probes);
    assertThat(probes.failures()).as(probes.toString()).isZero();
    assertThat(probes.statuses()).containsOnly(200);
    assertThat(probes.quantileMillis(0.99)).as(probes.toString()).isLessThanOrEqualTo(P99_MILLIS);
  }

  @Test
  void headersNotFinishedInTime_theConnectionIsClosed_aRequestThatFinishesIsServed() throws Exception {
    start(ListenerConfig.defaults());
    try (Socket slow = connect(); Socket prompt = connect()) {
      write(slow, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
      Thread.sleep(2 * ConnectionDeadlines.SWEEP.toMillis()); // a sweep has seen it reading headers
      nanos.addAndGet(AgentHttpServer.HEADERS_TIMEOUT.toNanos() + 1);

      assertThat(readAll(slow)).as("closed by the listener, without an answer").isEmpty();
      write(prompt, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      assertThat(readAll(prompt)).startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void handshakeNotFinishedInTime_theConnectionIsClosed() throws Exception {
    start(tls());
    try (Socket slow = connect()) {
      slow.getOutputStream().write(new byte[] {0x16, 0x03, 0x01});
      slow.getOutputStream().flush();
      Thread.sleep(2 * ConnectionDeadlines.SWEEP.toMillis());
      nanos.addAndGet(AgentHttpServer.HANDSHAKE_TIMEOUT.toNanos() + 1);

      assertThat(readAll(slow)).as("closed by the listener").isEmpty();
    }
  }

  // ------------------------------------------------------------------ helpers

  private void start(ListenerConfig config) {
    server = listener.start(config, nanos::get);
  }

  private InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", server.port());
  }

  private Socket connect() throws Exception {
    Socket s = new Socket();
    s.connect(address(), 2000);
    s.setSoTimeout(5000);
    return s;
  }

  private static void write(Socket s, String text) throws Exception {
    OutputStream out = s.getOutputStream();
    out.write(text.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** What the listener sent until it closed the connection; fails when it keeps it open 5 s. */
  private static String readAll(Socket s) throws Exception {
    InputStream in = s.getInputStream();
    try {
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the listener kept the connection open", e);
    }
  }

  private static ListenerConfig tls() {
    return new ListenerConfig(pki.resolve("server.pem").toString(), pki.resolve("server.key").toString(), null, null,
        null, ListenerConfig.DEFAULT_EXEMPT_PATHS);
  }

  private static SSLContext trustingCa() throws Exception {
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    try (var in = Files.newInputStream(pki.resolve("ca.pem"))) {
      ks.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    return ssl;
  }
}
