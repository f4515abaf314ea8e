package dev.gputop.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import at.favre.lib.crypto.bcrypt.BCrypt;
import dev.gputop.agent.Siege;
import dev.gputop.config.ListenerConfig;
import dev.gputop.testing.LogCapture;
import dev.gputop.testing.ManualClock;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authentication that costs an attacker more than the agent (docs/RELIABILITY.md, "The listener
 * under siege"): 40 clients flooding unknown users and random passwords don't slow the correct
 * user or /healthz past 250 ms (p99) nor take the listener's threads past 1.1 cores; an unknown
 * user takes as long as a known one; failures never evict the correct user's remembered entry;
 * a client past its failure limit still gets in with a remembered password; a password over
 * bcrypt's 72 bytes gets a clear 401. The two floods are load runs, only in {@code ./mvnw -B
 * verify -Plong} (what .ci/run runs); the rest runs in every build.
 */
class ListenerAuthSiegeTest {

  private static final String PASSWORD = "pw-c0rrect-h0rse";
  private static final double P99_MILLIS = 250;

  @TempDir Path dir;

  private final TestListener listener = new TestListener();
  private AgentHttpServer server;

  @AfterEach
  void stop() {
    listener.close();
  }

  @Test
  @Tag("long")
  void flood_fromOneAddress_isHeldBackTheCorrectUserAndHealthzWithin250ms() throws Exception {
    start(10); // htpasswd -B's default cost
    URI snapshot = URI.create(server.url() + "/api/snapshot");
    AtomicBoolean flooding = new AtomicBoolean(true);
    AtomicInteger sent = new AtomicInteger();
    List<Thread> attackers = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      boolean unknownUser = i % 2 == 0;
      Thread t = new Thread(() -> {
        HttpClient http = HttpClient.newHttpClient();
        while (flooding.get()) {
          String user = unknownUser ? "user" + ThreadLocalRandom.current().nextInt() : "alice";
          String password = "guess" + ThreadLocalRandom.current().nextLong();
          try {
            http.send(HttpRequest.newBuilder(snapshot).header("Authorization", basic(user, password))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
            sent.incrementAndGet();
          } catch (Exception e) {
            // the flood goes on
          }
        }
      }, "attacker-" + i);
      t.setDaemon(true);
      attackers.add(t);
    }
    // The correct user has been seen once before the flood (as Prometheus has, scraping).
    assertThat(send(snapshot, basic("alice", PASSWORD)).statusCode()).isEqualTo(200);
    attackers.forEach(Thread::start);
    Thread.sleep(1000);
    long cpuBefore = listenerCpuNanos();
    long wallBefore = System.nanoTime();
    CompletableFuture<Siege.Latencies> health = CompletableFuture.supplyAsync(() -> probe("/healthz"));
    Siege.Latencies user = Siege.probe(null, snapshot, Duration.ofMillis(100),
        Duration.ofSeconds(5), Duration.ofSeconds(2), basic("alice", PASSWORD));
    Siege.Latencies healthz = health.get();
    double cores = (listenerCpuNanos() - cpuBefore) / (double) (System.nanoTime() - wallBefore);
    flooding.set(false);
    for (Thread t : attackers) {
      t.join(10_000);
    }
    System.out.printf("[ListenerAuthSiegeTest] 40 clients, %d requests: correct user %s; /healthz %s;"
        + " listener threads %.2f cores%n", sent.get(), user, healthz, cores);

    assertThat(sent.get()).as("the flood reached the listener").isGreaterThan(200);
    assertThat(user.failures()).as(user.toString()).isZero();
    assertThat(user.statuses()).containsOnly(200);
    assertThat(user.quantileMillis(0.99)).as(user.toString()).isLessThanOrEqualTo(P99_MILLIS);
    assertThat(healthz.failures()).as(healthz.toString()).isZero();
    assertThat(healthz.statuses()).containsOnly(200);
    assertThat(healthz.quantileMillis(0.99)).as(healthz.toString()).isLessThanOrEqualTo(P99_MILLIS);
    assertThat(cores).isLessThanOrEqualTo(1.1);
  }

