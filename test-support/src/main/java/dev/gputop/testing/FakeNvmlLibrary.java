package dev.gputop.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Builds the fake libnvidia-ml of nvml/src/test/c/fake_nvml.c with gcc, once per variant and JVM,
 * into the calling module's {@code target/fake-nvml/<variant>/libnvidia-ml.so.1}. The one gcc
 * build of every module's tests; each module keeps its own JNA interface to the fake's scripting
 * functions. Two JVMs of one module (its test forks) may build a variant at the same time: each
 * writes a file of its own and renames it into place, so no JVM ever loads a half-written library.
 *
 * <p>A missing gcc fails the test in CI and skips it elsewhere, saying so ({@link Ci#missing});
 * a missing source or a compile error always fails. Thread-safe.
 */
public final class FakeNvmlLibrary {

  /** Overrides where fake_nvml.c is (a path), for builds outside the reactor. */
  public static final String SOURCE_PROPERTY = "gputop.fake.nvml.source";

  private static final String SOURCE = "nvml/src/test/c/fake_nvml.c";
  private static final Map<String, Path> BUILT = new HashMap<>();

  private FakeNvmlLibrary() {}

  /** The library built from fake_nvml.c alone, without -D flags. */
  public static Path build() {
    return build("current", List.of(), List.of());
  }

  /**
   * A variant of the library, built on first use.
   *
   * @param variant a name for the variant (its directory under target/fake-nvml)
   * @param flags extra gcc flags, e.g. {@code -DFAKE_OLD_DRIVER}
   * @param extraSources more C files compiled into the same library (e.g. a scenario)
   */
  public static synchronized Path build(String variant, List<String> flags, List<Path> extraSources) {
    String key = variant + " " + flags + " " + extraSources;
    Path built = BUILT.get(key);
    if (built != null) {
      return built;
    }
    Path source = source();
    Path dir = Path.of("target", "fake-nvml", variant.toLowerCase(Locale.ROOT)).toAbsolutePath();
    Path out = dir.resolve("libnvidia-ml.so.1");
    Path written = dir.resolve("libnvidia-ml.so.1." + ProcessHandle.current().pid() + ".tmp");
    List<String> command = new ArrayList<>(List.of("gcc", "-shared", "-fPIC", "-O2", "-Wall"));
    command.addAll(flags);
    command.addAll(List.of("-o", written.toString(), source.toString()));
    extraSources.forEach(p -> command.add(p.toAbsolutePath().toString()));
    Process gcc;
    try {
      Files.createDirectories(dir);
      gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      return Ci.missing("gcc is needed to build the fake libnvidia-ml (" + e.getMessage() + ")");
    }
    try {
      String output = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!gcc.waitFor(120, TimeUnit.SECONDS)) {
        gcc.destroyForcibly();
        throw new IllegalStateException("gcc did not finish within 120 s for " + variant);
      }
      if (gcc.exitValue() != 0) {
        throw new IllegalStateException("gcc failed for " + variant + ": " + output);
      }
      Files.move(written, out, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new IllegalStateException("building the fake libnvidia-ml failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    BUILT.put(key, out);
    return out;
  }

  /**
   * fake_nvml.c: from {@value #SOURCE_PROPERTY}, else found from the working directory (a module
   * directory or the repository root) upwards.
   */
  public static Path source() {
    String property = System.getProperty(SOURCE_PROPERTY);
    if (property != null && !property.isBlank()) {
      Path p = Path.of(property).toAbsolutePath().normalize();
      if (!Files.isRegularFile(p)) {
        throw new IllegalStateException(SOURCE_PROPERTY + " names " + p + ", which does not exist");
      }
      return p;
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(SOURCE);
      if (Files.isRegularFile(candidate)) {
        return candidate.normalize();
      }
    }
    throw new IllegalStateException(SOURCE + " not found from " + Path.of("").toAbsolutePath());
  }
}
