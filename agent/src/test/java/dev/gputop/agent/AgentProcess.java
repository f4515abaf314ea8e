package dev.gputop.agent;

import dev.gputop.agent.lifecycle.StandaloneAgent;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shaded jar ({@code -Dgputop.agent.jar}) running as a separate process, with its stdout and
 * stderr captured to files. For integration tests; not thread-safe.
 */
final class AgentProcess implements AutoCloseable {

  private static final Pattern LISTENING = Pattern.compile("listening on (https?://[^ ]+) ");

  final Process process;
  final Path stdout;
  final Path stderr;
  final long startedNanos;

  private AgentProcess(Process process, Path stdout, Path stderr, long startedNanos) {
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
    this.startedNanos = startedNanos;
  }

  static Path jar() {
    String jar = System.getProperty("gputop.agent.jar");
    if (jar == null) {
      throw new IllegalStateException("system property gputop.agent.jar is not set (run through failsafe)");
    }
    Path p = Path.of(jar);
    if (!Files.isRegularFile(p)) {
      throw new IllegalStateException("shaded jar not found: " + p + " (run ./mvnw verify)");
    }
    return p;
  }

  static AgentProcess start(Path workDir, Map<String, String> env, String... args) throws IOException {
    return start(workDir, env, List.of(), args);
  }

  /** As {@link #start(Path, Map, String...)}, with options for the JVM before {@code -jar}. */
  static AgentProcess start(Path workDir, Map<String, String> env, List<String> jvmOptions, String... args)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-jar");
    cmd.add(jar().toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(workDir.toFile());
    // Only what the test sets: an OTEL_* variable of the machine must not change the outcome.
    pb.environment().keySet().removeIf(k -> k.startsWith("OTEL_"));
    pb.environment().putAll(env);
    Path out = Files.createTempFile(workDir, "agent", ".out");
    Path err = Files.createTempFile(workDir, "agent", ".err");
    pb.redirectOutput(out.toFile());
    pb.redirectError(err.toFile());
    long t0 = System.nanoTime();
    return new AgentProcess(pb.start(), out, err, t0);
  }

  /** The agent's process id (for its CPU time in /proc). */
  long pid() {
    return process.pid();
  }

  /** Runs to completion (at most {@code timeout}) and returns the exit code. */
  int waitFor(Duration timeout) throws InterruptedException, IOException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("agent did not exit within " + timeout + "; stderr:\n" + err());
    }
    return process.exitValue();
  }

  /**
   * Sends SIGTERM and waits for the exit (an event: the limit only ends a test that would hang);
   * returns the milliseconds from the signal to the exit.
   */
  long terminate() throws Exception {
    long t0 = System.nanoTime();
    process.destroy(); // SIGTERM
    waitFor(Duration.ofSeconds(60));
    return (System.nanoTime() - t0) / 1_000_000;
  }

  /** As {@link #terminate()}, with {@code kill -SIGNAL} (e.g. {@code INT}, what Ctrl-C sends). */
  long signal(String signal) throws Exception {
    long t0 = System.nanoTime();
    Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new AssertionError("kill -" + signal + " failed");
    }
    waitFor(Duration.ofSeconds(60));
    return (System.nanoTime() - t0) / 1_000_000;
  }

  /**
   * How long a JVM that does nothing ({@link HostApp}, started and serving) takes from SIGTERM to
   * its exit, measured now: the JVM's own part of any exit (running its shutdown machinery,
   * stopping, being reaped by the OS), which a loaded machine stretches well beyond what a fixed
   * bound could guess.
   */
  static long idleJvmExitMillis(Path workDir) throws Exception {
    Path classes = Path.of(HostApp.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path out = Files.createTempFile(workDir, "idle-jvm", ".out");
    Process idle = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", classes.toString(), HostApp.class.getName(), workDir.resolve("never").toString())
        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!Files.readString(out).contains(HostApp.SERVING)) {
        if (System.nanoTime() > deadline || !idle.isAlive()) {
          throw new AssertionError("idle JVM never served: " + Files.readString(out));
        }
        Thread.sleep(20);
      }
      long t0 = System.nanoTime();
      idle.destroy(); // SIGTERM
      if (!idle.waitFor(60, TimeUnit.SECONDS)) {
        throw new AssertionError("idle JVM did not exit within 60 s of SIGTERM");
      }
      return (System.nanoTime() - t0) / 1_000_000;
    } finally {
      idle.destroyForcibly();
    }
  }

  /**
   * The longest an agent may take from SIGTERM to its exit, given the idle JVM's exit measured at
   * the same time: on top of that, the stop's budget ({@link StandaloneAgent#STOP_BUDGET}: every
   * step is bounded by its share) plus the floor the SDK's shutdown always gets ({@link
   * StandaloneAgent#SHUTDOWN_FLOOR}).
   */
  static long maxExitMillis(long idleJvmExitMillis) {
    return StandaloneAgent.STOP_BUDGET.plus(StandaloneAgent.SHUTDOWN_FLOOR).toMillis() + idleJvmExitMillis;
  }

  String out() throws IOException {
    return Files.readString(stdout, StandardCharsets.UTF_8);
  }

  String err() throws IOException {
    return Files.readString(stderr, StandardCharsets.UTF_8);
  }

  /** The listener's base URL, from the agent's log line, waiting at most {@code timeout}. */
  String awaitListener(Duration timeout) throws Exception {
    return awaitErr(LISTENING, "its listener", timeout).group(1);
  }

  /** Waits at most {@code timeout} until stderr contains {@code text}; fails if the agent exits first. */
  void awaitErr(String text, Duration timeout) throws Exception {
    awaitErr(Pattern.compile(Pattern.quote(text)), "'" + text + "'", timeout);
  }

  private Matcher awaitErr(Pattern pattern, String what, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Matcher m = pattern.matcher(err());
      if (m.find()) {
        return m;
      }
      if (!process.isAlive()) {
        throw new AssertionError("agent exited with " + process.exitValue() + "; stderr:\n" + err());
      }
      Thread.sleep(20);
    }
    throw new AssertionError("agent did not log " + what + " within " + timeout + "; stderr:\n" + err());
  }

  /** GET {@code url}; the status code and body. */
  static HttpResponse<String> get(HttpClient http, String url) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
