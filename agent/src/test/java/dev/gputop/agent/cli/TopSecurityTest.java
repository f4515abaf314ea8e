package dev.gputop.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import at.favre.lib.crypto.bcrypt.BCrypt;
import dev.gputop.agent.TestTools;
import dev.gputop.agent.http.AgentHttpServer;
import dev.gputop.agent.http.TestListener;
import dev.gputop.config.ListenerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code top --url} against a protected listener started here (TLS from an openssl-made CA, a
 * bearer token, basic users, mutual TLS): it reads the agent with the right token and CA, and
 * stops with one clear line, never a stack trace and never the secret, with a wrong or missing
 * token, without the CA, or without the client certificate.
 */
class TopSecurityTest {

  private static final String TOKEN = "tok-top-5c1e9a77d2";
  private static final String PASSWORD = "pw-top-b4tt3ry-st4ple";

  @TempDir static Path pki;
  @TempDir Path dir;

  private final Level rootLevel = Logger.getLogger("").getLevel();
  private final TestListener testListener = new TestListener();
  private AgentHttpServer server;

  @BeforeAll
  static void makeCertificates() throws Exception {
    Assumptions.assumeTrue(onPath("openssl"), "openssl is needed (.ci/run installs it)");
    TestTools.ca(pki, "ca", "/CN=top test CA");
    TestTools.issue(pki, "ca", "server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1");
    TestTools.issue(pki, "ca", "client", "/CN=top", "extendedKeyUsage=clientAuth");
  }

  @AfterEach
  void stop() {
    testListener.close();
    Logger.getLogger("").setLevel(rootLevel); // top quiets the root logger
  }

  @Test
  void bearerTokenOverTls_rightTokenAndCa_readsTheAgent() throws Exception {
    Path token = token(TOKEN);
    start(new ListenerConfig(pem("server.pem"), pem("server.key"), null, token.toString(), null,
        ListenerConfig.DEFAULT_EXEMPT_PATHS));

    CliRuns.Result run = top("--bearer-token-file", token.toString(), "--ca-file", pem("ca.pem"));

    assertThat(run.code()).as(run.all()).isZero();
    assertThat(run.out()).startsWith("gputop-agent top · " + server.url()).doesNotContain("can't read");
    assertThat(run.err()).isEmpty();
    assertThat(run.all()).doesNotContain(TOKEN);
  }

  @Test
  void bearerTokenOverTls_wrongOrMissingTokenOrNoCa_stopsWithOneClearLine() throws Exception {
    Path token = token(TOKEN);
    Path wrong = dir.resolve("wrong");
    Files.writeString(wrong, "tok-wrong-0d3f11\n");
    start(new ListenerConfig(pem("server.pem"), pem("server.key"), null, token.toString(), null,
        ListenerConfig.DEFAULT_EXEMPT_PATHS));

    CliRuns.Result bad = top("--bearer-token-file", wrong.toString(), "--ca-file", pem("ca.pem"));
    assertThat(bad.code()).isEqualTo(ExitCodes.IO);
    assertThat(bad.out()).isEmpty();
    assertThat(bad.err()).isEqualTo("I/O error: the agent at " + server.url()
        + " answered 401: the token in --bearer-token-file " + wrong + " was refused\n");
    assertThat(bad.all()).doesNotContain("tok-wrong-0d3f11").doesNotContain(TOKEN);

    CliRuns.Result none = top("--ca-file", pem("ca.pem"));
    assertThat(none.code()).isEqualTo(ExitCodes.IO);
    assertThat(none.err()).isEqualTo("I/O error: the agent at " + server.url()
        + " answered 401: give --bearer-token-file or --basic-user\n");

    CliRuns.Result untrusted = top("--bearer-token-file", token.toString());
    assertThat(untrusted.code()).isEqualTo(ExitCodes.IO);
    assertThat(untrusted.err()).isEqualTo("I/O error: the agent at " + server.url()
        + " presented a certificate that is not trusted: give --ca-file with the CA that signed it\n");
    assertThat(untrusted.all()).doesNotContain(TOKEN);
  }

