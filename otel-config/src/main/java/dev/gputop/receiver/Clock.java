package dev.gputop.receiver;

/**
 * The time source every receiver uses, injected so window and rate logic can be tested without
 * sleeping. Implementations must be thread-safe.
 */
public interface Clock {

  /** Wall-clock time in nanoseconds since the epoch, for timestamps that leave the agent. */
  long epochNanos();

  /** A monotonic reading in nanoseconds, for durations. */
  long nanoTime();

  /** The system clock. */
  static Clock system() {
    return SystemClock.INSTANCE;
  }
}

/** The JVM's clocks. */
enum SystemClock implements Clock {
  INSTANCE;

  @Override
  public long epochNanos() {
    java.time.Instant now = java.time.Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }
}
