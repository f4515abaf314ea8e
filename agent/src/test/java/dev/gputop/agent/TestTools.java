package dev.gputop.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Command-line tools the listener-security tests run: openssl for their certificates. */
public final class TestTools {

  private TestTools() {}

  /** Runs {@code openssl ARGS} in {@code dir}; fails with its output when it does not exit 0. */
  public static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("openssl " + String.join(" ", args) + " failed: " + out);
    }
  }

  /** Whether an executable named {@code tool} is on the PATH. */
  public static boolean onPath(String tool) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(d, tool))) {
        return true;
      }
    }
    return false;
  }
}
