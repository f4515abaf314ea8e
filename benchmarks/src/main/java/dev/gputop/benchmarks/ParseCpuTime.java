package dev.gputop.benchmarks;

import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * The steady-state parse of one exposition ({@link ParseBenchmark#parse}) timed by this thread's
 * CPU time: the minimum and the median over many batches of parses. On a shared machine, where
 * JMH's wall-clock figures measure the neighbours, the minimum stays put; run two builds one
 * after the other, several times, to compare them. The CPU of the collector threads is not in
 * it: {@code ParseBenchmark -prof gc} gives the allocation, exactly.
 *
 * <pre>
 * java [-Dparse.warmupRounds=300] -cp benchmarks/target/benchmarks.jar dev.gputop.benchmarks.ParseCpuTime [FILE|classpath:RES]...
 * </pre>
 *
 * <p>Uses only {@code new ExpositionParser(ParserLimits.defaults())} and {@code parse}, so the
 * compiled class also runs against an older build's jar ({@code -cp this-class-dir:old.jar}).
 */
public final class ParseCpuTime {

  /**
   * Batches parsed before timing; {@code -Dparse.warmupRounds=5000} for a long warm-up, so that
   * on a busy machine, where the compiler threads get little CPU, every method is at its final
   * compilation before the timed rounds start.
   */
  private static final int WARMUP_ROUNDS = Integer.getInteger("parse.warmupRounds", 300);
  private static final int ROUNDS = 600;
  /**
   * Input bytes per batch, at least 20 parses: the 66 KB vLLM file is parsed 20 at a time and the
   * 1.8 KB llama.cpp one 723 at a time, so that a small file's warm-up is as long as a large
   * one's. With batches of 20, the warm-up of a 2-15 KB file was over in 5-50 ms, too soon for
   * the server compiler, and the 1.8 KB file's minimum came out at 2.7 times the settled one.
   */
  private static final int BATCH_BYTES = 1_300_000;

  private ParseCpuTime() {}

  public static void main(String[] args) throws Exception {
    String[] files = args.length > 0 ? args : new String[] {"classpath:fixtures/vllm/vllm-v1-dp2.prom"};
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (String file : files) {
      byte[] body = ParseBenchmark.read(file);
      ExpositionParser parser = new ExpositionParser(ParserLimits.defaults());
      Exposition e = parser.parse(body, 0, body.length);
      long sink = 0;
      double[] perParse = new double[ROUNDS];
      int batch = Math.max(20, BATCH_BYTES / Math.max(1, body.length));
      for (int round = -WARMUP_ROUNDS; round < ROUNDS; round++) {
        long c0 = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < batch; i++) {
          e = parser.parse(body, 0, body.length);
          sink += e.families().size();
        }
        long c1 = threads.getCurrentThreadCpuTime();
        if (round >= 0) {
          perParse[round] = (c1 - c0) / 1e3 / batch;
        }
      }
      Arrays.sort(perParse);
      double min = perParse[0];
      double median = perParse[ROUNDS / 2];
      System.out.printf(
          "%s: %,d bytes; thread CPU per parse: min %.1f us (%,.0f MB per CPU-second), median %.1f us (%d)%n",
          file, body.length, min, body.length / min, median, sink % 7);
    }
  }
}
