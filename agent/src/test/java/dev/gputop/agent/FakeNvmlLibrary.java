package dev.gputop.agent;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.nio.file.Path;

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
  }

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

  public static synchronized Control control() {
    if (control == null) {
      control = Native.load(path().toString(), Control.class);
    }
    return control;
  }
}
