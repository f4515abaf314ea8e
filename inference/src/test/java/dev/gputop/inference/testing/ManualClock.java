package dev.gputop.inference.testing;

import dev.gputop.config.Clock;

/** A clock the test moves by hand. Thread-safe. */
public final class ManualClock implements Clock {
  private volatile long nanos = 1_000_000_000_000L;
  private volatile long epoch = 1_764_400_000_000_000_000L;

  @Override
  public long epochNanos() {
    return epoch;
  }

  @Override
  public long nanoTime() {
    return nanos;
  }

  public synchronized void advanceSeconds(double seconds) {
    long d = (long) (seconds * 1e9);
    nanos += d;
    epoch += d;
  }
}
