package dev.gputop.agent.demo;

import dev.gputop.config.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Clock} that only moves when told to, so a test can drive the demo replicas (and the
 * agent, if it shares the clock) through minutes of simulated load without sleeping. Both
 * readings advance together. Thread-safe.
 *
 * <pre>{@code
 * ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
 * clock.advance(Duration.ofSeconds(30));
 * }</pre>
 */
public final class ManualClock implements Clock {

  private final long epochAtZero;
  private final AtomicLong nanos = new AtomicLong();

  /** A clock whose wall time starts at {@code start} and whose monotonic reading starts at 0. */
  public ManualClock(java.time.Instant start) {
    Objects.requireNonNull(start, "start");
    this.epochAtZero = start.getEpochSecond() * 1_000_000_000L + start.getNano();
  }

  /** Moves both readings forward; a negative duration is rejected. */
  public void advance(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("negative duration " + d);
    }
    nanos.addAndGet(d.toNanos());
  }

  @Override
  public long epochNanos() {
    return epochAtZero + nanos.get();
  }

  @Override
  public long nanoTime() {
    return nanos.get();
  }
}
