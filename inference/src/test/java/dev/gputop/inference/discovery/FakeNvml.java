package dev.gputop.inference.discovery;

import com.sun.jna.Library;
import com.sun.jna.Native;
import dev.gputop.testing.FakeNvmlLibrary;
import java.nio.file.Path;

/**
 * The fake libnvidia-ml of the nvml module (nvml/src/test/c/fake_nvml.c), compiled by
 * test-support's {@link FakeNvmlLibrary} on first use, with the scripting calls discovery tests
 * need. Without gcc, tests that use it are skipped locally and fail in CI.
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

  /** The library, built by test-support's {@link FakeNvmlLibrary} (which skips or fails without gcc). */
  static synchronized Path path() {
    if (library == null) {
      library = FakeNvmlLibrary.build();
    }
    return library;
  }

  static synchronized Control control() {
    if (control == null) {
      control = Native.load(path().toString(), Control.class);
    }
    return control;
  }
}
