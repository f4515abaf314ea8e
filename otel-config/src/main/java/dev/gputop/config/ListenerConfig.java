package dev.gputop.config;

import java.util.List;
import java.util.Objects;

/**
 * How the HTTP listener is exposed ({@code listener.*}): TLS from PEM files, optionally with
 * client certificates (mutual TLS), and one kind of authentication, with the semantics of
 * Prometheus's exporter-toolkit web configuration ({@code tls_server_config}, {@code
 * basic_auth_users}). Immutable.
 *
 * @param certFile PEM server certificate chain (leaf first), or null for plain HTTP
 * @param keyFile PEM (PKCS#8) private key of {@code certFile}
 * @param clientCaFile PEM CAs; when set, every client must present a certificate they signed
 *     (exporter-toolkit's {@code client_auth_type: RequireAndVerifyClientCert})
 * @param bearerTokenFile a file whose trimmed content clients send as {@code Authorization:
 *     Bearer}, or null
 * @param basicUsersFile a file of {@code user:bcrypt-hash} lines (as {@code htpasswd -nB} writes
 *     them), or null
 * @param exemptPaths paths served without authentication (probes), by exact match
 * @param tlsMinVersion the lowest TLS version offered, {@code 1.2} or {@code 1.3} (1.3 is the
 *     highest)
 * @param cipherSuites the TLS cipher suites offered (TLS 1.2's and 1.3's), by IANA name
 */
public record ListenerConfig(
    String certFile,
    String keyFile,
    String clientCaFile,
    String bearerTokenFile,
    String basicUsersFile,
    List<String> exemptPaths,
    String tlsMinVersion,
    List<String> cipherSuites) {

  /** {@code listener.auth.exemptPaths}'s default. */
  public static final List<String> DEFAULT_EXEMPT_PATHS = List.of("/livez", "/readyz", "/healthz");

  /** {@code listener.tls.minVersion}'s default. */
  public static final String DEFAULT_TLS_MIN_VERSION = "1.2";

  /**
   * {@code listener.tls.cipherSuites}' default: Mozilla's "intermediate" configuration (its
   * server-side TLS guidelines): forward-secret AEAD suites only, TLS 1.3's three and TLS
   * 1.2's ECDHE and DHE with AES-GCM or ChaCha20-Poly1305; no static RSA, no CBC, no SHA-1.
   */
  public static final List<String> DEFAULT_CIPHER_SUITES = List.of(
      "TLS_AES_128_GCM_SHA256",
      "TLS_AES_256_GCM_SHA384",
      "TLS_CHACHA20_POLY1305_SHA256",
      "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
      "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
      "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
      "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
      "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
      "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
      "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256",
      "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384",
      "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

  public ListenerConfig {
    exemptPaths = List.copyOf(Objects.requireNonNull(exemptPaths, "exemptPaths"));
    Objects.requireNonNull(tlsMinVersion, "tlsMinVersion");
    cipherSuites = List.copyOf(Objects.requireNonNull(cipherSuites, "cipherSuites"));
  }

  /** The TLS and authentication settings with the default TLS versions and cipher suites. */
  public ListenerConfig(String certFile, String keyFile, String clientCaFile, String bearerTokenFile,
      String basicUsersFile, List<String> exemptPaths) {
    this(certFile, keyFile, clientCaFile, bearerTokenFile, basicUsersFile, exemptPaths, DEFAULT_TLS_MIN_VERSION,
        DEFAULT_CIPHER_SUITES);
  }

  /** Plain HTTP without authentication: every setting absent. */
  public static ListenerConfig defaults() {
    return new ListenerConfig(null, null, null, null, null, DEFAULT_EXEMPT_PATHS);
  }

  /** The TLS protocols offered, in the JDK's names: from {@link #tlsMinVersion} to TLS 1.3. */
  public List<String> tlsProtocols() {
    return tlsMinVersion.equals("1.3") ? List.of("TLSv1.3") : List.of("TLSv1.3", "TLSv1.2");
  }

  /**
   * Checks the settings that only work together: {@code certFile} with {@code keyFile}, {@code
   * clientCaFile} only with them, at most one kind of authentication.
   *
   * @throws ConfigException naming the key
   */
  public void validate() {
    if ((certFile == null) != (keyFile == null)) {
      throw new ConfigException(certFile != null ? "listener.tls.certFile" : "listener.tls.keyFile", 0,
          "listener.tls.certFile and listener.tls.keyFile must be given together");
    }
    if (clientCaFile != null && certFile == null) {
      throw new ConfigException("listener.tls.clientCaFile", 0,
          "needs listener.tls.certFile and listener.tls.keyFile (client certificates are a part of TLS)");
    }
    if (bearerTokenFile != null && basicUsersFile != null) {
      throw new ConfigException("listener.auth", 0,
          "choose one of listener.auth.bearerTokenFile and listener.auth.basicUsersFile");
    }
  }

  /** Whether the listener serves HTTPS. */
  public boolean tls() {
    return certFile != null;
  }

  /** Whether requests must authenticate (outside {@link #exemptPaths}). */
  public boolean authenticated() {
    return bearerTokenFile != null || basicUsersFile != null;
  }
}
