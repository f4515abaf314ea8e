package dev.gputop.agent;

import at.favre.lib.crypto.bcrypt.BCrypt;
import dev.gputop.config.Clock;
import dev.gputop.config.ListenerConfig;
import dev.gputop.config.internal.credentials.BearerTokenFile;
import dev.gputop.config.internal.credentials.CredentialException;
import dev.gputop.config.internal.credentials.PemFiles;
import dev.gputop.config.logging.FailureLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.logging.Logger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * TLS and authentication of the agent's listener ({@code listener.*}), for every route: TLS is
 * the connector's ({@link ReloadingTls}), authentication an {@link Authenticator} that the
 * listener asks about every request outside the exempt paths. The semantics follow Prometheus's exporter-toolkit web
 * configuration: a certificate chain and key from PEM files; with {@code clientCaFile}, a client
 * certificate signed by one of its CAs is required (its {@code RequireAndVerifyClientCert}); basic
 * authentication against bcrypt hashes ({@code $2y$}, {@code $2a$}, {@code $2b$}, as {@code
 * htpasswd -B} writes them), or a bearer token from a file.
 *
 * <p>Every file is re-read when its modification time or size changes: the TLS files at the next
 * connection, the token and users files at the next request. A file that can't be read or parsed
 * keeps the previous material (and is logged, throttled); at start-up it stops the agent with the
 * reason. A rejected request gets 401 with {@code WWW-Authenticate}, and is logged throttled per
 * client address; no log line, error or response ever contains a presented or configured secret.
 * Thread-safe.
 */
final class ListenerSecurity {

  private static final Logger logger = Logger.getLogger(ListenerSecurity.class.getName());

  private ListenerSecurity() {}

  /** The authentication of every request outside the exempt paths, or null without auth. */
  static Authenticator authenticator(ListenerConfig config, Clock clock) {
    if (!config.authenticated()) {
      return null;
    }
    return new Authenticator(config, clock);
  }

  /** A file's identity for change detection: modification time and size. */
  private record Stamp(long modifiedMillis, long size) {
    static Stamp of(Path p) {
      try {
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
        return new Stamp(a.lastModifiedTime().toMillis(), a.size());
      } catch (IOException e) {
        return new Stamp(-1, -1); // reported by the reader
      }
    }
  }

  /**
   * The listener's TLS: each new connection's engine comes from {@link #current()}, which
   * re-reads the files when they changed, so a renewed certificate (cert-manager, a Vault agent)
   * is served from the next connection on.
   */
  static final class ReloadingTls extends SslContextFactory.Server {
    private final ListenerConfig config;
    private final List<Path> files;
    private final FailureLog failures;
    private List<Stamp> stamps;
    private SSLContext current;

    ReloadingTls(ListenerConfig config, Clock clock) {
      this.config = config;
      this.files = config.clientCaFile() == null
          ? List.of(Path.of(config.certFile()), Path.of(config.keyFile()))
          : List.of(Path.of(config.certFile()), Path.of(config.keyFile()), Path.of(config.clientCaFile()));
      this.failures = FailureLog.create(logger, clock);
      this.current = load(config);
      this.stamps = stamps();
      setSslContext(current);
      setNeedClientAuth(config.clientCaFile() != null);
      // The listener's host names are not checked against a client's SNI: probes and Prometheus
      // often connect by IP address.
      setSniRequired(false);
    }

    private static SSLContext load(ListenerConfig config) {
      try {
        return PemFiles.serverContext(config.certFile(), config.keyFile(), config.clientCaFile(), "listener.tls");
      } catch (CredentialException e) {
        throw new UncheckedIOException(new IOException(e.getMessage()));
      }
    }

    private List<Stamp> stamps() {
      return files.stream().map(Stamp::of).toList();
    }

    /** The context for a new connection, re-read first when the files changed. */
    synchronized SSLContext current() {
      List<Stamp> now = stamps();
      if (!now.equals(stamps)) {
        try {
          current = PemFiles.serverContext(config.certFile(), config.keyFile(), config.clientCaFile(), "listener.tls");
          stamps = now;
          failures.success("tls", "Reloading the listener's TLS files");
          logger.info("listener TLS files changed: reloaded " + config.certFile());
        } catch (CredentialException e) {
          // A half-written renewal: keep serving the previous certificate, try again next time.
          failures.failure("tls", "Reloading the listener's TLS files", e.getMessage() + "; serving the previous certificate");
        }
      }
      return current;
    }

    @Override
    public SSLEngine newSSLEngine() {
      SSLEngine engine = current().createSSLEngine();
      customize(engine);
      return engine;
    }

    @Override
    public SSLEngine newSSLEngine(String host, int port) {
      SSLEngine engine = current().createSSLEngine(host, port);
      customize(engine);
      return engine;
    }
  }

  /** Authentication of one request: bearer token or basic users, read from their file. */
  static final class Authenticator {
    /** Verified user:password digests, so that bcrypt's deliberate cost is paid once per password. */
    private static final int MAX_CACHED = 256;

    private final ListenerConfig config;
    private final Path file;
    private final FailureLog rejections;
    private Stamp stamp;
    private String token;
    private Map<String, byte[]> users = Map.of();
    private final Map<String, Boolean> verified = new LinkedHashMap<>();

