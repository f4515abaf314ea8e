package dev.gputop.benchmarks;

import com.sun.jna.Library;
import com.sun.jna.Native;
import dev.gputop.nvml.GpuEntries;
import dev.gputop.nvml.GpuEntry;
import dev.gputop.nvml.GpuSample;
import dev.gputop.nvml.Nvml;
import dev.gputop.nvml.ProcessNames;
import dev.gputop.testing.FakeNvmlLibrary;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One NVML sampling cycle of 8 GPUs with every field (utilization, memory v2, power, energy,
 * temperature, fan, four clocks, throttle reasons, ECC, PCIe counters, MIG mode, 4 compute
 * processes each with per-process utilization), through the real JNA binding against the fake
 * libnvidia-ml. Target: 5 ms or less per cycle (docs/PERFORMANCE.md).
 *
 * <p>The fake is compiled with gcc from nvml/src/test/c/fake_nvml.c (found from the working
 * directory upwards) by test-support into target/fake-nvml, or taken from {@code -p lib=PATH}. Run:
 * {@code java -jar benchmarks/target/benchmarks.jar NvmlSampleBenchmark -f 1 -wi 3 -i 5}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class NvmlSampleBenchmark {

  /** The fake's scripting functions (see fake_nvml.c). */
  public interface FakeControl extends Library {
    void fake_nvml_reset(int count);

    int fake_nvml_set(int dev, String field, long value);

    int fake_nvml_add_process(int dev, int pid, long usedBytes);

    int fake_nvml_add_process_sample(int dev, int pid, long timestampMicros, int sm, int mem);
  }

  /** Path of a fake libnvidia-ml; empty to compile one with gcc. */
  @Param({""})
  public String lib;

  private Nvml nvml;
  private final ProcessNames names = new ProcessNames();

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    String library = lib.isEmpty() ? compileFake().toString() : lib;
    FakeControl fake = Native.load(library, FakeControl.class);
    fake.fake_nvml_reset(8);
    int self = (int) ProcessHandle.current().pid();
    for (int gpu = 0; gpu < 8; gpu++) {
      fake.fake_nvml_set(gpu, "throttle", 0x4);
      for (int p = 0; p < 4; p++) {
        int pid = p == 0 ? self : 100 + gpu * 4 + p;
        fake.fake_nvml_add_process(gpu, pid, (1L + p) << 30);
        fake.fake_nvml_add_process_sample(gpu, pid, 1_000 + p, 20 + p, 5);
      }
    }
    nvml = Nvml.open(library);
    GpuSample check = nvml.sample();
    if (check.devices().size() != 8 || check.processes().size() != 32) {
      throw new IllegalStateException("fake NVML not set up: " + check);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    nvml.close();
  }

  /** The NVML calls of one refresh: what the receiver does on the agent thread. */
  @Benchmark
  public GpuSample sample() {
    return nvml.sample();
  }

  /** One refresh as the receiver runs it: sample, then the snapshot records with process names. */
  @Benchmark
  public List<GpuEntry> sampleAndEntries() {
    return GpuEntries.of(nvml.sample(), null, names);
  }

  /** The fake library, built by test-support's one gcc build of fake_nvml.c. */
  static Path compileFake() {
    return FakeNvmlLibrary.build();
  }
}
