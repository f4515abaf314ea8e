package dev.gputop.config;

/**
 * TLS settings of a configured endpoint ({@code inference.endpoints[].tls}). Immutable.
 *
 * @param caFile PEM file of CA certificates to trust instead of the JVM's default trust store;
 *     null for the default
 * @param certFile PEM client certificate for mutual TLS; null for none
 * @param keyFile PEM (PKCS#8) private key of the client certificate; required with certFile
 * @param insecureSkipVerify accept any server certificate (tests and labs only; logged as a
 *     warning)
 */
public record TlsConfig(String caFile, String certFile, String keyFile, boolean insecureSkipVerify) {

  public TlsConfig {
    if ((certFile == null) != (keyFile == null)) {
      throw new IllegalArgumentException("tls.certFile and tls.keyFile must be given together");
    }
  }

  public static TlsConfig defaults() {
    return new TlsConfig(null, null, null, false);
  }
}
