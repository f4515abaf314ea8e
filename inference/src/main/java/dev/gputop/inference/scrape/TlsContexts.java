package dev.gputop.inference.scrape;

import dev.gputop.config.TlsConfig;
import dev.gputop.config.internal.credentials.CredentialException;
import dev.gputop.config.internal.credentials.PemFiles;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * The scraper's view of the shared {@link PemFiles}: the same TLS material, with a failure
 * reported as a {@link Outcome#TLS_ERROR} scrape failure ("TLS setup failed: ..."). Stateless and
 * thread-safe.
 */
final class TlsContexts {

  private TlsContexts() {}

  /** The context for {@code tls}; callers use the JVM default when every setting is absent. */
  static SSLContext create(TlsConfig tls) throws ScrapeFailure {
    try {
      return PemFiles.clientContext(tls);
    } catch (CredentialException e) {
      throw failure(e);
    }
  }

  /** Every certificate in a PEM file, in order. */
  static List<X509Certificate> readCertificates(String file, String setting) throws ScrapeFailure {
    try {
      return PemFiles.readCertificates(file, setting);
    } catch (CredentialException e) {
      throw failure(e);
    }
  }

  /** The unencrypted PKCS#8 key in a PEM file. */
  static PrivateKey readPrivateKey(String file, String setting) throws ScrapeFailure {
    try {
      return PemFiles.readPrivateKey(file, setting);
    } catch (CredentialException e) {
      throw failure(e);
    }
  }

  private static ScrapeFailure failure(CredentialException e) {
    return new ScrapeFailure(Outcome.TLS_ERROR, "TLS setup failed: " + e.getMessage());
  }
}
