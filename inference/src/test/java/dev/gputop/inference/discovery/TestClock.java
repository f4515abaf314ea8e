package dev.gputop.inference.discovery;

import dev.gputop.config.Clock;
import java.time.Duration;

/** A clock that moves only when told. */
final class TestClock implements Clock {
  private long nanos = 1_000_000_000L;

  @Override
  public long epochNanos() {
    return 1_700_000_000_000_000_000L + nanos;
  }

  @Override
  public long nanoTime() {
    return nanos;
  }

  void advance(Duration d) {
    nanos += d.toNanos();
  }
}
