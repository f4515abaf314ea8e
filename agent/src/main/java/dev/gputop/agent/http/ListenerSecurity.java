package dev.gputop.agent.http;

import at.favre.lib.crypto.bcrypt.BCrypt;
import dev.gputop.config.ListenerConfig;
import dev.gputop.config.internal.credentials.BearerTokenFile;
import dev.gputop.config.internal.credentials.CredentialException;
import dev.gputop.config.internal.credentials.PemFiles;
import dev.gputop.config.logging.FailureLog;
import dev.gputop.receiver.Clock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
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
      // Exactly the configured versions and suites (listener.tls.minVersion, cipherSuites;
      // Mozilla's "intermediate" by default): Jetty's own exclusions are cleared so that the
      // configuration alone says what is offered.
      setExcludeProtocols();
      setIncludeProtocols(config.tlsProtocols().toArray(String[]::new));
      setExcludeCipherSuites();
      setIncludeCipherSuites(config.cipherSuites().toArray(String[]::new));
      setUseCipherSuitesOrder(true);
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

  /**
   * The answer to one request's credentials: accepted, or the status and why not; {@code
   * delayed} when the answer is to wait {@link Authenticator#TARPIT} (a client past its failure
   * limit), which the listener does without holding a thread.
   */
  record Verdict(int status, String problem, boolean delayed) {
    static final Verdict OK = new Verdict(200, null, false);

    static Verdict unauthorized(String problem) {
      return new Verdict(401, problem, false);
    }

    static Verdict throttled(String problem) {
      return new Verdict(429, problem, false);
    }

    static Verdict tarpit(String problem) {
      return new Verdict(429, problem, true);
    }

    boolean accepted() {
      return problem == null;
    }
  }

  /**
   * Authentication of one request: bearer token or basic users, read from their file. Built to
   * cost an attacker more than the agent (docs/RELIABILITY.md, "The listener under siege"):
   *
   * <ul>
   *   <li>every outcome of bcrypt is remembered, by a digest of user, password and hash: the
   *       accepted ones ({@value #MAX_ACCEPTED}) apart from the rejected ones ({@value
   *       #MAX_REJECTED}), so failures never evict a correct user's entry;
   *   <li>an unknown user is verified against a dummy hash at the file's own cost and remembered
   *       the same way, so it costs what a known user with a wrong password costs;
   *   <li>at most {@value #BCRYPT_AT_ONCE} bcrypt verification runs at a time, and after one
   *       the next waits as long as it took (so bcrypt takes at most half a core over time); a
   *       request that would need one meanwhile gets 429 at once;
   *   <li>a client address with {@value #CLIENT_FAILURES} rejected requests within {@link
   *       #CLIENT_WINDOW} gets 429 after {@link #TARPIT} (the listener waits without a thread)
   *       for anything but a remembered correct password or the right token, which are accepted
   *       at once all the same: a flood from one address slows itself to one answer a second per
   *       connection.
   * </ul>
   *
   * <p>No lock is held across bcrypt or the file's check; the remembered paths take only the
   * caches' short locks. The caches and the per-client counts are bounded.
   */
  static final class Authenticator {
    static final int MAX_ACCEPTED = 256;
    static final int MAX_REJECTED = 4096;
    static final int BCRYPT_AT_ONCE = 1;
    static final int CLIENT_FAILURES = 10;
    static final Duration CLIENT_WINDOW = Duration.ofSeconds(10);
    static final Duration TARPIT = Duration.ofSeconds(1);
    static final int MAX_CLIENTS = 4096;
    /** bcrypt reads at most this many bytes of a password; the rest would be ignored. */
    static final int BCRYPT_MAX_PASSWORD_BYTES = 72;

    private final ListenerConfig config;
    private final Path file;
    private final Clock clock;
    private final FailureLog rejections;
    private final Semaphore bcrypt = new Semaphore(BCRYPT_AT_ONCE);
    private final AtomicLong bcryptRuns = new AtomicLong();
    /** When the next bcrypt verification may start ({@link Clock#nanoTime}). */
    private final AtomicLong bcryptRestsUntil = new AtomicLong();
    private volatile Material material;
    private final BoundedCache accepted = new BoundedCache(MAX_ACCEPTED);
    private final BoundedCache rejected = new BoundedCache(MAX_REJECTED);
    private final ClientFailures clients;

    /** What the file holds: the token, or the users and the dummy hash at their cost. */
    private record Material(Stamp stamp, String token, Map<String, byte[]> users, byte[] dummyHash) {}

    Authenticator(ListenerConfig config, Clock clock) {
      this.config = config;
      this.clock = clock;
      this.file = Path.of(config.bearerTokenFile() != null ? config.bearerTokenFile() : config.basicUsersFile());
      this.rejections = FailureLog.create(logger, clock);
      this.clients = new ClientFailures(clock);
      this.bcryptRestsUntil.set(clock.nanoTime());
      try {
        reload(); // a bad file stops the agent at start-up, with the reason
      } catch (CredentialException e) {
        throw new UncheckedIOException(new IOException(e.getMessage()));
      }
      if (config.basicUsersFile() != null) {
        // A hash does not tell how long its password was, so this can't name a user: said once,
        // at start, for every users file (docs/RELIABILITY.md, "The listener under siege").
        logger.info("listener.auth.basicUsersFile " + file + ": bcrypt reads at most " + BCRYPT_MAX_PASSWORD_BYTES
            + " bytes of a password, so a longer one is answered 401; a user whose htpasswd -B password is longer"
            + " (htpasswd kept only its first " + BCRYPT_MAX_PASSWORD_BYTES + " bytes) needs a new, shorter one");
      }
    }

    /** The {@code WWW-Authenticate} value of a 401. */
    String challenge() {
      return config.bearerTokenFile() != null ? "Bearer realm=\"gputop-agent\"" : "Basic realm=\"gputop-agent\", charset=\"UTF-8\"";
    }

    /** How many bcrypt verifications have run (tests: a remembered answer runs none). */
    long bcryptRuns() {
      return bcryptRuns.get();
    }

    /**
     * The verdict on {@code authorization} (the header, or null) of a request from {@code
     * client}, never quoting a secret. Rejections are logged, throttled per client: once, then
     * at most a reminder a minute. Successes are not reported to the log: a correct user and an
     * attacker behind one address (a node, a NAT) would otherwise turn each alternation into a
     * "recovered" line and a new warning.
     */
    Verdict check(String authorization, String client) {
      Verdict v = verdict(authorization, client);
      if (!v.accepted() && !v.delayed()) {
        clients.failed(client);
      }
      if (!v.accepted()) {
        rejections.failure(client, "Listener requests from " + client, v.status() + ": " + v.problem());
      }
      return v;
    }

    private Verdict verdict(String authorization, String client) {
      reloadIfChanged();
      Material m = material;
      if (config.bearerTokenFile() != null) {
        boolean bearer = authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7);
        if (bearer && MessageDigest.isEqual(authorization.substring(7).trim().getBytes(StandardCharsets.UTF_8),
            m.token().getBytes(StandardCharsets.UTF_8))) {
          return Verdict.OK;
        }
        if (clients.overLimit(client)) {
          return overLimit();
        }
        return Verdict.unauthorized(authorization == null ? "no credentials" : bearer ? "wrong token" : "not a bearer token");
      }
      if (authorization == null) {
        return clients.overLimit(client) ? overLimit() : Verdict.unauthorized("no credentials");
      }
      if (!authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
        return Verdict.unauthorized("not basic credentials");
      }
      String decoded;
      try {
        decoded = new String(Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return Verdict.unauthorized("malformed basic credentials");
      }
      int colon = decoded.indexOf(':');
      if (colon < 0) {
        return Verdict.unauthorized("malformed basic credentials");
      }
      String user = decoded.substring(0, colon);
      byte[] password = decoded.substring(colon + 1).getBytes(StandardCharsets.UTF_8);
      if (password.length > BCRYPT_MAX_PASSWORD_BYTES) {
        return Verdict.unauthorized("a password longer than bcrypt's " + BCRYPT_MAX_PASSWORD_BYTES
            + " bytes (" + password.length + "), which no users file entry can match");
      }
      byte[] known = m.users().get(user);
      // An unknown user is checked against the dummy hash, exactly as a known one against its own.
      byte[] hash = known != null ? known : m.dummyHash();
      String key = digest(user, password, hash);
      if (accepted.contains(key)) {
        return Verdict.OK;
      }
      if (clients.overLimit(client)) {
        return overLimit();
      }
      if (rejected.contains(key)) {
        return Verdict.unauthorized("unknown user or wrong password");
      }
      if (clock.nanoTime() - bcryptRestsUntil.get() < 0 || !bcrypt.tryAcquire()) {
        return Verdict.throttled("another password is being verified");
      }
      boolean ok;
      try {
        bcryptRuns.incrementAndGet();
        long start = clock.nanoTime();
        ok = BCrypt.verifyer().verify(password, hash).verified && known != null;
        long end = clock.nanoTime();
        bcryptRestsUntil.set(end + (end - start));
      } finally {
        bcrypt.release();
      }
      if (material != m) {
        return ok ? Verdict.OK : Verdict.unauthorized("unknown user or wrong password"); // reloaded meanwhile
      }
      if (ok) {
        accepted.add(key);
        return Verdict.OK;
      }
      rejected.add(key);
      return Verdict.unauthorized("unknown user or wrong password");
    }

    private static Verdict overLimit() {
      return Verdict.tarpit(CLIENT_FAILURES + " or more rejected requests within " + CLIENT_WINDOW.toSeconds()
          + " s; only known-good credentials are answered at once until then");
    }

    /** Re-reads the file when its modification time or size changed (one stat per request). */
    private void reloadIfChanged() {
      if (Stamp.of(file).equals(material.stamp())) {
        return;
      }
      try {
        reload();
      } catch (CredentialException e) {
        rejections.failure("file", "Reloading " + file, e.getMessage() + "; using the previous content");
      }
    }

    private synchronized void reload() throws CredentialException {
      Stamp now = Stamp.of(file);
      if (material != null && now.equals(material.stamp())) {
        return; // another request reloaded it first
      }
      if (config.bearerTokenFile() != null) {
        material = new Material(now, BearerTokenFile.read(file), Map.of(), null);
        return;
      }
      Map<String, byte[]> users = readUsers(file);
      material = new Material(now, null, users, dummyHash(users));
      accepted.clear();
      rejected.clear();
    }

    /** bcrypt of a fixed password at the highest cost in the file, with a random salt. */
    private static byte[] dummyHash(Map<String, byte[]> users) {
      int cost = users.values().stream().mapToInt(Authenticator::cost).max().orElse(10);
      byte[] salt = new byte[16];
      new SecureRandom().nextBytes(salt);
      return BCrypt.with(BCrypt.Version.VERSION_2Y).hash(cost, salt, "not a password".getBytes(StandardCharsets.UTF_8));
    }

    /** The cost of a {@code $2y$10$...} hash. */
    static int cost(byte[] hash) {
      return Integer.parseInt(new String(hash, 4, 2, StandardCharsets.US_ASCII));
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
        throw new CredentialException("cannot read listener.auth.basicUsersFile " + file + ": "
            + dev.gputop.config.internal.IoMessages.describe(e));
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

    private static String digest(String user, byte[] password, byte[] hash) {
      try {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        d.update(user.getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
        d.update(password);
        d.update((byte) 0);
        d.update(hash);
        return Base64.getEncoder().encodeToString(d.digest());
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is in every JDK", e);
      }
    }

  }

  /** A bounded set of digests; the oldest goes first when it is full. Thread-safe. */
  private static final class BoundedCache {
    private final int max;
    private final Map<String, Boolean> entries;

    BoundedCache(int max) {
      this.max = max;
      this.entries = new LinkedHashMap<>(16, 0.75f, true);
    }

    synchronized boolean contains(String key) {
      return entries.get(key) != null;
    }

    synchronized void add(String key) {
      if (entries.size() >= max) {
        entries.remove(entries.keySet().iterator().next());
      }
      entries.put(key, Boolean.TRUE);
    }

    synchronized void clear() {
      entries.clear();
    }
  }

  /**
   * Rejected passwords per client address within a window (a count and when it began), for at
   * most {@link Authenticator#MAX_CLIENTS} addresses, the least recently seen dropped first.
   */
  private static final class ClientFailures {
    private final Clock clock;
    private final Map<String, long[]> counts = new LinkedHashMap<>(16, 0.75f, true);

    ClientFailures(Clock clock) {
      this.clock = clock;
    }

    synchronized boolean overLimit(String client) {
      long[] c = counts.get(client);
      if (c == null) {
        return false;
      }
      if (clock.nanoTime() - c[1] > Authenticator.CLIENT_WINDOW.toNanos()) {
        counts.remove(client);
        return false;
      }
      return c[0] >= Authenticator.CLIENT_FAILURES;
    }

    synchronized void failed(String client) {
      long now = clock.nanoTime();
      long[] c = counts.get(client);
      if (c == null || now - c[1] > Authenticator.CLIENT_WINDOW.toNanos()) {
        if (c == null && counts.size() >= Authenticator.MAX_CLIENTS) {
          counts.remove(counts.keySet().iterator().next());
        }
        counts.put(client, new long[] {1, now});
      } else {
        c[0]++;
      }
    }
  }

  /** Whether {@code address} is reachable from other hosts. */
  static boolean exposed(InetSocketAddress address) {
    Objects.requireNonNull(address, "address");
    return address.getAddress() == null || !address.getAddress().isLoopbackAddress();
  }
}
