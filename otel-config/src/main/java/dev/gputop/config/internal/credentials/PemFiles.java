package dev.gputop.config.internal.credentials;

import dev.gputop.config.TlsConfig;
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
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * TLS material from PEM files, with the JDK alone, for every TLS user of the agent: the scraper's
 * endpoints ({@code tls.caFile}, {@code tls.certFile}, {@code tls.keyFile}), the Kubernetes pod
 * list ({@code kubernetes.caFile}) and the listener ({@code listener.tls.*}). A CA bundle
 * replaces the JVM's trust store; a certificate chain and an unencrypted PKCS#8 key make a
 * client or server certificate. Messages name the setting and the file, never key material.
 * Stateless and thread-safe.
 */
public final class PemFiles {

  /** Larger than any certificate bundle; a bigger file is a wrong path, not PEM. */
  static final long MAX_PEM_BYTES = 1 << 20;

  private static final Pattern PEM_BLOCK = Pattern.compile(
      "-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
  private static final String[] KEY_ALGORITHMS =
      {"RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS", "DSA"};
  private static final String CLIENT_ALIAS = "client";
  private static final char[] IN_MEMORY_PASSWORD = "in-memory".toCharArray();

  private PemFiles() {}

  /**
   * The client context for a scrape endpoint's {@code tls}: {@code insecureSkipVerify} trusts
   * everything, {@code caFile} replaces the JVM's trust store, {@code certFile}/{@code keyFile}
   * present a client certificate. Callers use the JVM default when every setting is absent.
   */
  public static SSLContext clientContext(TlsConfig tls) throws CredentialException {
    if (tls.insecureSkipVerify()) {
      return clientContext(null, tls.certFile(), tls.keyFile(), "tls", true);
    }
    return clientContext(tls.caFile(), tls.certFile(), tls.keyFile(), "tls", false);
  }

  /**
   * A client context from PEM files, each optional: {@code caFile} replaces the JVM's trust store,
   * {@code certFile} with {@code keyFile} presents a client certificate (given together).
   *
   * @param style how messages name the files: {@code "tls"} for the configuration keys ({@code
   *     tls.caFile}), {@code "cli"} for command-line options ({@code --ca-file})
   */
  public static SSLContext clientContext(String caFile, String certFile, String keyFile, String style)
      throws CredentialException {
    return clientContext(caFile, certFile, keyFile, style, false);
  }

  private static SSLContext clientContext(
      String caFile, String certFile, String keyFile, String style, boolean trustAll) throws CredentialException {
    boolean cli = "cli".equals(style);
    String ca = cli ? "--ca-file" : "tls.caFile";
    String cert = cli ? "--cert-file" : "tls.certFile";
    String keyName = cli ? "--key-file" : "tls.keyFile";
    TrustManager[] trust = null;
    if (trustAll) {
      trust = new TrustManager[] {new TrustAllManager()};
    } else if (caFile != null) {
      trust = trustManagers(readCertificates(caFile, ca), ca);
    }
    KeyManager[] keys = null;
    if (certFile != null) {
      List<X509Certificate> chain = readCertificates(certFile, cert);
      PrivateKey key = readPrivateKey(keyFile, keyName);
      keys = new KeyManager[] {new FixedKeyManager(key, chain.toArray(new X509Certificate[0]))};
    }
    return context(keys, trust);
  }

  /**
   * A context trusting exactly the CAs in {@code caFile} (the Kubernetes API server's CA).
   *
   * @param setting the configuration key, for messages
   */
  public static SSLContext trustingOnly(String caFile, String setting) throws CredentialException {
    return context(null, trustManagers(readCertificates(caFile, setting), setting));
  }

  /**
   * A server context presenting {@code certFile} (the chain, leaf first) with {@code keyFile};
   * when {@code clientCaFile} is not null, client certificates are verified against its CAs (the
   * caller decides whether one is required, on the {@code SSLParameters}).
   *
   * @param prefix the configuration prefix for messages, e.g. {@code listener.tls}
   */
  public static SSLContext serverContext(
      String certFile, String keyFile, String clientCaFile, String prefix) throws CredentialException {
    List<X509Certificate> chain = readCertificates(certFile, prefix + ".certFile");
    PrivateKey key = readPrivateKey(keyFile, prefix + ".keyFile");
    KeyManager[] keys;
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("server", key, IN_MEMORY_PASSWORD, chain.toArray(new X509Certificate[0]));
      KeyManagerFactory factory =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, IN_MEMORY_PASSWORD);
      keys = factory.getKeyManagers();
    } catch (GeneralSecurityException | IOException e) {
      throw new CredentialException(prefix + ".keyFile " + keyFile
          + " does not fit " + prefix + ".certFile " + certFile + ": " + e.getClass().getSimpleName());
    }
    TrustManager[] trust = clientCaFile == null ? null
        : trustManagers(readCertificates(clientCaFile, prefix + ".clientCaFile"), prefix + ".clientCaFile");
    return context(keys, trust);
  }

  /** Every certificate in a PEM file, in order (text around the blocks is ignored). */
  public static List<X509Certificate> readCertificates(String file, String setting)
      throws CredentialException {
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
      throw new CredentialException(
          setting + " " + file + " has an invalid certificate: " + e.getMessage());
    }
    if (certificates.isEmpty()) {
      throw new CredentialException(setting + " " + file
          + " contains no PEM certificate (-----BEGIN CERTIFICATE-----)");
    }
    return certificates;
  }

  /** The unencrypted PKCS#8 key in a PEM file ({@code -----BEGIN PRIVATE KEY-----}). */
  public static PrivateKey readPrivateKey(String file, String setting) throws CredentialException {
    String pem = readPem(file, setting);
    Matcher m = PEM_BLOCK.matcher(pem);
    while (m.find()) {
      String type = m.group(1);
      if (type.equals("PRIVATE KEY")) {
        byte[] der;
        try {
          der = Base64.getMimeDecoder().decode(m.group(2));
        } catch (IllegalArgumentException e) {
          throw new CredentialException(setting + " " + file + " is not valid PEM");
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : KEY_ALGORITHMS) {
          try {
            return KeyFactory.getInstance(algorithm).generatePrivate(spec);
          } catch (GeneralSecurityException | RuntimeException e) {
            // Not this algorithm; the PKCS#8 structure names it, and the next factory may match.
          }
        }
        throw new CredentialException(
            setting + " " + file + " holds a private key of an unsupported algorithm");
      }
      if (type.equals("ENCRYPTED PRIVATE KEY")) {
        throw new CredentialException(setting + " " + file + " is encrypted; decrypt it with: "
            + "openssl pkcs8 -topk8 -nocrypt -in " + file + " -out key.pem");
      }
      if (type.equals("RSA PRIVATE KEY") || type.equals("EC PRIVATE KEY")) {
        throw new CredentialException(setting + " " + file + " is not PKCS#8 (" + type
            + "); convert it with: openssl pkcs8 -topk8 -nocrypt -in " + file + " -out key.pem");
      }
    }
    throw new CredentialException(setting + " " + file
        + " contains no PEM private key (-----BEGIN PRIVATE KEY-----)");
  }

  private static SSLContext context(KeyManager[] keys, TrustManager[] trust)
      throws CredentialException {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys, trust, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new CredentialException("cannot create the TLS context: " + e.getMessage());
    }
  }

  private static TrustManager[] trustManagers(List<X509Certificate> cas, String setting)
      throws CredentialException {
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
      throw new CredentialException("cannot build a trust store from " + setting + ": " + e.getMessage());
    }
  }

  private static String readPem(String file, String setting) throws CredentialException {
    Path path = Path.of(file);
    try {
      if (Files.size(path) > MAX_PEM_BYTES) {
        throw new CredentialException(setting + " " + file + " is larger than 1 MiB; not a PEM file");
      }
      return new String(Files.readAllBytes(path), StandardCharsets.ISO_8859_1);
    } catch (NoSuchFileException e) {
      throw new CredentialException(setting + " " + file + " does not exist");
    } catch (AccessDeniedException e) {
      throw new CredentialException(setting + " " + file + " is not readable (permission denied)");
    } catch (IOException e) {
      throw new CredentialException(
          "cannot read " + setting + " " + file + ": " + dev.gputop.config.internal.IoMessages.describe(e));
    }
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
