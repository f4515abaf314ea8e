package dev.gputop.inference.scrape;

import static dev.gputop.inference.scrape.HttpScraperTlsTest.pki;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gputop.config.TlsConfig;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsContextsTest {

  @TempDir Path dir;

  @Test
  void readCertificates_bundleWithCommentsAndSeveralCertificates_readsAll() throws Exception {
    Path bundle = dir.resolve("bundle.pem");
    Files.writeString(bundle, "subject=CN = gputop test CA\n"
        + Files.readString(Path.of(pki("ca.pem")))
        + "\n# the server\n" + Files.readString(Path.of(pki("server.pem"))));

    assertThat(TlsContexts.readCertificates(bundle.toString(), "tls.caFile"))
        .extracting(c -> c.getSubjectX500Principal().getName())
        .containsExactly("CN=gputop test CA", "CN=127.0.0.1");
  }

  @Test
  void readPrivateKey_pkcs8Ec_isRead() throws Exception {
    assertThat(TlsContexts.readPrivateKey(pki("client.key"), "tls.keyFile").getAlgorithm())
        .isEqualTo("EC");
  }

  @Test
  void readPrivateKey_pkcs1_explainsTheConversion() throws Exception {
    Path key = dir.resolve("rsa.key");
    Files.writeString(key,
        "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n");

    assertThatThrownBy(() -> TlsContexts.readPrivateKey(key.toString(), "tls.keyFile"))
        .isInstanceOfSatisfying(ScrapeFailure.class,
            f -> assertThat(f.outcome()).isEqualTo(Outcome.TLS_ERROR))
        .hasMessage("TLS setup failed: tls.keyFile " + key + " is not PKCS#8 (RSA PRIVATE KEY); "
            + "convert it with: openssl pkcs8 -topk8 -nocrypt -in " + key + " -out key.pem");
  }

  @Test
  void readPrivateKey_encrypted_isRefusedWithAHint() throws Exception {
    Path key = dir.resolve("enc.key");
    Files.writeString(key, "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIBOgIBAAJBAK\n"
        + "-----END ENCRYPTED PRIVATE KEY-----\n");

    assertThatThrownBy(() -> TlsContexts.readPrivateKey(key.toString(), "tls.keyFile"))
        .hasMessageContaining("is encrypted; decrypt it with: openssl pkcs8 -topk8 -nocrypt");
  }

  @Test
  void readCertificates_fileWithoutCertificates_saysSo() throws Exception {
    Path notPem = dir.resolve("ca.der");
    Files.write(notPem, new byte[] {0x30, (byte) 0x82, 0x01});

    assertThatThrownBy(() -> TlsContexts.readCertificates(notPem.toString(), "tls.caFile"))
        .hasMessage("TLS setup failed: tls.caFile " + notPem
            + " contains no PEM certificate (-----BEGIN CERTIFICATE-----)");
  }

  @Test
  void create_certificateAsKey_neverPrintsKeyMaterial() throws Exception {
    // A key file that holds only a certificate: the message names the file, not its content.
    TlsConfig tls = new TlsConfig(null, pki("client.pem"), pki("client.pem"), false);

    assertThatThrownBy(() -> TlsContexts.create(tls))
        .hasMessage("TLS setup failed: tls.keyFile " + pki("client.pem")
            + " contains no PEM private key (-----BEGIN PRIVATE KEY-----)");
  }
}
