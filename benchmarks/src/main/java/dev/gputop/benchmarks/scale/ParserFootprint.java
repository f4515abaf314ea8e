package dev.gputop.benchmarks.scale;

import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.parse.ParserTables;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What one server's {@link ExpositionParser} keeps between scrapes: N parsers each parse the same
 * exposition three times (as N servers of one fleet would, scrape after scrape), the expositions
 * are dropped, and the heap in use after full collections, less the heap before, is divided by N.
 * Inputs: the 66 KB vLLM V1 DP2 file (inference test fixtures) and the scale harness's 25.6 KB
 * moving vLLM exposition ({@link MovingVllmExposition}). With {@code --shared} the parsers share one
 * {@link ParserTables}, as the inference receiver's do; every server then serves the same bytes,
 * as in the scale harness, which is the best case for sharing (servers of other models share
 * names, label names, {@code le} values and HELP texts, but not the keys with their model).
 *
 * <pre>
 * java -XX:+UseSerialGC -cp benchmarks/target/benchmarks.jar \
 *   dev.gputop.benchmarks.scale.ParserFootprint [--parsers N] [--shared] [--hold SECONDS] [FILE|moving-vllm...]
 * </pre>
 */
public final class ParserFootprint {

  private ParserFootprint() {}

  public static void main(String[] args) throws Exception {
    int n = 200;
    long hold = 0;
    boolean shared = false;
    List<String> files = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--parsers")) {
        n = Integer.parseInt(args[++i]);
      } else if (args[i].equals("--shared")) {
        shared = true;
      } else if (args[i].equals("--hold")) {
        hold = Long.parseLong(args[++i]);
      } else {
        files.add(args[i]);
      }
    }
    if (files.isEmpty()) {
      files.add("inference/src/test/resources/fixtures/vllm/vllm-v1-dp2.prom");
      files.add("moving-vllm");
    }
    for (String file : files) {
      byte[][] bodies = new byte[3][];
      if (file.equals("moving-vllm")) {
        MovingVllmExposition server = new MovingVllmExposition(42);
        for (int k = 0; k < bodies.length; k++) {
          server.advance();
          bodies[k] = server.render();
        }
      } else {
        byte[] body = Files.readAllBytes(Path.of(file));
        for (int k = 0; k < bodies.length; k++) {
          bodies[k] = body;
        }
      }
      measure(file, bodies, n, hold, shared);
    }
  }

  private static void measure(
      String file, byte[][] bodies, int n, long holdSeconds, boolean shared) throws Exception {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long before = usedAfterGc(memory);
    List<ExpositionParser> parsers = new ArrayList<>(n);
    // As the receiver makes them: one ParserTables for all its servers' parsers.
    ParserTables tables = shared ? new ParserTables() : null;
    int samples = 0;
    for (int i = 0; i < n; i++) {
      ExpositionParser parser = shared
          ? new ExpositionParser(ParserLimits.defaults(), tables)
          : new ExpositionParser(ParserLimits.defaults());
      for (byte[] body : bodies) {
        Exposition e = parser.parse(body, 0, body.length);
        samples = e.sampleCount();
      }
      parsers.add(parser);
    }
    long after = usedAfterGc(memory);
    System.out.printf("%s: %,d bytes, %d samples; %d parsers (%s tables) retain %,d bytes each%n",
        file, bodies[0].length, samples, n, shared ? "shared" : "own", (after - before) / n);
    if (holdSeconds > 0) {
      System.out.printf("holding for %d s (pid %d): jcmd PID GC.class_histogram%n", holdSeconds,
          ProcessHandle.current().pid());
      Thread.sleep(holdSeconds * 1000);
    }
    if (parsers.size() != n) {
      throw new AssertionError();
    }
  }

  private static long usedAfterGc(MemoryMXBean memory) throws InterruptedException {
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(50);
      least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
    }
    return least;
  }
}
