package dev.gputop.agent.demo;

import java.util.Arrays;

/**
 * A cumulative histogram with fixed upper bounds, like a Prometheus client library keeps it:
 * per-bucket counts (not cumulative), a count and a sum. Not thread-safe: owned by one {@link
 * LoadModel}, which copies it under its lock for writers.
 */
final class Hist {

  private final double[] bounds;
  private final long[] counts; // one per bound, plus +Inf at the end
  private long count;
  private double sum;

  Hist(double[] bounds) {
    this.bounds = bounds.clone();
    this.counts = new long[bounds.length + 1];
  }

  private Hist(Hist other) {
    this.bounds = other.bounds;
    this.counts = other.counts.clone();
    this.count = other.count;
    this.sum = other.sum;
  }

  /** Adds {@code weight} observations of {@code value} whose total is {@code sumIncrement}. */
  void observe(double value, long weight, double sumIncrement) {
    int i = 0;
    while (i < bounds.length && value > bounds[i]) {
      i++;
    }
    counts[i] += weight;
    count += weight;
    sum += sumIncrement;
  }

  Hist copy() {
    return new Hist(this);
  }

  int size() {
    return bounds.length;
  }

  double bound(int i) {
    return bounds[i];
  }

  /** The cumulative count of observations ≤ bounds[i] (i == size() means +Inf). */
  long cumulative(int i) {
    long c = 0;
    for (int j = 0; j <= i; j++) {
      c += counts[j];
    }
    return c;
  }

  long count() {
    return count;
  }

  double sum() {
    return sum;
  }

  @Override
  public String toString() {
    return "Hist" + Arrays.toString(bounds) + " count=" + count + " sum=" + sum;
  }
}
