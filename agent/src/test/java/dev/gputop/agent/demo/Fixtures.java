package dev.gputop.agent.demo;


import dev.gputop.testing.SharedFixtures;
import dev.gputop.testing.ManualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;

/** Test helpers: shared fixtures and replicas on a manual clock. */
final class Fixtures {

  static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");

  private Fixtures() {}

  /** A file of ../shared/fixtures; skipped with the reason printed when absent, failed in CI. */
  static String shared(String relative) throws IOException {
    return Files.readString(SharedFixtures.file("fixtures/" + relative));
  }

  /** Replicas on a manual clock, without restarts, advanced by {@code warmup}. */
  static DemoReplicas replicas(ManualClock clock, long seed, Duration warmup) throws IOException {
    DemoReplicas d = Truths.recorded(DemoReplicas.builder().seed(seed).clock(clock).restarts(false).start());
    clock.advance(warmup);
    return d;
  }
}
