package dev.gputop.inference.scrape;

import dev.gputop.config.TlsConfig;
import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Builds the {@link SSLContext} of a configured endpoint from PEM files with the JDK alone: a CA
 * bundle replaces the JVM's trust store, a certificate chain and a PKCS#8 key make a client
 * certificate for mutual TLS. Messages name the setting and the file, never key material.
 * Stateless and thread-safe.
 */
final class TlsContexts {

  private static final Pattern PEM_BLOCK = Pattern.compile(
      "-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
  private static final String[] KEY_ALGORITHMS =
      {"RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS", "DSA"};
  private static final String CLIENT_ALIAS = "client";

  private TlsContexts() {}

  /** The context for {@code tls}; callers use the JVM default when every setting is absent. */
  static SSLContext create(TlsConfig tls) throws ScrapeFailure {
    TrustManager[] trust = null;
    if (tls.insecureSkipVerify()) {
      trust = new TrustManager[] {new TrustAllManager()};
    } else if (tls.caFile() != null) {
      trust = trustManagers(readCertificates(tls.caFile(), "tls.caFile"));
    }
    KeyManager[] keys = null;
    if (tls.certFile() != null) {
      List<X509Certificate> chain = readCertificates(tls.certFile(), "tls.certFile");
      PrivateKey key = readPrivateKey(tls.keyFile(), "tls.keyFile");
      keys = new KeyManager[] {new FixedKeyManager(key, chain.toArray(new X509Certificate[0]))};
    }
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys, trust, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw failure("cannot create the TLS context: " + e.getMessage());
    }
  }

  /** Every certificate in a PEM file, in order. */
  static List<X509Certificate> readCertificates(String file, String setting) throws ScrapeFailure {
    String pem = readPem(file, setting);
    List<X509Certificate> certificates = new ArrayList<>();
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      Matcher m = PEM_BLOCK.matcher(pem);
      while (m.find()) {
        if (m.group(1).equals("CERTIFICATE")) {
          byte[] der = Base64.getMimeDecoder().decode(m.group(2));
          certificates.add(
              (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
        }
      }
    } catch (CertificateException | IllegalArgumentException e) {
      throw failure(setting + " " + file + " has an invalid certificate: " + e.getMessage());
    }
    if (certificates.isEmpty()) {
      throw failure(setting + " " + file
          + " contains no PEM certificate (-----BEGIN CERTIFICATE-----)");
    }
    return certificates;
  }

  /** The unencrypted PKCS#8 key in a PEM file ({@code -----BEGIN PRIVATE KEY-----}). */
  static PrivateKey readPrivateKey(String file, String setting) throws ScrapeFailure {
    String pem = readPem(file, setting);
    Matcher m = PEM_BLOCK.matcher(pem);
    while (m.find()) {
      String type = m.group(1);
      if (type.equals("PRIVATE KEY")) {
        byte[] der;
        try {
          der = Base64.getMimeDecoder().decode(m.group(2));
        } catch (IllegalArgumentException e) {
          throw failure(setting + " " + file + " is not valid PEM");
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : KEY_ALGORITHMS) {
          try {
            return KeyFactory.getInstance(algorithm).generatePrivate(spec);
          } catch (GeneralSecurityException | RuntimeException e) {
            // Not this algorithm; the PKCS#8 structure names it, and the next factory may match.
          }
        }
        throw failure(setting + " " + file + " holds a private key of an unsupported algorithm");
      }
      if (type.equals("ENCRYPTED PRIVATE KEY")) {
        throw failure(setting + " " + file + " is encrypted; decrypt it with: "
            + "openssl pkcs8 -topk8 -nocrypt -in " + file + " -out key.pem");
      }
      if (type.equals("RSA PRIVATE KEY") || type.equals("EC PRIVATE KEY")) {
        throw failure(setting + " " + file + " is not PKCS#8 (" + type + "); convert it with: "
            + "openssl pkcs8 -topk8 -nocrypt -in " + file + " -out key.pem");
      }
    }
    throw failure(setting + " " + file
        + " contains no PEM private key (-----BEGIN PRIVATE KEY-----)");
  }

  private static TrustManager[] trustManagers(List<X509Certificate> cas) throws ScrapeFailure {
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      for (int i = 0; i < cas.size(); i++) {
        store.setCertificateEntry("ca-" + i, cas.get(i));
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      return factory.getTrustManagers();
    } catch (GeneralSecurityException | IOException e) {
      throw failure("cannot build a trust store from tls.caFile: " + e.getMessage());
    }
  }

  private static String readPem(String file, String setting) throws ScrapeFailure {
    Path path = Path.of(file);
    try {
      if (Files.size(path) > (1 << 20)) {
        throw failure(setting + " " + file + " is larger than 1 MiB; not a PEM file");
      }
      return new String(Files.readAllBytes(path), StandardCharsets.ISO_8859_1);
    } catch (NoSuchFileException e) {
      throw failure(setting + " " + file + " does not exist");
    } catch (AccessDeniedException e) {
      throw failure(setting + " " + file + " is not readable (permission denied)");
    } catch (IOException e) {
      throw failure("cannot read " + setting + " " + file + ": " + e.getClass().getSimpleName());
    }
  }

  private static ScrapeFailure failure(String message) {
    return new ScrapeFailure(Outcome.TLS_ERROR, "TLS setup failed: " + message);
  }

  /**
   * Presents the configured certificate whatever issuers the server lists, as curl does: a
   * server whose CertificateRequest names no matching CA would otherwise get no certificate at
   * all and fail with a less helpful error.
   */
  private static final class FixedKeyManager extends X509ExtendedKeyManager {
    private final PrivateKey key;
    private final X509Certificate[] chain;

    FixedKeyManager(PrivateKey key, X509Certificate[] chain) {
      this.key = key;
      this.chain = chain;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return new String[] {CLIENT_ALIAS};
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return CLIENT_ALIAS;
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
      return CLIENT_ALIAS;
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return null;
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return CLIENT_ALIAS.equals(alias) ? chain.clone() : null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return CLIENT_ALIAS.equals(alias) ? key : null;
    }
  }
}
