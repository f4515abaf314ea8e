package dev.gputop.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler that reports the CPU time the benchmark JVM spent per operation, for numbers
 * that mean something on a shared machine where the benchmark thread gets only part of a core:
 * wall-clock throughput then measures the neighbours, CPU time much less so.
 *
 * <ul>
 *   <li>{@code cpu.time.norm}: process CPU nanoseconds per operation (all threads, so JIT and GC
 *       work is included; after warm-up it is mostly the benchmark thread);
 *   <li>{@code cpu.share}: CPU seconds per wall second, i.e. how many cores the benchmark got
 *       (1.0 on a quiet machine for a single-threaded benchmark);
 *   <li>{@code cpu.inputBytes}: input bytes per CPU second, when the benchmark publishes its
 *       bytes per operation in the system property {@value #BYTES_PER_OP}.
 * </ul>
 *
 * <p>Use: {@code java -jar benchmarks/target/benchmarks.jar ParseBenchmark -prof gc -prof
 * dev.gputop.benchmarks.CpuTimeProfiler}. JMH creates one instance per fork and calls it from
 * one thread.
 */
public final class CpuTimeProfiler implements InternalProfiler {

  /** System property in which a benchmark may publish how many input bytes one operation reads. */
  public static final String BYTES_PER_OP = "gputop.benchmark.bytesPerOp";

  private long cpuStart;
  private long wallStart;

  @Override
  public String getDescription() {
    return "process CPU time per operation and the share of a core the benchmark got";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    cpuStart = processCpuNanos();
    wallStart = System.nanoTime();
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    long cpu = processCpuNanos() - cpuStart;
    long wall = System.nanoTime() - wallStart;
    long ops = result.getMetadata().getAllOps();
    List<Result> results = new ArrayList<>();
    if (cpu <= 0 || ops <= 0) {
      return results;
    }
    results.add(new ScalarResult("cpu.time.norm", (double) cpu / ops, "ns/op", AggregationPolicy.AVG));
    results.add(new ScalarResult("cpu.share", (double) cpu / wall, "cores", AggregationPolicy.AVG));
    String bytes = System.getProperty(BYTES_PER_OP);
    if (bytes != null) {
      double perCpuSecond = Double.parseDouble(bytes) * ops / (cpu / 1e9);
      results.add(new ScalarResult("cpu.inputBytes", perCpuSecond, "B/cpu-s", AggregationPolicy.AVG));
    }
    return results;
  }

  private static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean) {
      return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
    }
    return -1;
  }
}