  @Test
  @Tag("long")
  void flood_fromFortyAddresses_bcryptBoundedTheCorrectUserAndHealthzWithin250ms() throws Exception {
    start(10);
    URI snapshot = URI.create(server.url() + "/api/snapshot");
    assertThat(send(snapshot, basic("alice", PASSWORD)).statusCode()).isEqualTo(200);
    Siege.Latencies user;
    Siege.Latencies healthz;
    double cores;
    int sent;
    try (Siege.Flood flood = Siege.passwordFlood(new java.net.InetSocketAddress("127.0.0.1", server.port()), 40,
        "/api/snapshot", "alice")) {
      Thread.sleep(1000);
      long cpuBefore = listenerCpuNanos();
      long wallBefore = System.nanoTime();
      int sentBefore = flood.sent.get();
      CompletableFuture<Siege.Latencies> health = CompletableFuture.supplyAsync(() -> probe("/healthz"));
      user = Siege.probe(null, snapshot, Duration.ofMillis(100),
          Duration.ofSeconds(5), Duration.ofSeconds(2), basic("alice", PASSWORD));
      healthz = health.get();
      cores = (listenerCpuNanos() - cpuBefore) / (double) (System.nanoTime() - wallBefore);
      sent = flood.sent.get() - sentBefore;
    }
    System.out.printf("[ListenerAuthSiegeTest] 40 addresses, %d requests: correct user %s; /healthz %s;"
        + " listener threads %.2f cores%n", sent, user, healthz, cores);

    assertThat(sent).as("the flood reached the listener").isGreaterThanOrEqualTo(100);
    assertThat(user.failures()).as(user.toString()).isZero();
    assertThat(user.statuses()).containsOnly(200);
    assertThat(user.quantileMillis(0.99)).as(user.toString()).isLessThanOrEqualTo(P99_MILLIS);
    assertThat(healthz.failures()).as(healthz.toString()).isZero();
    assertThat(healthz.statuses()).containsOnly(200);
    assertThat(healthz.quantileMillis(0.99)).as(healthz.toString()).isLessThanOrEqualTo(P99_MILLIS);
    assertThat(cores).isLessThanOrEqualTo(1.1);
  }

  @Test
  void unknownUser_takesAsLongAsAKnownUsersWrongPassword_firstTimeAndRepeated() throws Exception {
    // At the file's own cost (htpasswd -B's default), each request from its own address so that
    // no failure limit is reached; the Authenticator alone, so that only its cost is timed.
    ListenerSecurity.Authenticator auth = new ListenerSecurity.Authenticator(config(10), new ManualClock());
    AtomicInteger client = new AtomicInteger();
    auth.check(basic("alice", PASSWORD), "127.0.0.1"); // the JIT's first pass is no one's cost
    List<Long> knownFirst = new ArrayList<>();
    List<Long> unknownFirst = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      knownFirst.add(timed(auth, basic("alice", "wrong" + i), client));
      unknownFirst.add(timed(auth, basic("mallory" + i, "wrong" + i), client));
    }
    List<Long> knownAgain = new ArrayList<>();
    List<Long> unknownAgain = new ArrayList<>();
    for (int i = 0; i < 201; i++) {
      knownAgain.add(timed(auth, basic("alice", "wrong0"), client));
      unknownAgain.add(timed(auth, basic("mallory0", "wrong0"), client));
    }
    System.out.printf("[ListenerAuthSiegeTest] medians, ms: first time known %.3f unknown %.3f; repeated known %.4f unknown %.4f%n",
        median(knownFirst) / 1e6, median(unknownFirst) / 1e6, median(knownAgain) / 1e6, median(unknownAgain) / 1e6);

