package dev.gputop.agent;

import static org.assertj.core.api.Assertions.assertThat;

import at.favre.lib.crypto.bcrypt.BCrypt;
import com.sun.net.httpserver.HttpServer;
import dev.gputop.agent.cli.ExitCodes;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listener under siege, against the shaded jar as its own process (docs/RELIABILITY.md,
 * "The listener under siege"): 200 slow clients over plain HTTP and TLS, and 40 clients
 * flooding unknown users and random passwords, each for {@code -Dsiege.seconds} (default 10; the
 * figures in the document are of 30 s runs), with the issue's bounds: every probe answered, p99
 * within 250 ms, the agent's CPU (from /proc) within 1.1 cores, and its scrapes on schedule; and
 * a hostile server's and name's strings through {@code explain} and {@code top}, printed escaped.
 * Loopback only; bounded in connections (200, 40) and time. The sieges are load runs: only in
 * {@code ./mvnw -B verify -Plong} (what .ci/run runs); the hostile strings run in every build.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SiegeIT {

  private static final Duration BURST = Duration.ofSeconds(Long.getLong("siege.seconds", 10));
  private static final double P99_MILLIS = 250;
  private static final double MAX_CORES = 1.1;
  private static final String PASSWORD = "pw-c0rrect-h0rse";
  private static final Duration REFRESH = Duration.ofSeconds(1);
  /**
   * A probe every 50 ms: 200 in a 10 s burst, so that the p99 is of enough probes to mean one
   * (with 100, it is the slowest probe, whatever the rest did).
   */
  private static final int WARM_HANDSHAKES = 150;
  private static final Duration PROBE_EVERY = Duration.ofMillis(Long.getLong("siege.probeMillis", 50));

  /** A label value as a hostile server writes it: OSC title, BEL, C1 CSI, U+202E, an escaped newline. */
  private static final String HOSTILE_EXPOSED = "m\u001b]0;pwned\u0007\u009b31m\u202eevil\\nengine: forged";
  private static final String HOSTILE_SHOWN = "m\\x1b]0;pwned\\x07\\x9b31m\\u202eevil\\x0aengine: forged";

  @TempDir Path dir;
  private HttpServer target;
  private final AtomicInteger scrapes = new AtomicInteger();

  @BeforeAll
  void startTheScrapeTarget() throws Exception {
    // A metrics server the agent scrapes every second: its count says the agent kept its schedule.
    target = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    target.createContext("/hostile", e -> {
      byte[] body = ("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"" + HOSTILE_EXPOSED
          + "\"} 1\n").getBytes(StandardCharsets.UTF_8);
      e.sendResponseHeaders(200, body.length);
      e.getResponseBody().write(body);
      e.close();
    });
    target.createContext("/metrics", e -> {
      int n = scrapes.incrementAndGet();
      byte[] body = ("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} " + n
          + "\n# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} 0\n")
          .getBytes(StandardCharsets.UTF_8);
      e.sendResponseHeaders(200, body.length);
      e.getResponseBody().write(body);
      e.close();
    });
    target.start();
  }

  @AfterAll
  void stopTheScrapeTarget() {
    target.stop(0);
  }

  @Test
  @Tag("long")
  void slowClients_plain() throws Exception {
    slowClients(false);
  }

  @Test
  @Tag("long")
  void slowClients_tls() throws Exception {
    Assumptions.assumeTrue(TestTools.onPath("openssl"), "openssl is needed (.ci/run installs it)");
    slowClients(true);
  }

  private void slowClients(boolean tls) throws Exception {
    String listener = tls ? tlsListener() : "";
    try (AgentProcess agent = start(listener)) {
      String url = agent.awaitListener(Duration.ofSeconds(60));
      SSLContext ssl = tls ? trustingCa() : null;
      // A fresh JVM runs its first TLS handshakes interpreted (tens of ms each on a loaded
      // machine); a listener that has answered a few minutes of probes has them compiled. The
      // siege is measured against the latter: 150 handshakes first, as 150 probes would be.
      for (int i = 0; tls && i < WARM_HANDSHAKES; i++) {
        Siege.get(ssl, URI.create(url + "/livez"), Duration.ofSeconds(10));
      }
      Run run;
      try (Siege.SlowClients slow = Siege.slowClients(address(url), 200, tls, Duration.ofMillis(500))) {
        Thread.sleep(500);
        run = measure(agent, () -> Siege.probe(ssl, URI.create(url + "/healthz"), PROBE_EVERY, BURST,
            Duration.ofSeconds(2)), null);
      }
      System.out.printf("[SiegeIT] %s, 200 slow clients for %d s: /healthz %s; agent %.2f cores; %d scrapes%n",
          tls ? "TLS" : "plain", BURST.toSeconds(), run.probes(), run.cores(), run.scrapes());
      assertAnsweredWithin(run.probes());
      assertThat(run.cores()).isLessThanOrEqualTo(MAX_CORES);
      assertOnSchedule(run);
    }
  }

  @Test
  @Tag("long")
  void passwordFlood_fortyClients() throws Exception {
    Path users = dir.resolve("users");
    Files.writeString(users, "prometheus:" + BCrypt.with(BCrypt.Version.VERSION_2Y).hashToString(10, PASSWORD.toCharArray()) + "\n");
    try (AgentProcess agent = start("listener:\n  auth:\n    basicUsersFile: " + users + "\n")) {
      String url = agent.awaitListener(Duration.ofSeconds(60));
      String basic = "Basic " + Base64.getEncoder().encodeToString(("prometheus:" + PASSWORD).getBytes(StandardCharsets.UTF_8));
      HttpClient http = HttpClient.newHttpClient();
      // Prometheus has scraped once before the flood, as it would have.
      assertThat(http.send(java.net.http.HttpRequest.newBuilder(URI.create(url + "/metrics")).header("Authorization", basic)
          .build(), java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
      Run run;
      Siege.Latencies healthz;
      int sent;
      try (Siege.Flood flood = Siege.passwordFlood(address(url), 40, "/metrics", "prometheus")) {
        Thread.sleep(1000);
        int before = flood.sent.get();
        CompletableFuture<Siege.Latencies> health = CompletableFuture.supplyAsync(() -> probe(url + "/healthz"));
        run = measure(agent, () -> Siege.probe(null, URI.create(url + "/api/snapshot"),
            PROBE_EVERY, BURST, Duration.ofSeconds(2), basic), health);
        healthz = health.get();
        sent = flood.sent.get() - before;
      }
      System.out.printf("[SiegeIT] 40 clients flooding for %d s (%d answers): the correct user %s; /healthz %s;"
          + " agent %.2f cores; %d scrapes%n", BURST.toSeconds(), sent, run.probes(), healthz, run.cores(), run.scrapes());
      assertThat(sent).as("the flood reached the agent").isGreaterThanOrEqualTo(40);
      assertAnsweredWithin(run.probes());
      assertAnsweredWithin(healthz);
      assertThat(run.cores()).isLessThanOrEqualTo(MAX_CORES);
      assertOnSchedule(run);
    }
  }

  @Test
  void hostileStrings_explainAndTopPrintThemEscaped() throws Exception {
    String url = "http://127.0.0.1:" + target.getAddress().getPort() + "/hostile";
    try (AgentProcess explain = AgentProcess.start(dir, Map.of(), "explain", "--url", url)) {
      assertThat(explain.waitFor(Duration.ofSeconds(60))).isEqualTo(ExitCodes.OK);
      assertThat(explain.out()).contains(HOSTILE_SHOWN);
      assertNoControls(explain.out());
      assertThat(explain.out().lines()).noneMatch(l -> l.startsWith("engine: forged"));
    }
    Path config = dir.resolve("hostile.yaml");
    Files.writeString(config, "refresh:\n  normal: 500ms\nnvml:\n  enabled: false\ninference:\n  discovery:\n"
        + "    enabled: false\n  endpoints:\n    - name: \"chat\\e]2;pwned\\a\\u009b31m\\u202eevil\"\n      url: " + url + "\n");
    try (AgentProcess top = AgentProcess.start(dir, Map.of(), "top", "--plain", "--for", "2s", "--config", config.toString())) {
      assertThat(top.waitFor(Duration.ofSeconds(60))).isEqualTo(ExitCodes.OK);
      assertThat(top.out()).contains("chat\\x1b]2;pwned\\x07\\x9b"); // the column cuts the rest
      assertNoControls(top.out());
    }
  }

  private static void assertNoControls(String out) {
    assertThat(out.chars().filter(c -> c != '\n' && dev.gputop.config.internal.TerminalText.unsafe(c))).isEmpty();
  }

  // ------------------------------------------------------------------ helpers

  /** One burst: the probes' latencies, the agent's CPU in cores, the scrapes it made meanwhile. */
  private record Run(Siege.Latencies probes, double cores, int scrapes, double seconds) {}

  private interface Probes {
    Siege.Latencies run() throws Exception;
  }

  private Run measure(AgentProcess agent, Probes probes, CompletableFuture<?> alongside) throws Exception {
    long cpu = Siege.cpuNanos(agent.pid());
    long wall = System.nanoTime();
    int scraped = scrapes.get();
    Siege.Latencies latencies = probes.run();
    if (alongside != null) {
      alongside.get();
    }
    long elapsed = System.nanoTime() - wall;
    return new Run(latencies, (Siege.cpuNanos(agent.pid()) - cpu) / (double) elapsed, scrapes.get() - scraped, elapsed / 1e9);
  }

  private static void assertAnsweredWithin(Siege.Latencies probes) {
    assertThat(probes.failures()).as(probes.toString()).isZero();
    assertThat(probes.statuses()).as(probes.toString()).containsOnly(200);
    assertThat(probes.quantileMillis(0.99)).as(probes.toString()).isLessThanOrEqualTo(P99_MILLIS);
  }

  /** A scrape a second: at most one missed at each end of the burst. */
  private static void assertOnSchedule(Run run) {
    assertThat(run.scrapes()).as("scrapes in %.1f s", run.seconds())
        .isGreaterThanOrEqualTo((int) (run.seconds() / REFRESH.toSeconds()) - 2);
  }

  private Siege.Latencies probe(String url) {
    try {
      return Siege.probe(null, URI.create(url), PROBE_EVERY, BURST, Duration.ofSeconds(2));
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private AgentProcess start(String listener) throws Exception {
    Path config = dir.resolve("agent-" + System.nanoTime() + ".yaml");
    Files.writeString(config, "listen: 127.0.0.1:0\nrefresh:\n  normal: " + REFRESH.toSeconds() + "s\n"
        + "nvml:\n  enabled: false\ninference:\n  discovery:\n    enabled: false\n  endpoints:\n"
        + "    - name: chat\n      url: http://127.0.0.1:" + target.getAddress().getPort() + "/metrics\n" + listener);
    return AgentProcess.start(dir, Map.of(), List.of("-Xmx256m"), "run", "--config", config.toString());
  }

  private static InetSocketAddress address(String url) {
    URI u = URI.create(url);
    return new InetSocketAddress(u.getHost(), u.getPort());
  }

  private String tlsListener() throws Exception {
    Path pki = dir.resolve("pki");
    if (!Files.isDirectory(pki)) {
      Files.createDirectories(pki);
      TestTools.ca(pki, "ca", "/CN=siege CA");
      TestTools.issue(pki, "ca", "server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1");
    }
    return "listener:\n  tls:\n    certFile: " + pki.resolve("server.pem") + "\n    keyFile: " + pki.resolve("server.key") + "\n";
  }

  private SSLContext trustingCa() throws Exception {
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    try (var in = Files.newInputStream(dir.resolve("pki").resolve("ca.pem"))) {
      ks.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    return ssl;
  }
}
