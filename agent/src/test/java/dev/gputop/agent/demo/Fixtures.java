package dev.gputop.agent.demo;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gputop.testing.ManualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/** Test helpers: shared fixtures and replicas on a manual clock. */
final class Fixtures {

  static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");

  private Fixtures() {}

  /** A file of ../shared/fixtures, or the test is skipped when that folder is absent. */
  static String shared(String relative) throws IOException {
    String dir = System.getProperty("gputop.shared.dir");
    assumeTrue(dir != null, "gputop.shared.dir not set");
    Path p = Path.of(dir, "fixtures", relative);
    assumeTrue(Files.isRegularFile(p), "shared fixture absent: " + p);
    return Files.readString(p);
  }

  /** Replicas on a manual clock, without restarts, advanced by {@code warmup}. */
  static DemoReplicas replicas(ManualClock clock, long seed, Duration warmup) throws IOException {
    DemoReplicas d = DemoReplicas.builder().seed(seed).clock(clock).restarts(false).start();
    clock.advance(warmup);
    return d;
  }
}