  @Test
  void basicUser_rightPasswordReads_wrongPasswordIsRefused() throws Exception {
    Path users = dir.resolve("users");
    Files.writeString(users, "alice:" + BCrypt.with(BCrypt.Version.VERSION_2Y).hashToString(5, PASSWORD.toCharArray()) + "\n");
    start(new ListenerConfig(pem("server.pem"), pem("server.key"), null, null, users.toString(),
        ListenerConfig.DEFAULT_EXEMPT_PATHS));

    CliRuns.Result ok = top("--basic-user", "alice", "--basic-password-file", token(PASSWORD).toString(), "--ca-file", pem("ca.pem"));
    assertThat(ok.code()).as(ok.all()).isZero();
    assertThat(ok.out()).doesNotContain("can't read");
    Path wrong = dir.resolve("wrong-password");
    Files.writeString(wrong, "pw-nope-77\n");
    CliRuns.Result bad = top("--basic-user", "alice", "--basic-password-file", wrong.toString(), "--ca-file", pem("ca.pem"));
    assertThat(bad.err()).isEqualTo("I/O error: the agent at " + server.url()
        + " answered 401: user alice with --basic-password-file " + wrong + " was refused\n");
    assertThat(ok.all() + bad.all()).doesNotContain(PASSWORD).doesNotContain("pw-nope-77");
  }

  @Test
  void mutualTls_clientCertificateIsPresented_andItsAbsenceIsExplained() throws Exception {
    start(new ListenerConfig(pem("server.pem"), pem("server.key"), pem("ca.pem"), null, null,
        ListenerConfig.DEFAULT_EXEMPT_PATHS));

    CliRuns.Result ok = top("--ca-file", pem("ca.pem"), "--cert-file", pem("client.pem"), "--key-file", pem("client.key"));
    assertThat(ok.code()).as(ok.all()).isZero();
    assertThat(ok.out()).doesNotContain("can't read");

    CliRuns.Result without = top("--ca-file", pem("ca.pem"));
    assertThat(without.code()).as(without.all()).isEqualTo(ExitCodes.IO);
    assertThat(without.err()).startsWith("I/O error: ").contains("the agent at " + server.url())
        .contains("listener.tls.clientCaFile needs --cert-file and --key-file").hasLineCount(1);
  }

  @Test
  void badOptions_areUsageErrorsNamingTheFileNotItsContent() throws Exception {
    start(ListenerConfig.defaults());
    Path multi = dir.resolve("two-lines");
    Files.writeString(multi, TOKEN + "\nsecond\n");

    CliRuns.Result missing = top("--bearer-token-file", dir.resolve("absent").toString());
    assertThat(missing.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(missing.err()).startsWith("usage error: --bearer-token-file " + dir.resolve("absent") + " does not exist\n");
    CliRuns.Result twoLines = top("--bearer-token-file", multi.toString());
    assertThat(twoLines.err()).startsWith("usage error: --bearer-token-file " + multi
        + " holds more than one line or a character not allowed in a token\n");
    assertThat(twoLines.all()).doesNotContain(TOKEN);
    assertThat(top("--basic-user", "alice").err())
        .startsWith("usage error: --basic-user and --basic-password-file must be given together\n");
    assertThat(top("--cert-file", pem("client.pem")).err())
        .startsWith("usage error: --cert-file and --key-file must be given together\n");
    assertThat(top("--ca-file", pem("client.key")).err())
        .startsWith("usage error: --ca-file " + pem("client.key") + " contains no PEM certificate");
  }

  // ------------------------------------------------------------------ helpers

  private Path token(String secret) throws IOException {
    Path file = Files.createTempFile(dir, "secret", "");
    Files.writeString(file, secret + "\n");
    return file;
  }

  private void start(ListenerConfig listener) {
    server = testListener.start(listener);
  }

  /** {@code top --url <the listener> --plain --for 1ms} and {@code options}: one screen. */
  private CliRuns.Result top(String... options) {
    List<String> args = new ArrayList<>(List.of("top", "--url", server.url(), "--plain", "--for", "1ms"));
    args.addAll(List.of(options));
    return CliRuns.run(args.toArray(new String[0]));
  }

  private static String pem(String name) {
    return pki.resolve(name).toString();
  }

  private static boolean onPath(String tool) {
    return TestTools.onPath(tool);
  }
}
