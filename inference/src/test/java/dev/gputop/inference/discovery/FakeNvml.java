package dev.gputop.inference.discovery;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The fake libnvidia-ml of the nvml module (nvml/src/test/c/fake_nvml.c), compiled with gcc into
 * target/fake-nvml on first use, with the scripting calls discovery tests need. Tests that use it
 * are skipped when gcc or the source is missing.
 */
final class FakeNvml {

  /** The fake's scripting API (see fake_nvml.c). */
  interface Control extends Library {
    void fake_nvml_reset(int count);

    int fake_nvml_add_process(int dev, int pid, long usedBytes);
  }

  private static Path library;
  private static Control control;

  private FakeNvml() {}

  static synchronized Path path() {
    if (library != null) {
      return library;
    }
    Path source = Path.of("../nvml/src/test/c/fake_nvml.c").toAbsolutePath().normalize();
    Assumptions.assumeTrue(Files.isRegularFile(source), "fake NVML source " + source + " is missing");
    Path out = Path.of("target/fake-nvml/libnvidia-ml.so.1").toAbsolutePath();
    try {
      Files.createDirectories(out.getParent());
      Process gcc = new ProcessBuilder(List.of("gcc", "-shared", "-fPIC", "-O2", "-o", out.toString(), source.toString()))
          .redirectErrorStream(true)
          .start();
      String output = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!gcc.waitFor(120, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
        gcc.destroyForcibly();
        throw new IllegalStateException("gcc failed: " + output);
      }
    } catch (IOException e) {
      Assumptions.abort("gcc is needed to build the fake libnvidia-ml: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    library = out;
    return library;
  }

  static synchronized Control control() {
    if (control == null) {
      control = Native.load(path().toString(), Control.class);
    }
    return control;
  }
}
