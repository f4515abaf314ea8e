package dev.gputop.agent;

import dev.gputop.config.Clock;
import java.util.concurrent.atomic.AtomicLong;

/** A clock the test moves. Thread-safe. */
final class ManualClock implements Clock {
  final AtomicLong epochNanos;
  final AtomicLong nanos = new AtomicLong();

  ManualClock(long epochNanos) {
    this.epochNanos = new AtomicLong(epochNanos);
  }

  @Override
  public long epochNanos() {
    return epochNanos.get();
  }

  @Override
  public long nanoTime() {
    return nanos.get();
  }
}