    assertThat(ratio(median(knownFirst), median(unknownFirst))).isLessThanOrEqualTo(3);
    assertThat(ratio(median(knownAgain), median(unknownAgain))).isLessThanOrEqualTo(3);
  }

  @Test
  void failures_neverEvictTheCorrectUser_andAClientOverItsLimitStillGetsInWithIt() throws Exception {
    // Thousands of addresses, each one's first rejection a WARNING: not for the test's output.
    java.util.logging.Logger.getLogger(ListenerSecurity.class.getName()).setLevel(java.util.logging.Level.SEVERE);
    try {
      evictionAndLimit();
    } finally {
      java.util.logging.Logger.getLogger(ListenerSecurity.class.getName()).setLevel(null);
    }
  }

  private void evictionAndLimit() throws Exception {
    ManualClock clock = new ManualClock();
    ListenerSecurity.Authenticator auth = new ListenerSecurity.Authenticator(config(4), clock);
    assertThat(auth.check(basic("alice", PASSWORD), "127.0.0.1").accepted()).isTrue();
    long runs = auth.bcryptRuns();

    // More distinct failures than either cache holds, from as many addresses (under each one's limit).
    int failures = ListenerSecurity.Authenticator.MAX_ACCEPTED + ListenerSecurity.Authenticator.MAX_REJECTED + 10;
    for (int i = 0; i < failures; i++) {
      assertThat(auth.check(basic(i % 2 == 0 ? "alice" : "u" + i, "guess" + i), "127.0.1." + (i % 250) + "/" + i).status())
          .isEqualTo(401);
    }
    assertThat(auth.bcryptRuns()).isEqualTo(runs + failures);
    assertThat(auth.check(basic("alice", PASSWORD), "127.0.0.1").accepted()).isTrue();
    assertThat(auth.bcryptRuns()).as("remembered: no bcrypt").isEqualTo(runs + failures);

    // One client past its limit: anything else is held back, the remembered password accepted.
    for (int i = 0; i < ListenerSecurity.Authenticator.CLIENT_FAILURES; i++) {
      assertThat(auth.check(basic("alice", "again" + i), "127.0.0.9").status()).isEqualTo(401);
    }
    long before = auth.bcryptRuns();
    assertThat(auth.check(basic("alice", "one more"), "127.0.0.9")).satisfies(v -> {
      assertThat(v.status()).isEqualTo(429);
      assertThat(v.delayed()).isTrue();
    });
    assertThat(auth.check(basic("mallory", "one more"), "127.0.0.9").status()).isEqualTo(429);
    assertThat(auth.check(null, "127.0.0.9").status()).isEqualTo(429);
    assertThat(auth.bcryptRuns()).isEqualTo(before);
    assertThat(auth.check(basic("alice", PASSWORD), "127.0.0.9").accepted()).isTrue();
    assertThat(auth.check(basic("alice", "one more"), "127.0.0.10").status()).as("another client").isEqualTo(401);
    clock.advance(ListenerSecurity.Authenticator.CLIENT_WINDOW.plusSeconds(1));
    assertThat(auth.check(basic("alice", "one more"), "127.0.0.9").status()).as("after the window").isEqualTo(401);
  }

  @Test
  void passwordOver72Bytes_isAClear401_loggedOnceThenThrottled() throws Exception {
    java.util.logging.Logger security = java.util.logging.Logger.getLogger(ListenerSecurity.class.getName());
    LogCapture capture = LogCapture.attach(security, java.util.logging.Level.ALL);
    List<java.util.logging.LogRecord> records = capture.records();
    security.setLevel(java.util.logging.Level.INFO);
    try {
      start(4);
      URI snapshot = URI.create(server.url() + "/api/snapshot");
      for (int i = 0; i < 3; i++) {
        HttpResponse<String> r = send(snapshot, basic("alice", PASSWORD + "x".repeat(72 + i)));
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.body()).contains("longer than bcrypt's 72 bytes").doesNotContain(PASSWORD);
      }
      // exactly 72 bytes is still a password bcrypt reads whole
      assertThat(send(snapshot, basic("alice", "y".repeat(72))).statusCode()).isEqualTo(401);
      // The correct one, first seen now: while that bcrypt rests (as long as it ran) it is 429
      // with Retry-After, then 200.
      HttpResponse<String> ok = send(snapshot, basic("alice", PASSWORD));
      for (int i = 0; i < 20 && ok.statusCode() == 429; i++) {
        assertThat(ok.headers().firstValue("Retry-After")).hasValue("1");
        Thread.sleep(50);
        ok = send(snapshot, basic("alice", PASSWORD));
      }
      assertThat(ok.statusCode()).isEqualTo(200);

      assertThat(records).filteredOn(r -> r.getLevel() == java.util.logging.Level.WARNING)
          .extracting(java.util.logging.LogRecord::getMessage)
          .containsExactly("Listener requests from 127.0.0.1 failed: 401: a password longer than bcrypt's 72 bytes (88),"
              + " which no users file entry can match");
      assertThat(records).filteredOn(r -> r.getLevel() == java.util.logging.Level.INFO)
          .extracting(java.util.logging.LogRecord::getMessage)
          .anyMatch(m -> m.contains("bcrypt reads at most 72 bytes of a password"));
      assertThat(records).extracting(java.util.logging.LogRecord::getMessage).noneMatch(m -> m.contains(PASSWORD));
    } finally {
      capture.close();
      security.setLevel(null);
    }
  }

  // ------------------------------------------------------------------ helpers

  private ListenerConfig config(int cost) throws Exception {
    Path users = dir.resolve("users");
    Files.writeString(users, "alice:" + BCrypt.with(BCrypt.Version.VERSION_2Y).hashToString(cost, PASSWORD.toCharArray()) + "\n");
    return new ListenerConfig(null, null, null, null, users.toString(), ListenerConfig.DEFAULT_EXEMPT_PATHS);
  }

  private void start(int cost) throws Exception {
    ListenerConfig config = config(cost);
    server = listener.start(config);
  }

  private Siege.Latencies probe(String path) {
    try {
      return Siege.probe(null, URI.create(server.url() + path), Duration.ofMillis(100),
          Duration.ofSeconds(5), Duration.ofSeconds(2));
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpResponse<String> send(URI uri, String authorization) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(uri).header("Authorization", authorization).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static long timed(ListenerSecurity.Authenticator auth, String authorization, AtomicInteger client) {
    String from = "127.0." + (client.get() / 250) + "." + (client.incrementAndGet() % 250);
    long start = System.nanoTime();
    ListenerSecurity.Verdict v = auth.check(authorization, from);
    long took = System.nanoTime() - start;
    assertThat(v.status()).isEqualTo(401);
    return took;
  }

  private static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  private static double ratio(long a, long b) {
    return Math.max(a, b) / (double) Math.min(a, b);
  }

  private static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /** CPU time of the listener's threads (gputop-http-*), from the JVM's thread accounting. */
  private static long listenerCpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long total = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("gputop-http")) {
        long cpu = threads.getThreadCpuTime(t.getId());
        total += Math.max(cpu, 0);
      }
    }
    return total;
  }
}
