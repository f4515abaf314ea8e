package dev.gputop.benchmarks.scale;

import dev.gputop.config.SloTargets;
import dev.gputop.inference.engine.Engine;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.export.DiscoverySection;
import dev.gputop.inference.export.ExportCache;
import dev.gputop.inference.export.ServerSource;
import dev.gputop.inference.export.SnapshotBuilder;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.stats.ServerCounters;
import dev.gputop.inference.stats.WindowStatistics;
import dev.gputop.inference.window.ServerWindow;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;

/**
 * Bytes one server's refresh allocates on the refresh thread, stage by stage, in the steady state:
 * the scale harness's moving vLLM V1 DP2 exposition (25.6 KB) parsed, mapped, added to a full
 * one-minute window of 3 s scrapes, its statistics, and its part of the snapshot (entry, points,
 * {@code up}, re-exported histograms, with the receiver's {@link ExportCache}). Exact (the JVM's
 * per-thread allocation counter), averaged over 2,000 refreshes after 200 of warm-up. Run: {@code
 * java -cp benchmarks/target/benchmarks.jar dev.gputop.benchmarks.scale.RefreshAllocation}
 * (docs/PERFORMANCE.md, "Scrape cycle").
 */
public final class RefreshAllocation {

  private RefreshAllocation() {}

  public static void main(String[] args) throws Exception {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    MovingVllmExposition server = new MovingVllmExposition(1);
    ExpositionParser parser = new ExpositionParser(ParserLimits.defaults());
    EngineMapper mapper = new EngineMapper();
    ServerWindow window = new ServerWindow(Duration.ofMinutes(1), 44);
    ExportCache cache = new ExportCache();
    ServerCounters counters = new ServerCounters();
    String[] stages = {"parse", "map", "window add", "counters", "statistics",
        "snapshot (entry, points, histograms, counters)"};
    long[] bytes = new long[stages.length];
    int warmup = 200;
    int n = 2000;
    long nanos = 0;
    for (int i = 0; i < warmup + n; i++) {
      server.advance();
      byte[] body = server.render();
      long a0 = threads.getThreadAllocatedBytes(id);
      Exposition e = parser.parse(body, 0, body.length);
      long a1 = threads.getThreadAllocatedBytes(id);
      ServerScrape s = mapper.map(e);
      long a2 = threads.getThreadAllocatedBytes(id);
      nanos += 3_000_000_000L;
      window.add(nanos, nanos, s);
      long a3 = threads.getThreadAllocatedBytes(id);
      counters.add(nanos, s);
      long a4 = threads.getThreadAllocatedBytes(id);
      ServerStats stats = WindowStatistics.compute(window, null, SloTargets.NONE);
      long a5 = threads.getThreadAllocatedBytes(id);
      SnapshotBuilder b = new SnapshotBuilder(cache);
      b.add(SnapshotBuilder.Server.builder("server-1", "http://127.0.0.1:8000/metrics", ServerSource.CONFIGURED)
          .engine(Engine.VLLM).stats(stats).window(window).counters(counters).servedModels(window.models())
          .build());
      long a6 = threads.getThreadAllocatedBytes(id);
      b.build(new DiscoverySection(List.of(), List.of()));
      if (i >= warmup) {
        long[] at = {a0, a1, a2, a3, a4, a5, a6};
        for (int k = 0; k < stages.length; k++) {
          bytes[k] += at[k + 1] - at[k];
        }
      }
    }
    long total = 0;
    for (int k = 0; k < stages.length; k++) {
      System.out.printf("%-40s %,8d B%n", stages[k], bytes[k] / n);
      total += bytes[k] / n;
    }
    System.out.printf("%-40s %,8d B per server and refresh%n", "total", total);
  }
}
