package dev.gputop.receiver;

import io.opentelemetry.api.common.Attributes;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * One cumulative explicit-bucket histogram point that a receiver re-exports as it is (for example
 * a server's own TTFT histogram with the server's bucket boundaries), so a backend can aggregate
 * percentiles across a fleet. The OpenTelemetry API has no asynchronous histogram, so receivers
 * hand these to the agent, which turns them into SDK metric data with the attributes as they are.
 * Immutable and thread-safe: the arrays are copied in and out; {@link #boundaryList()} and {@link
 * #countList()} read them without a copy (made once, on first use, and kept: an exporter's every
 * collection reads them).
 *
 * <p>The constructor's parameters:
 *
 * @param name the OpenTelemetry metric name, e.g. {@code gen_ai.server.time_to_first_token}
 * @param description a sentence for the backend
 * @param unit UCUM unit, e.g. {@code s}
 * @param attributes the point's attributes (server, engine, model, ...); a receiver that keeps
 *     them from one refresh to the next spares the agent nothing but garbage
 * @param startEpochNanos when accumulation started (the first scrape after the last reset)
 * @param epochNanos when the values were observed
 * @param boundaries finite upper bounds, ascending (the +Inf bucket is implicit)
 * @param counts per-bucket (not cumulative) counts, one more than boundaries; their sum is
 *     {@link #count()}
 * @param sum the sum of observations
 */
public final class ExportedHistogram {

  private final String name;
  private final String description;
  private final String unit;
  private final Attributes attributes;
  private final long startEpochNanos;
  private final long epochNanos;
  private final double[] boundaries;
  private final long[] counts;
  private final double sum;
  private final long count;
  private final boolean boundariesValid;
  /** The views, made on first use; a race makes two equal ones, each safely published (final fields). */
  private List<Double> boundaryList;
  private List<Long> countList;

  public ExportedHistogram(String name, String description, String unit, Attributes attributes,
      long startEpochNanos, long epochNanos, double[] boundaries, long[] counts, double sum) {
    this.name = Objects.requireNonNull(name, "name");
    this.description = Objects.requireNonNull(description, "description");
    this.unit = Objects.requireNonNull(unit, "unit");
    this.attributes = Objects.requireNonNull(attributes, "attributes");
    this.boundaries = boundaries.clone();
    this.counts = counts.clone();
    if (this.counts.length != this.boundaries.length + 1) {
      throw new IllegalArgumentException("counts must have one more entry than boundaries: "
          + this.counts.length + " vs " + this.boundaries.length);
    }
    this.startEpochNanos = startEpochNanos;
    this.epochNanos = epochNanos;
    this.sum = sum;
    long total = 0;
    for (long c : this.counts) {
      total += c;
    }
    this.count = total;
    this.boundariesValid = finiteAndIncreasing(this.boundaries);
  }

  /**
   * Whether the boundaries are finite and strictly increasing, as OpenTelemetry's SDK requires of
   * its histogram points: decided once here, where the arrays are made, rather than by every
   * collection that exports this point.
   */
  public boolean hasValidBoundaries() {
    return boundariesValid;
  }

  private static boolean finiteAndIncreasing(double[] b) {
    for (int i = 0; i < b.length; i++) {
      if (Double.isInfinite(b[i]) || (i > 0 && Double.compare(b[i - 1], b[i]) >= 0)) {
        return false;
      }
    }
    return true;
  }

  public String name() {
    return name;
  }

  public String description() {
    return description;
  }

  public String unit() {
    return unit;
  }

  public Attributes attributes() {
    return attributes;
  }

  public long startEpochNanos() {
    return startEpochNanos;
  }

  public long epochNanos() {
    return epochNanos;
  }

  public double sum() {
    return sum;
  }

  /** A copy of the finite upper bounds. */
  public double[] boundaries() {
    return boundaries.clone();
  }

  /** A copy of the per-bucket counts. */
  public long[] counts() {
    return counts.clone();
  }

  /** The finite upper bounds, read in place (unmodifiable). */
  public List<Double> boundaryList() {
    List<Double> l = boundaryList;
    if (l == null) {
      l = new DoubleView(boundaries);
      boundaryList = l;
    }
    return l;
  }

  /** The per-bucket counts, read in place (unmodifiable). */
  public List<Long> countList() {
    List<Long> l = countList;
    if (l == null) {
      l = new LongView(counts);
      countList = l;
    }
    return l;
  }

  /** The number of observations: the sum of {@link #counts()}. */
  public long count() {
    return count;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ExportedHistogram h
        && name.equals(h.name) && description.equals(h.description) && unit.equals(h.unit)
        && attributes.equals(h.attributes) && startEpochNanos == h.startEpochNanos
        && epochNanos == h.epochNanos && Arrays.equals(boundaries, h.boundaries)
        && Arrays.equals(counts, h.counts) && Double.compare(sum, h.sum) == 0;
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, description, unit, attributes, startEpochNanos, epochNanos,
        Arrays.hashCode(boundaries), Arrays.hashCode(counts), sum);
  }

  @Override
  public String toString() {
    return "ExportedHistogram[name=" + name + ", attributes=" + attributes + ", startEpochNanos="
        + startEpochNanos + ", epochNanos=" + epochNanos + ", boundaries=" + Arrays.toString(boundaries)
        + ", counts=" + Arrays.toString(counts) + ", sum=" + sum + "]";
  }

  private static final class DoubleView extends AbstractList<Double> implements RandomAccess {
    private final double[] values;

    DoubleView(double[] values) {
      this.values = values;
    }

    @Override
    public Double get(int i) {
      return values[i];
    }

    @Override
    public int size() {
      return values.length;
    }
  }

  private static final class LongView extends AbstractList<Long> implements RandomAccess {
    private final long[] values;

    LongView(long[] values) {
      this.values = values;
    }

    @Override
    public Long get(int i) {
      return values[i];
    }

    @Override
    public int size() {
      return values.length;
    }
  }
}
