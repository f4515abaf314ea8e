package dev.gputop.inference.discovery;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts real processes that look like inference servers (test resource {@code fake_engine.py}
 * under each engine's program name) and kills every one of them, with all descendants, on close.
 */
final class FakeEngines implements AutoCloseable {

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);

  private final Path bin;
  private final Path pythonPath;
  private final String python;
  private final List<Process> started = new ArrayList<>();

  FakeEngines(Path dir) throws IOException, InterruptedException {
    this.python = realPython();
    this.bin = Files.createDirectories(dir.resolve("bin"));
    this.pythonPath = Files.createDirectories(dir.resolve("py"));
    String source;
    try (InputStream in = FakeEngines.class.getResourceAsStream("/discovery/fake_engine.py")) {
      source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    String script = "#!" + python + "\n" + source;
    for (String name :
        List.of("vllm", "llama-server", "text-generation-launcher", "text-generation-router", "text-generation-server",
            "trtllm-serve", "tritonserver", "lmdeploy", "text-embeddings-router")) {
      Path p = bin.resolve(name);
      Files.writeString(p, script);
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    Path sglang = Files.createDirectories(pythonPath.resolve("sglang"));
    Files.writeString(sglang.resolve("__init__.py"), "");
    Files.writeString(sglang.resolve("launch_server.py"), source);
    Path openai = Files.createDirectories(pythonPath.resolve("vllm/entrypoints/openai"));
    for (Path pkg : List.of(pythonPath.resolve("vllm"), pythonPath.resolve("vllm/entrypoints"), openai)) {
      Files.writeString(pkg.resolve("__init__.py"), "");
    }
    Files.writeString(openai.resolve("api_server.py"), source);
    Path frontend = Files.createDirectories(pythonPath.resolve("dynamo/frontend"));
    Files.writeString(pythonPath.resolve("dynamo/__init__.py"), "");
    Files.writeString(frontend.resolve("__init__.py"), "");
    Files.writeString(frontend.resolve("__main__.py"), source);
  }

  /** The interpreter itself, not a pyenv shim, so the command lines look like the real thing. */
  private static String realPython() throws IOException, InterruptedException {
    Process p = new ProcessBuilder("python3", "-c", "import sys; print(sys.executable)").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0 || out.isEmpty()) {
      throw new IOException("python3 not usable: " + out);
    }
    return out;
  }

  static boolean pythonAvailable() {
    try {
      realPython();
      return true;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  /** Runs a program from the fake bin directory, e.g. {@code run("vllm", "serve", "m", "--port", "8000")}. */
  Process run(String program, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(bin.resolve(program).toString());
    cmd.addAll(List.of(args));
    return start(new ProcessBuilder(cmd));
  }

  /** Runs {@code python3 -m sglang.launch_server <args>}. */
  Process sglang(String... args) throws IOException {
    return module("sglang.launch_server", args);
  }

  /** Runs {@code python3 -m <module> <args>} for one of the fake modules. */
  Process module(String module, String... args) throws IOException {
    return module(java.util.Map.of(), module, args);
  }

  /** Runs {@code python3 -m <module> <args>} with extra environment variables. */
  Process module(java.util.Map<String, String> env, String module, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(python, "-m", module));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("PYTHONPATH", pythonPath.toString());
    pb.environment().putAll(env);
    return start(pb);
  }

  private Process start(ProcessBuilder pb) throws IOException {
    pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    Process p = pb.start();
    started.add(p);
    return p;
  }

  /** Waits until something accepts connections on the port. */
  static void awaitPort(int port) throws InterruptedException {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      try (Socket s = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException e) {
        Thread.sleep(50);
      }
    }
    throw new AssertionError("nothing listens on port " + port + " after " + READY_TIMEOUT);
  }

  /** Waits until a process has at least {@code n} descendants (forked workers, titled children). */
  static void awaitDescendants(Process p, int n) throws InterruptedException {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (p.toHandle().descendants().count() >= n) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("process " + p.pid() + " has fewer than " + n + " descendants");
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Kills one process and its whole tree, and waits for it. */
  static void kill(Process p) throws InterruptedException {
    List<ProcessHandle> tree = new ArrayList<>(p.toHandle().descendants().toList());
    p.destroyForcibly();
    tree.forEach(ProcessHandle::destroyForcibly);
    p.waitFor(10, TimeUnit.SECONDS);
    for (ProcessHandle h : tree) {
      h.onExit().completeOnTimeout(h, 10, TimeUnit.SECONDS).join();
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (Process p : started) {
      kill(p);
    }
  }
}
