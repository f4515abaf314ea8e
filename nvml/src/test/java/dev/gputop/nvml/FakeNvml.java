package dev.gputop.nvml;

import com.sun.jna.Library;
import com.sun.jna.Native;
import dev.gputop.testing.FakeNvmlLibrary;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The fake libnvidia-ml of src/test/c/fake_nvml.c, compiled by test-support's {@link
 * FakeNvmlLibrary} on first use into target/fake-nvml/&lt;variant&gt;/libnvidia-ml.so.1, and its
 * scripting functions. One JVM shares each variant's state, so every test starts with {@link
 * Control#fake_nvml_reset}.
 */
final class FakeNvml {

  /** The compiled variants: -D flags of fake_nvml.c. */
  enum Variant {
    CURRENT(),
    OLD_DRIVER("-DFAKE_OLD_DRIVER"),
    R535_EARLY("-DFAKE_R535_EARLY");

    final List<String> flags;

    Variant(String... flags) {
      this.flags = List.of(flags);
    }
  }

  /** The fake's scripting API (see the comments in fake_nvml.c). */
  interface Control extends Library {
    void fake_nvml_reset(int count);

    int fake_nvml_set(int dev, String field, long value);

    int fake_nvml_set_string(int dev, String field, String value);

    int fake_nvml_add_process(int dev, int pid, long usedBytes);

    void fake_nvml_clear_processes(int dev);

    int fake_nvml_add_process_sample(int dev, int pid, long timestampMicros, int sm, int mem);

    int fake_nvml_add_mig(int parent, int gi, int ci, long memTotal);

    void fake_nvml_set_error(String function, int dev, int code, int times);

    void fake_nvml_set_v3_stride(int bytes);

    int fake_nvml_set_nvlink(int dev, int link, String field, long value);

    int fake_nvml_xid(int dev, long xid);

    long fake_nvml_calls(String function);

    int fake_nvml_init_calls();

    int fake_nvml_shutdown_calls();

    int fake_nvml_refcount();
  }

  private static final Map<Variant, Path> built = new EnumMap<>(Variant.class);
  private static final Map<Variant, Control> controls = new EnumMap<>(Variant.class);

  private FakeNvml() {}

  /** The library file of a variant, built by the shared {@link FakeNvmlLibrary} on first use. */
  static synchronized Path library(Variant variant) {
    return built.computeIfAbsent(
        variant, v -> FakeNvmlLibrary.build(v.name(), v.flags, List.of()));
  }

  /** The scripting functions of a variant's library (the same loaded copy NVML calls use). */
  static synchronized Control control(Variant variant) {
    return controls.computeIfAbsent(
        variant, v -> Native.load(library(v).toString(), Control.class));
  }

  /** Resets the current variant to {@code count} GPUs and returns its control. */
  static Control reset(int count) {
    Control c = control(Variant.CURRENT);
    c.fake_nvml_reset(count);
    return c;
  }
}
