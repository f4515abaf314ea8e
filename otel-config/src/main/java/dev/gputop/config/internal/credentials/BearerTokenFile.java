package dev.gputop.config.internal.credentials;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads a bearer token file (a scrape endpoint's {@code bearerTokenFile}, the Kubernetes service
 * account token, the listener's {@code listener.auth.bearerTokenFile}). Callers read it again
 * whenever they need it, so a rotated token (a projected service-account token, a Vault agent
 * sink) is used from the next request on; the file is tiny, so there is nothing worth caching.
 * Messages name the file, never its content. Stateless and thread-safe.
 */
public final class BearerTokenFile {

  /** Larger than any token; a bigger file is a mistake (a wrong path), not a token. */
  public static final long MAX_TOKEN_FILE_BYTES = 64 << 10;

  private BearerTokenFile() {}

  /**
   * The trimmed token in {@code file}.
   *
   * @throws CredentialException when the file is missing, unreadable, larger than {@link
   *     #MAX_TOKEN_FILE_BYTES}, empty, or holds more than one line or a character not allowed in
   *     a token (outside printable ASCII)
   */
  public static String read(Path file) throws CredentialException {
    return read(file, "bearer token file");
  }

  /**
   * The trimmed secret in {@code file} (a token, or a password such as {@code top
   * --basic-password-file}'s), with the rules of {@link #read(Path)}; messages call the file
   * {@code what}, e.g. {@code --basic-password-file}.
   */
  public static String read(Path file, String what) throws CredentialException {
    String token;
    try {
      if (Files.size(file) > MAX_TOKEN_FILE_BYTES) {
        throw new CredentialException(
            what + " " + file + " is larger than " + (MAX_TOKEN_FILE_BYTES >> 10) + " KiB");
      }
      token = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (NoSuchFileException e) {
      throw new CredentialException(what + " " + file + " does not exist");
    } catch (AccessDeniedException e) {
      throw new CredentialException(what + " " + file + " is not readable (permission denied)");
    } catch (IOException e) {
      // The exception's message may quote bytes of the file (a malformed-input error): not shown.
      throw new CredentialException(
          "cannot read " + what + " " + file + ": " + dev.gputop.config.internal.IoMessages.describe(e));
    }
    if (token.isEmpty()) {
      throw new CredentialException(what + " " + file + " is empty");
    }
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        throw new CredentialException(what + " " + file
            + " holds more than one line or a character not allowed in a token");
      }
    }
    return token;
  }
}