    Authenticator(ListenerConfig config, Clock clock) {
      this.config = config;
      this.file = Path.of(config.bearerTokenFile() != null ? config.bearerTokenFile() : config.basicUsersFile());
      this.rejections = FailureLog.create(logger, clock);
      try {
        reload(); // a bad file stops the agent at start-up, with the reason
      } catch (CredentialException e) {
        throw new UncheckedIOException(new IOException(e.getMessage()));
      }
    }

    /** The {@code WWW-Authenticate} value of a 401. */
    String challenge() {
      return config.bearerTokenFile() != null ? "Bearer realm=\"gputop-agent\"" : "Basic realm=\"gputop-agent\", charset=\"UTF-8\"";
    }

    /**
     * Null when {@code authorization} (the header, or null) of a request from {@code client} is
     * accepted, else why not (never quoting a secret). Rejections are logged, throttled per client.
     */
    String check(String authorization, String client) {
      String problem = check(authorization);
      String what = "Listener requests from " + client;
      if (problem == null) {
        rejections.success(client, what);
      } else {
        rejections.failure(client, what, "401: " + problem);
      }
      return problem;
    }

    /** Null when {@code authorization} is accepted, else why not (never quoting a secret). */
    synchronized String check(String authorization) {
      try {
        reloadIfChanged();
      } catch (CredentialException e) {
        rejections.failure("file", "Reloading " + file, e.getMessage() + "; using the previous content");
      }
      if (authorization == null) {
        return "no credentials";
      }
      if (config.bearerTokenFile() != null) {
        if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
          return "not a bearer token";
        }
        byte[] presented = authorization.substring(7).trim().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(presented, token.getBytes(StandardCharsets.UTF_8)) ? null : "wrong token";
      }
      if (!authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
        return "not basic credentials";
      }
      String decoded;
      try {
        decoded = new String(Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return "malformed basic credentials";
      }
      int colon = decoded.indexOf(':');
      if (colon < 0) {
        return "malformed basic credentials";
      }
      String user = decoded.substring(0, colon);
      String password = decoded.substring(colon + 1);
      byte[] hash = users.get(user);
      if (hash == null) {
        // Same cost as a wrong password, so a caller can't tell which users exist.
        BCrypt.verifyer().verify(password.toCharArray(), DUMMY_HASH);
        return "unknown user or wrong password";
      }
      String cacheKey = digest(user, password, hash);
      Boolean ok = verified.get(cacheKey);
      if (ok == null) {
        ok = BCrypt.verifyer().verify(password.getBytes(StandardCharsets.UTF_8), hash).verified;
        if (verified.size() >= MAX_CACHED) {
          verified.remove(verified.keySet().iterator().next());
        }
        verified.put(cacheKey, ok);
      }
      return ok ? null : "unknown user or wrong password";
    }

    private void reloadIfChanged() throws CredentialException {
      if (!Stamp.of(file).equals(stamp)) {
        reload();
      }
    }

    private void reload() throws CredentialException {
      Stamp now = Stamp.of(file);
      if (config.bearerTokenFile() != null) {
        token = BearerTokenFile.read(file);
      } else {
        users = readUsers(file);
        verified.clear();
      }
      stamp = now;
    }

    /** {@code user:hash} lines; blank lines and {@code #} comments are skipped. */
    static Map<String, byte[]> readUsers(Path file) throws CredentialException {
      List<String> lines;
      try {
        if (Files.size(file) > BearerTokenFile.MAX_TOKEN_FILE_BYTES * 16) {
          throw new CredentialException("listener.auth.basicUsersFile " + file + " is larger than 1 MiB");
        }
        lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      } catch (java.nio.file.NoSuchFileException e) {
        throw new CredentialException("listener.auth.basicUsersFile " + file + " does not exist");
      } catch (IOException e) {
        throw new CredentialException("cannot read listener.auth.basicUsersFile " + file + ": " + e.getClass().getSimpleName());
      }
      Map<String, byte[]> out = new HashMap<>();
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i).strip();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        int colon = line.indexOf(':');
        String hash = colon < 0 ? "" : line.substring(colon + 1);
        if (colon <= 0 || !(hash.startsWith("$2y$") || hash.startsWith("$2a$") || hash.startsWith("$2b$"))
            || hash.length() != 60) {
          // Line number only: the line holds a hash, and a mistyped line may hold a password.
          throw new CredentialException("listener.auth.basicUsersFile " + file + " line " + (i + 1)
              + ": expected user:bcrypt-hash ($2y$, $2a$ or $2b$, as htpasswd -nB writes it)");
        }
        out.put(line.substring(0, colon), hash.getBytes(StandardCharsets.US_ASCII));
      }
      if (out.isEmpty()) {
        throw new CredentialException("listener.auth.basicUsersFile " + file + " has no users");
      }
      return Map.copyOf(out);
    }

    private static String digest(String user, String password, byte[] hash) {
      try {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        d.update(user.getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
        d.update(password.getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
        d.update(hash);
        return Base64.getEncoder().encodeToString(d.digest());
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is in every JDK", e);
      }
    }

    /** bcrypt("x", cost 10), verified against for unknown users. */
    private static final byte[] DUMMY_HASH =
        BCrypt.withDefaults().hash(10, new byte[16], "x".getBytes(StandardCharsets.UTF_8));
  }

  /** Whether {@code address} is reachable from other hosts. */
  static boolean exposed(InetSocketAddress address) {
    Objects.requireNonNull(address, "address");
    return address.getAddress() == null || !address.getAddress().isLoopbackAddress();
  }
}
