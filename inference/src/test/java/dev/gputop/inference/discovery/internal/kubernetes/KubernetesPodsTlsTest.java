package dev.gputop.inference.discovery.internal.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.ManualClock;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.gputop.config.KubernetesConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pod lookup over TLS, against an in-test kubelet with a self-signed certificate made by the
 * JDK's keytool: trusted through kubernetes.caFile, or accepted with insecureSkipVerify.
 */
@Timeout(120)
class KubernetesPodsTlsTest {

  /** The key pairs, made once for the class: each keytool run is a JVM start (about a second). */
  @TempDir static Path tmp;
  static Path caFile;
  static Path wrongCaFile;
  static SSLContext ssl;
  HttpsServer server;
  final ManualClock clock = new ManualClock(5_000_000_000L, 5_000_000_000L);

  @BeforeAll
  static void makeKeyPairs() throws Exception {
    Path keystore = keytoolKeyPair("kubelet", "kubelet.p12", "ip:127.0.0.1");
    caFile = tmp.resolve("ca.crt");
    keytool("-exportcert", "-rfc", "-alias", "kubelet", "-keystore", keystore.toString(), "-storepass", "changeit",
        "-file", caFile.toString());
    Path other = keytoolKeyPair("other", "other.p12", "ip:127.0.0.1");
    wrongCaFile = tmp.resolve("other.crt");
    keytool("-exportcert", "-rfc", "-alias", "other", "-keystore", other.toString(), "-storepass", "changeit",
        "-file", wrongCaFile.toString());

    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore)) {
      ks.load(in, "changeit".toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, "changeit".toCharArray());
    ssl = SSLContext.getInstance("TLS");
    ssl.init(kmf.getKeyManagers(), null, null);
  }

  @BeforeEach
  void startKubelet() throws Exception {
    byte[] pods;
    try (InputStream in = getClass().getResourceAsStream("/discovery/kubernetes/pods.json")) {
      pods = in.readAllBytes();
    }
    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(ssl));
    server.createContext("/pods", ex -> {
      ex.sendResponseHeaders(200, pods.length);
      ex.getResponseBody().write(pods);
      ex.close();
    });
    server.start();
  }

  @AfterEach
  void tearDown() {
    if (server != null) {
      server.stop(0);
    }
  }

  private static Path keytoolKeyPair(String alias, String file, String san) throws IOException, InterruptedException {
    Path ks = tmp.resolve(file);
    keytool("-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + alias,
        "-ext", "san=" + san, "-validity", "2", "-storetype", "PKCS12", "-keystore", ks.toString(),
        "-storepass", "changeit", "-keypass", "changeit");
    return ks;
  }

  private static void keytool(String... args) throws IOException, InterruptedException {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    List<String> cmd = new java.util.ArrayList<>(List.of(keytool.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException("keytool failed: " + out);
    }
  }

  private KubernetesPods pods(String ca, boolean insecure) {
    KubernetesConfig cfg = new KubernetesConfig(true, null, "https://127.0.0.1:" + server.getAddress().getPort(),
        null, null, ca, insecure, Duration.ofSeconds(30));
    KubernetesPods pods = KubernetesPods.create(cfg, clock, Map.<String, String>of()::get);
    pods.refreshIfDue();
    return pods;
  }

  @Test
  void refreshIfDue_trustsTheConfiguredCa() {
    KubernetesPods pods = pods(caFile.toString(), false);
    assertThat(pods.problem()).isNull();
    assertThat(pods.find(KubernetesPodsTest.VLLM_ID, null).podIp()).isEqualTo("10.244.1.17");
  }

  @Test
  void refreshIfDue_rejectsAnUntrustedCertificate() {
    KubernetesPods pods = pods(wrongCaFile.toString(), false);
    assertThat(pods.problem()).startsWith("pod list from kubelet https://127.0.0.1:");
    assertThat(pods.find(KubernetesPodsTest.VLLM_ID, null)).isNull();
  }

  @Test
  void refreshIfDue_insecureSkipVerifyAcceptsAnyCertificate() {
    KubernetesPods pods = pods(wrongCaFile.toString(), true);
    assertThat(pods.problem()).isNull();
    assertThat(pods.find(KubernetesPodsTest.TGI_ID, null).name()).isEqualTo("tgi-0");
  }
}
