package dev.gputop.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.agent.demo.DemoReplicas;
import dev.gputop.agent.demo.Replica;
import dev.gputop.testing.ManualClock;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.stats.WindowStatistics;
import dev.gputop.inference.window.ServerWindow;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The demo's load (its replicas as {@link DemoCommand#replicas} builds them) shows what the live view is for within the README's 30-second demo: with the
 * demo's default seed, its one-second refresh and its 30 s window, some replica's KV cache is
 * full while requests wait (the agent's {@code kv_cache_full} alert) early in the run, computed
 * through the product's parser, engine mapping, window and statistics.
 */
class DemoAlertTest {

  /** The inference receiver's threshold for kv_cache_full. */
  private static final double KV_CACHE_FULL = 0.95;

  private final ExpositionParser parser = new ExpositionParser(ParserLimits.defaults());
  private final EngineMapper mapper = new EngineMapper();

  /** Seconds from start until the first kv_cache_full, or -1 within {@code seconds}. */
  private int firstAlert(long seed, int seconds, Map<String, Integer> byReplica) throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-03-02T09:00:00Z"));
    int first = -1;
    try (DemoReplicas d = DemoCommand.replicas(seed).clock(clock).start()) {
      Map<String, ServerWindow> windows = new LinkedHashMap<>();
      for (Replica r : d.replicas()) {
        windows.put(r.name(), new ServerWindow(Duration.ofSeconds(30), 1000));
      }
      for (int t = 1; t <= seconds; t++) {
        clock.advance(Duration.ofSeconds(1));
        for (Replica r : d.replicas()) {
          ServerWindow w = windows.get(r.name());
          w.add(clock.nanoTime(), clock.epochNanos(), mapper.map(parser.parse(r.render())));
          ServerStats s = WindowStatistics.compute(w, null);
          if (s.kvCacheUsage() != null && s.kvCacheUsage() >= KV_CACHE_FULL && s.waiting() != null && s.waiting() > 0) {
            byReplica.putIfAbsent(r.name(), t);
            if (first < 0) {
              first = t;
            }
          }
        }
      }
    }
    return first;
  }

  @Test
  void demoSeed_firesKvCacheFullWithinItsFirst25Seconds() throws Exception {
    Map<String, Integer> byReplica = new LinkedHashMap<>();
    int first = firstAlert(42, 60, byReplica);
    System.out.println("demo seed 42: first kv_cache_full after " + first + " s, by replica " + byReplica);
    // 25 s of load, so the alert is on screen before a 30 s demo (the agent starts in about 1 s) ends
    assertThat(first).isBetween(1, 25);
  }

  @Test
  void otherSeeds_alsoFireWithinTheFirst30Seconds() throws Exception {
    for (long seed : new long[] {1, 7, 11, 1234}) {
      Map<String, Integer> byReplica = new LinkedHashMap<>();
      int first = firstAlert(seed, 60, byReplica);
      System.out.println("seed " + seed + ": first kv_cache_full after " + first + " s, by replica " + byReplica);
      assertThat(first).as("seed " + seed).isBetween(1, 30);
    }
  }
}
