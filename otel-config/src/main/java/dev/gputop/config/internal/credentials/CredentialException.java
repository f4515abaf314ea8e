package dev.gputop.config.internal.credentials;

/**
 * A TLS file or a secret file that can't be used: missing, unreadable, too large, not PEM, an
 * encrypted or PKCS#1 key, an empty or multi-line token. The message names the setting and the
 * file and says what to do; it never contains key material or a token. Callers wrap it into their
 * own failure type (a scrape failure, a configuration error, a listener that can't start).
 */
public final class CredentialException extends Exception {

  private static final long serialVersionUID = 1L;

  /** A failure described by {@code message}, which must hold no secret. */
  public CredentialException(String message) {
    super(message);
  }
}
