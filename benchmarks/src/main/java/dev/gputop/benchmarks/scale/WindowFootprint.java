package dev.gputop.benchmarks.scale;

import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.window.ServerWindow;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What one server's full window holds on the heap: N windows of one minute, each filled with 25
 * scrapes 3 s apart of its own moving vLLM V1 DP2 server (the scale harness's exposition), then
 * the heap used after full collections, less what it was before, divided by N. The parser is
 * dropped before measuring, so what the windows share with it (label sets, names) counts here.
 * Run: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.gputop.benchmarks.scale.WindowFootprint [N [seconds to hold them]]} (docs/PERFORMANCE.md, "Scrape cycle").
 */
public final class WindowFootprint {

  private WindowFootprint() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    EngineMapper mapper = new EngineMapper();
    long before = usedAfterGc();
    List<ServerWindow> windows = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      MovingVllmExposition server = new MovingVllmExposition(i);
      ExpositionParser parser = new ExpositionParser(ParserLimits.defaults());
      ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 44);
      for (int k = 1; k <= 25; k++) {
        server.advance();
        byte[] body = server.render();
        w.add(k * 3_000_000_000L, k * 3_000_000_000L, mapper.map(parser.parse(body, 0, body.length)));
      }
      windows.add(w);
    }
    long after = usedAfterGc();
    System.out.printf("%d windows of %d scrapes: %.1f KB per server window%n",
        n, windows.get(0).size(), (after - before) / 1024.0 / n);
    if (args.length > 1) {
      // Hold the windows for a look with jcmd PID GC.class_histogram.
      Thread.sleep(Long.parseLong(args[1]) * 1000);
    }
    System.out.println(windows.size());
  }

  private static long usedAfterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(100);
      least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
    }
    return least;
  }
}
