package dev.gputop.benchmarks;

import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.stats.WindowStatistics;
import dev.gputop.inference.window.ServerWindow;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The stages of {@link ScrapeCycleBenchmark#cycle()} timed by this thread's CPU time, the
 * minimum over many batches: a number that stays meaningful on a shared, loaded machine where
 * JMH's wall-clock averages mostly measure the other processes. Run with {@code java -cp
 * benchmarks/target/benchmarks.jar dev.gputop.benchmarks.ScrapeCycleCpuTime FILE...}.
 */
public final class ScrapeCycleCpuTime {

  private ScrapeCycleCpuTime() {}

  public static void main(String[] args) throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (String file : args) {
      byte[] body = Files.readAllBytes(Path.of(file));
      ExpositionParser parser = new ExpositionParser(ParserLimits.defaults());
      EngineMapper mapper = new EngineMapper();
      ServerWindow window = new ServerWindow(Duration.ofMinutes(1), 44);
      long t = 0;
      Exposition e = parser.parse(body, 0, body.length);
      ServerScrape s = mapper.map(e);
      double parse = Double.MAX_VALUE;
      double map = Double.MAX_VALUE;
      double stats = Double.MAX_VALUE;
      int batch = 20;
      for (int round = 0; round < 500; round++) {
        long c0 = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < batch; i++) {
          e = parser.parse(body, 0, body.length);
        }
        long c1 = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < batch; i++) {
          s = mapper.map(e);
        }
        long c2 = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < batch; i++) {
          t += 3_000_000_000L;
          window.add(t, t, s);
          WindowStatistics.compute(window, null);
        }
        long c3 = threads.getCurrentThreadCpuTime();
        parse = Math.min(parse, (c1 - c0) / 1e3 / batch);
        map = Math.min(map, (c2 - c1) / 1e3 / batch);
        stats = Math.min(stats, (c3 - c2) / 1e3 / batch);
      }
      System.out.printf(
          "%s (%d bytes, %d samples): parse %.1f us, map %.1f us, window+statistics %.1f us, cycle %.1f us%n",
          file, body.length, e.sampleCount(), parse, map, stats, parse + map + stats);
    }
  }
}
