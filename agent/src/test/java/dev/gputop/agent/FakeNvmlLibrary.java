package dev.gputop.agent;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The fake libnvidia-ml of nvml/src/test/c/fake_nvml.c, compiled by test-support's {@link
 * dev.gputop.testing.FakeNvmlLibrary} into agent/target/fake-nvml on first use, with the
 * scripting functions the agent's tests need.
 */
public final class FakeNvmlLibrary {

  /** A subset of the fake's scripting API (see fake_nvml.c). */
  public interface Control extends Library {
    void fake_nvml_reset(int count);

    int fake_nvml_set(int dev, String field, long value);

    int fake_nvml_add_process(int dev, int pid, long usedBytes);

    int fake_nvml_add_process_sample(int dev, int pid, long timestampMicros, int sm, int mem);

    int fake_nvml_add_mig(int parent, int gi, int ci, long memTotal);

    /** Runs every GPU ({@code dev} -1) or one for {@code millis}: their energy counters grow. */
    int fake_nvml_run(int dev, long millis);
  }

  /**
   * A copy of the library under a file name of its own, loaded, with {@code devices} GPUs.
   *
   * @param path what a config's {@code nvml.library} names to read these GPUs
   * @param control their scripting functions
   */
  public record Copy(Path path, Control control) {}

  private static Path library;
  private static Control control;

  private FakeNvmlLibrary() {}

  /** The library, built by test-support's builder (which skips or fails without gcc). */
  public static synchronized Path path() {
    if (library == null) {
      library = dev.gputop.testing.FakeNvmlLibrary.build();
    }
    return library;
  }

  /**
   * The library copied to {@code fileName} beside the build, loaded and reset to {@code devices}
   * GPUs. The fake keeps its GPUs in the loaded file's memory, so the copy's GPUs are its own;
   * and JNA, which caches a loaded library by file name, still leaves {@code libnvidia-ml.so.1}
   * unresolved for the tests that expect no NVML.
   */
  public static Copy copy(String fileName, int devices) {
    Path copy = path().resolveSibling(fileName);
    try {
      Files.copy(path(), copy, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Control control = Native.load(copy.toString(), Control.class);
    control.fake_nvml_reset(devices);
    return new Copy(copy, control);
  }

  public static synchronized Control control() {
    if (control == null) {
      control = Native.load(path().toString(), Control.class);
    }
    return control;
  }
}
