package dev.gputop.inference.scrape;

import dev.gputop.receiver.Clock;
import java.time.Duration;

/**
 * The deadline of one scrape cycle, on the injected {@link Clock}: {@code timeout} after the
 * cycle starts. The clock decides how much time is left at each step (before waiting for a slot,
 * before each request and redirect, before waiting for the results); the waits themselves (a
 * semaphore, a future, Jetty's request timeout) then run on real time for that long, since a
 * socket knows no other clock. Time left is never more than the timeout, so a clock that stands
 * still, as a test's may, still ends a hung exchange within one timeout of real time, and a clock
 * that has passed the deadline ends the cycle at the next step without waiting.
 *
 * @param atNanos the deadline on the clock's {@link Clock#nanoTime()} scale
 */
record ScrapeDeadline(Clock clock, long atNanos, long timeoutNanos) {

  /** The deadline {@code timeout} from now on {@code clock}. */
  static ScrapeDeadline after(Clock clock, Duration timeout) {
    long t = timeout.toNanos();
    return new ScrapeDeadline(clock, clock.nanoTime() + t, t);
  }

  /** Nanoseconds left before the deadline, at most the timeout; zero or less once it passed. */
  long remainingNanos() {
    return Math.min(atNanos - clock.nanoTime(), timeoutNanos);
  }
}
