package dev.gputop.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import at.favre.lib.crypto.bcrypt.BCrypt;
import dev.gputop.agent.TestTools;
import dev.gputop.agent.cli.Main;
import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.config.ListenerConfig;
import dev.gputop.testing.LogCapture;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listener exposed safely: TLS with real clients (the JDK's HttpClient and curl), mutual TLS,
 * bearer tokens and bcrypt basic users, files re-read when they change, 401s, and no secret in
 * any log record, response, {@code check-config} output or error. Certificates are made by
 * openssl for each test class (EC P-256, a CA, a server for 127.0.0.1, a client, and a client of
 * another CA).
 */
class ListenerSecurityTest {

  private static final String TOKEN = "tok-3f9a1c2e7b5d";
  private static final String ROTATED = "tok-rotated-8e2d";
  private static final String PASSWORD = "pw-c0rrect-h0rse";
  private static final List<String> SECRETS = List.of(TOKEN, ROTATED, PASSWORD);

  @TempDir static Path pki;
  @TempDir Path dir;

  private LogCapture capture;
  private final List<String> outputs = new ArrayList<>();
  private final TestListener listener = new TestListener();
  private AgentHttpServer server;

  @BeforeAll
  static void makeCertificates() throws Exception {
    Assumptions.assumeTrue(onPath("openssl") && onPath("curl"), "openssl and curl are needed (.ci/run installs them)");
    TestTools.ca(pki, "ca", "/CN=listener test CA");
    TestTools.issue(pki, "ca", "server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1");
    TestTools.issue(pki, "ca", "client", "/CN=prometheus", "extendedKeyUsage=clientAuth");
    TestTools.ca(pki, "rogue-ca", "/CN=rogue CA");
    TestTools.issue(pki, "rogue-ca", "rogue", "/CN=prometheus", "extendedKeyUsage=clientAuth");
  }

  /** Held, and set to INFO: another test in this JVM (the demo) may have quieted the root logger. */
  private final Logger securityLogger = Logger.getLogger(ListenerSecurity.class.getName());

  @BeforeEach
  void captureLogs() {
    capture = LogCapture.attach(Logger.getLogger(""), Level.ALL);
    securityLogger.setLevel(Level.INFO);
  }

  @AfterEach
  void stop() {
    listener.close();
    capture.close();
    securityLogger.setLevel(null);
    // Nothing the agent wrote anywhere names a secret.
    for (LogRecord r : capture.records()) {
      String text = r.getMessage() + (r.getThrown() == null ? "" : " " + r.getThrown());
      assertThat(SECRETS).noneMatch(text::contains);
    }
    for (String out : outputs) {
      assertThat(SECRETS).noneMatch(out::contains);
    }
  }

  @Test
  void tls_clientsThatTrustTheCa_getMetricsAndOthersFailTheHandshake() throws Exception {
    start(tls(null));

    assertThat(server.url()).startsWith("https://127.0.0.1:");
    HttpResponse<String> ok = jdk(trusting("ca.pem")).send(get("/healthz"), HttpResponse.BodyHandlers.ofString());
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThatThrownBy(() -> jdk(trusting("rogue-ca.pem")).send(get("/healthz"), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(SSLHandshakeException.class);

    assertThat(curl("--cacert", pem("ca.pem"), server.url() + "/healthz")).isEqualTo(new Curl(0, 200));
    assertThat(curl(server.url() + "/healthz").exit()).isEqualTo(60); // peer certificate not trusted
  }

  @Test
  void mutualTls_clientCertificateOfTheCaIsRequired() throws Exception {
    start(tls(pem("ca.pem")));

    assertThat(curl("--cacert", pem("ca.pem"), "--cert", pem("client.pem"), "--key", pem("client.key"),
        server.url() + "/metrics")).isEqualTo(new Curl(0, 404)); // no Prometheus reader here: 404, but served
    assertThat(curl("--cacert", pem("ca.pem"), server.url() + "/healthz").exit()).isNotZero();
    assertThat(curl("--cacert", pem("ca.pem"), "--cert", pem("rogue.pem"), "--key", pem("rogue.key"),
        server.url() + "/healthz").exit()).isNotZero();
  }

  @Test
  void bearerToken_wrongOrMissingIs401_healthzIsExempt_rotationIsPickedUp() throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, TOKEN + "\n");
    start(new ListenerConfig(null, null, null, token.toString(), null, ListenerConfig.DEFAULT_EXEMPT_PATHS));
    HttpClient http = HttpClient.newHttpClient();

    HttpResponse<String> none = http.send(get("/api/snapshot"), HttpResponse.BodyHandlers.ofString());
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"gputop-agent\"");
    assertThat(http.send(get("/api/snapshot", "Bearer nope"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
    HttpResponse<String> ok = http.send(get("/api/snapshot", "Bearer " + TOKEN), HttpResponse.BodyHandlers.ofString());
    assertThat(ok.statusCode()).isEqualTo(200);
    outputs.add(ok.body());
    assertThat(http.send(get("/healthz"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);

    Files.writeString(token, ROTATED);
    Files.setLastModifiedTime(token, FileTime.fromMillis(Files.getLastModifiedTime(token).toMillis() + 2000));
    assertThat(http.send(get("/api/snapshot", "Bearer " + TOKEN), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
    assertThat(http.send(get("/api/snapshot", "Bearer " + ROTATED), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);

    // The rejections were logged once (throttled per client, successes between them or not),
    // never with the token: the missing token; the wrong ones are in the next minute's reminder.
    assertThat(capture.records()).filteredOn(r -> r.getLevel() == Level.WARNING)
        .extracting(LogRecord::getMessage)
        .containsExactly("Listener requests from 127.0.0.1 failed: 401: no credentials");
  }

  @Test
  void basicUsers_bcryptOfEveryHtpasswdVersion_overTlsWithCurl() throws Exception {
    Path users = dir.resolve("users");
    Files.writeString(users, "# htpasswd -nB\n"
        + "alice:" + BCrypt.with(BCrypt.Version.VERSION_2Y).hashToString(5, PASSWORD.toCharArray()) + "\n"
        + "bob:" + BCrypt.with(BCrypt.Version.VERSION_2A).hashToString(5, PASSWORD.toCharArray()) + "\n"
        + "carol:" + BCrypt.with(BCrypt.Version.VERSION_2B).hashToString(5, PASSWORD.toCharArray()) + "\n");
    ListenerConfig config = new ListenerConfig(pem("server.pem"), pem("server.key"), null, null, users.toString(),
        ListenerConfig.DEFAULT_EXEMPT_PATHS);
    start(config);

    for (String user : List.of("alice", "bob", "carol")) {
      assertThat(curl("--cacert", pem("ca.pem"), "-u", user + ":" + PASSWORD, server.url() + "/api/snapshot"))
          .as(user).isEqualTo(new Curl(0, 200));
    }
    assertThat(curl("--cacert", pem("ca.pem"), "-u", "alice:wrong", server.url() + "/api/snapshot")).isEqualTo(new Curl(0, 401));
    assertThat(curl("--cacert", pem("ca.pem"), "-u", "mallory:" + PASSWORD, server.url() + "/api/snapshot")).isEqualTo(new Curl(0, 401));
    HttpResponse<String> none = jdk(trusting("ca.pem")).send(get("/api/snapshot"), HttpResponse.BodyHandlers.ofString());
    assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"gputop-agent\", charset=\"UTF-8\"");
  }

  @Test
  void badFiles_stopTheListenerWithAReasonThatQuotesNoSecret() throws Exception {
    Path users = dir.resolve("users");
    Files.writeString(users, "alice:" + PASSWORD + "\n"); // a password where the hash belongs
    ListenerConfig config = new ListenerConfig(null, null, null, null, users.toString(), ListenerConfig.DEFAULT_EXEMPT_PATHS);
    AgentRuntime runtime = listener.runtime(config);

    assertThatThrownBy(() -> AgentHttpServer.start("127.0.0.1:0", runtime, null, config))
        .satisfies(e -> outputs.add(String.valueOf(e.getMessage())))
        .hasMessage("can't listen on 127.0.0.1:0: listener.auth.basicUsersFile " + users
            + " line 1: expected user:bcrypt-hash ($2y$, $2a$ or $2b$, as htpasswd -nB writes it)");
    ListenerConfig badKey = new ListenerConfig(pem("server.pem"), pem("server.pem"), null, null, null, List.of());
    assertThatThrownBy(() -> AgentHttpServer.start("127.0.0.1:0", runtime, null, badKey))
        .hasMessageContaining("listener.tls.keyFile " + pem("server.pem") + " contains no PEM private key");
  }

  @Test
  void checkConfig_printsTheFilesButNoSecret() throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, TOKEN);
    Path file = dir.resolve("agent.yaml");
    Files.writeString(file, "listen: 0.0.0.0:9464\nlistener:\n  tls:\n    certFile: " + pem("server.pem")
        + "\n    keyFile: " + pem("server.key") + "\n  auth:\n    bearerTokenFile: " + token + "\n");
    StringWriter out = new StringWriter();
    picocli.CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(new StringWriter()));
    int exit = cl.execute("check-config", "--config", file.toString());
    outputs.add(out.toString());

    assertThat(exit).isZero();
    assertThat(out.toString()).contains("bearerTokenFile: " + token).contains("certFile: " + pem("server.pem"));
  }

  @Test
  void exposureWarning_onlyForAnotherHostsAddressWithoutTlsOrAuth() {
    ListenerConfig open = ListenerConfig.defaults();
    assertThat(AgentHttpServer.exposureWarning("0.0.0.0:9464", new InetSocketAddress("0.0.0.0", 9464), open))
        .startsWith("listening on 0.0.0.0:9464 without TLS or authentication");
    assertThat(AgentHttpServer.exposureWarning("127.0.0.1:9464", new InetSocketAddress("127.0.0.1", 9464), open)).isNull();
    ListenerConfig token = new ListenerConfig(null, null, null, "/t", null, List.of());
    assertThat(AgentHttpServer.exposureWarning("0.0.0.0:9464", new InetSocketAddress("0.0.0.0", 9464), token)).isNull();
  }

  // ------------------------------------------------------------------ helpers

  private static ListenerConfig tls(String clientCa) {
    return new ListenerConfig(pem("server.pem"), pem("server.key"), clientCa, null, null, ListenerConfig.DEFAULT_EXEMPT_PATHS);
  }

  private void start(ListenerConfig config) {
    server = listener.start(config);
  }

  private HttpRequest get(String path, String... authorization) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(Duration.ofSeconds(20));
    if (authorization.length > 0) {
      b.header("Authorization", authorization[0]);
    }
    return b.build();
  }

  private static HttpClient jdk(SSLContext ssl) {
    return HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(20)).build();
  }

  private static SSLContext trusting(String ca) throws Exception {
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    try (var in = Files.newInputStream(pki.resolve(ca))) {
      ks.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    return ssl;
  }

  private static String pem(String name) {
    return pki.resolve(name).toString();
  }

  /** curl's exit code and the HTTP status it got (0 when none). */
  record Curl(int exit, int status) {}

  private Curl curl(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}",
        "--max-time", "20"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    outputs.add(out);
    String digits = out.replaceAll("(?s).*?(\\d{3})$", "$1");
    return new Curl(p.exitValue(), digits.matches("\\d{3}") ? Integer.parseInt(digits) : 0);
  }

  private static boolean onPath(String tool) {
    return TestTools.onPath(tool);
  }
}
