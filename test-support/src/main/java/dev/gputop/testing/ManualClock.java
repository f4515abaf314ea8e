package dev.gputop.testing;

import dev.gputop.receiver.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * A {@link Clock} that moves only when a test says so: both readings advance together, so
 * durations measured on the monotonic reading and timestamps on the wall reading agree. The one
 * manual clock of every module's tests (and of the demo's tests). Thread-safe.
 */
public final class ManualClock implements Clock {

  /** The monotonic reading a default clock starts at: 1000 s, far from 0 and from overflow. */
  public static final long DEFAULT_NANO_TIME = 1_000_000_000_000L;

  /** The wall reading a default clock starts at: 2025-11-29T07:06:40Z. */
  public static final long DEFAULT_EPOCH_NANOS = 1_764_400_000_000_000_000L;

  private long nanoTime;
  private long epochNanos;

  /** A clock at {@link #DEFAULT_NANO_TIME} and {@link #DEFAULT_EPOCH_NANOS}. */
  public ManualClock() {
    this(DEFAULT_NANO_TIME, DEFAULT_EPOCH_NANOS);
  }

  /** A clock whose wall reading starts at {@code start} and whose monotonic reading starts at 0. */
  public ManualClock(Instant start) {
    this(0, start.getEpochSecond() * 1_000_000_000L + start.getNano());
  }

  /** A clock with both readings given, in nanoseconds. */
  public ManualClock(long nanoTime, long epochNanos) {
    this.nanoTime = nanoTime;
    this.epochNanos = epochNanos;
  }

  /** Moves both readings forward; a negative duration is rejected (clocks don't go back). */
  public synchronized void advance(Duration d) {
    advanceNanos(d.toNanos());
  }

  /** Moves both readings forward by {@code seconds}. */
  public void advanceSeconds(double seconds) {
    advanceNanos((long) (seconds * 1e9));
  }

  /** Moves both readings forward by {@code nanos}. */
  public synchronized void advanceNanos(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("negative duration " + nanos + " ns");
    }
    nanoTime += nanos;
    epochNanos += nanos;
  }

  /** Moves only the wall reading, as an NTP step or a suspended VM does; may go back. */
  public synchronized void stepWallClock(Duration d) {
    epochNanos += d.toNanos();
  }

  @Override
  public synchronized long epochNanos() {
    return epochNanos;
  }

  @Override
  public synchronized long nanoTime() {
    return nanoTime;
  }
}
