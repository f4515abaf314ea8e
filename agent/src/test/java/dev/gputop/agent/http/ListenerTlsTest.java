package dev.gputop.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.agent.TestTools;
import dev.gputop.config.ListenerConfig;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listener's TLS versions and cipher suites, tried by a client offering one version and one
 * suite at a time: by default TLS 1.2 and 1.3 with forward-secret AEAD suites only (Mozilla's
 * "intermediate"), so static RSA and CBC are refused; {@code listener.tls.minVersion} and
 * {@code listener.tls.cipherSuites} narrow it. An EC and an RSA certificate, made by openssl.
 */
class ListenerTlsTest {

  @TempDir static Path pki;

  private final TestListener listener = new TestListener();
  private AgentHttpServer server;

  @BeforeAll
  static void makeCertificates() throws Exception {
    Assumptions.assumeTrue(TestTools.onPath("openssl"), "openssl is needed (.ci/run installs it)");
    TestTools.ca(pki, "ca", "/CN=tls test CA");
    TestTools.issue(pki, "ca", "ec", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1", TestTools.EC_KEY);
    TestTools.issue(pki, "ca", "rsa", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1", TestTools.RSA_KEY);
  }

  @AfterEach
  void stop() {
    listener.close();
  }

  @Test
  void byDefault_tls12And13WithForwardSecretAeadOnly_noStaticRsaNoCbc() throws Exception {
    start("ec", ListenerConfig.DEFAULT_TLS_MIN_VERSION, ListenerConfig.DEFAULT_CIPHER_SUITES);
    assertThat(handshake("TLSv1.3", "TLS_AES_128_GCM_SHA256")).isEqualTo("TLSv1.3 TLS_AES_128_GCM_SHA256");
    assertThat(handshake("TLSv1.3", "TLS_CHACHA20_POLY1305_SHA256")).isEqualTo("TLSv1.3 TLS_CHACHA20_POLY1305_SHA256");
    assertThat(handshake("TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"))
        .isEqualTo("TLSv1.2 TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
    assertThat(handshake("TLSv1.2", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"))
        .isEqualTo("TLSv1.2 TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256");
    // CBC with SHA-1 and with SHA-384: the JDK's defaults offered both.
    assertThat(handshake("TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA")).isEqualTo("refused");
    assertThat(handshake("TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384")).isEqualTo("refused");
  }

  @Test
  void byDefault_withAnRsaCertificate_staticRsaIsRefused_ecdheRsaServed() throws Exception {
    start("rsa", ListenerConfig.DEFAULT_TLS_MIN_VERSION, ListenerConfig.DEFAULT_CIPHER_SUITES);
    assertThat(handshake("TLSv1.2", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384")).isEqualTo("TLSv1.2 TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
    assertThat(handshake("TLSv1.2", "TLS_RSA_WITH_AES_128_GCM_SHA256")).isEqualTo("refused");
    assertThat(handshake("TLSv1.2", "TLS_RSA_WITH_AES_128_CBC_SHA")).isEqualTo("refused");
    assertThat(handshake("TLSv1.2", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA")).isEqualTo("refused");
  }

  @Test
  void minVersion13_refusesTls12() throws Exception {
    start("ec", "1.3", ListenerConfig.DEFAULT_CIPHER_SUITES);
    assertThat(handshake("TLSv1.3", "TLS_AES_256_GCM_SHA384")).isEqualTo("TLSv1.3 TLS_AES_256_GCM_SHA384");
    assertThat(handshake("TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")).isEqualTo("refused");
  }

  @Test
  void configuredCipherSuites_areExactlyTheOnesOffered() throws Exception {
    start("ec", "1.2", List.of("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"));
    assertThat(handshake("TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"))
        .isEqualTo("TLSv1.2 TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384");
    assertThat(handshake("TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")).isEqualTo("refused");
    assertThat(handshake("TLSv1.3", "TLS_AES_128_GCM_SHA256")).isEqualTo("refused"); // no 1.3 suite listed
  }

  // ------------------------------------------------------------------ helpers

  private void start(String cert, String minVersion, List<String> suites) {
    ListenerConfig config = new ListenerConfig(pki.resolve(cert + ".pem").toString(), pki.resolve(cert + ".key").toString(),
        null, null, null, ListenerConfig.DEFAULT_EXEMPT_PATHS, minVersion, suites);
    server = listener.start(config);
  }

  /** "protocol suite" of a handshake offering only {@code protocol} and {@code suite}, or "refused". */
  private String handshake(String protocol, String suite) throws Exception {
    try (Socket plain = new Socket("127.0.0.1", server.port())) {
      plain.setSoTimeout(10_000);
      SSLSocket s = (SSLSocket) trustingCa().getSocketFactory().createSocket(plain, "127.0.0.1", server.port(), true);
      s.setEnabledProtocols(new String[] {protocol});
      s.setEnabledCipherSuites(new String[] {suite});
      try {
        s.startHandshake();
        return s.getSession().getProtocol() + " " + s.getSession().getCipherSuite();
      } catch (IOException e) {
        return "refused";
      }
    }
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
