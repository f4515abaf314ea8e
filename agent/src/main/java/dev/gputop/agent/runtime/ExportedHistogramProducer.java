package dev.gputop.agent.runtime;

import dev.gputop.receiver.ExportedCounter;
import dev.gputop.receiver.ExportedHistogram;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.DoubleExemplarData;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.HistogramData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricProducer;
// internal: MetricData has no public factory in SDK 1.66 (HistogramData and HistogramPointData
// do, and are used); ImmutableMetricData.createDoubleHistogram is what the SDK's own producers use.
import io.opentelemetry.sdk.metrics.internal.data.ImmutableDoublePointData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableMetricData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableSumData;
import io.opentelemetry.sdk.resources.Resource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Re-exports the receivers' {@link ExportedHistogram}s (the inference servers' own histograms,
 * with their bucket boundaries) as cumulative OpenTelemetry explicit-bucket histograms, and their
 * {@link ExportedCounter}s as monotonic cumulative sums with start times of their own. The
 * OpenTelemetry API has no asynchronous histogram, so this is an SDK {@link MetricProducer}:
 * register it with {@code SdkMeterProviderBuilder.registerMetricProducer} while the SDK is built,
 * then hand it to {@link AgentRuntime.Builder#setHistogramProducer}, which binds it to the
 * receivers once they run. Until bound (and after the runtime closes) it produces nothing.
 *
 * <p>Points with the same name become one metric; description and unit come from the first
 * point. Each collection builds a point per histogram (at 500 servers, 2,000 per {@code /metrics}
 * read), so a point is a view of the histogram's own arrays rather than a copy, with the
 * histogram's attributes as they are (the receivers keep a server's attributes from one refresh
 * to the next).
 * Thread-safe: {@link #produce} reads an atomically published supplier and does no I/O.
 */
public final class ExportedHistogramProducer implements MetricProducer {

  private static final Logger logger = Logger.getLogger(ExportedHistogramProducer.class.getName());

  /** The instrumentation scope of every re-exported histogram. */
  static final InstrumentationScopeInfo SCOPE =
      InstrumentationScopeInfo.builder("dev.gputop.agent").setVersion(AgentVersion.get()).build();

  private final AtomicReference<Supplier<List<ExportedHistogram>>> source = new AtomicReference<>();
  private final AtomicReference<Supplier<List<ExportedCounter>>> counterSource = new AtomicReference<>();

  /** Points this producer at the histograms to export (the runtime does this on start). */
  public void bind(Supplier<List<ExportedHistogram>> histograms) {
    source.set(histograms);
  }

  /** Points this producer at the histograms and the monotonic sums to export. */
  public void bind(Supplier<List<ExportedHistogram>> histograms, Supplier<List<ExportedCounter>> counters) {
    counterSource.set(counters);
    source.set(histograms);
  }

  /** Stops producing. */
  public void unbind() {
    source.set(null);
    counterSource.set(null);
  }

  @Override
  public Collection<MetricData> produce(Resource resource) {
    Supplier<List<ExportedHistogram>> s = source.get();
    if (s == null) {
      return List.of();
    }
    List<ExportedHistogram> histograms;
    try {
      histograms = s.get();
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "histograms could not be read; none exported this time", e);
      return List.of();
    }
    List<MetricData> out = toMetricData(resource, histograms);
    Supplier<List<ExportedCounter>> c = counterSource.get();
    if (c != null) {
      try {
        out.addAll(countersToMetricData(resource, c.get()));
      } catch (RuntimeException e) {
        logger.log(Level.WARNING, "counters could not be read; none exported this time", e);
      }
    }
    return out;
  }

  /** Groups counter points by name into monotonic cumulative sums, each with its own start time. */
  static List<MetricData> countersToMetricData(Resource resource, List<ExportedCounter> counters) {
    Map<String, List<ExportedCounter>> byName = byName(counters, ExportedCounter::name);
    List<MetricData> out = new ArrayList<>(byName.size());
    for (Map.Entry<String, List<ExportedCounter>> e : byName.entrySet()) {
      ExportedCounter first = e.getValue().get(0);
      List<DoublePointData> points = new ArrayList<>(e.getValue().size());
      for (ExportedCounter c : e.getValue()) {
        points.add(ImmutableDoublePointData.create(
            c.startEpochNanos(), c.epochNanos(), c.attributes(), c.value()));
      }
      out.add(ImmutableMetricData.createDoubleSum(resource, SCOPE, e.getKey(), first.description(),
          first.unit(), ImmutableSumData.create(true, AggregationTemporality.CUMULATIVE, points)));
    }
    return out;
  }

  /** Groups points by name into cumulative histogram metrics. */
  public static List<MetricData> toMetricData(Resource resource, List<ExportedHistogram> histograms) {
    Map<String, List<ExportedHistogram>> byName = byName(histograms, ExportedHistogram::name);
    List<MetricData> out = new ArrayList<>(byName.size());
    for (Map.Entry<String, List<ExportedHistogram>> e : byName.entrySet()) {
      ExportedHistogram first = e.getValue().get(0);
      List<HistogramPointData> points = new ArrayList<>(e.getValue().size());
      for (ExportedHistogram h : e.getValue()) {
        try {
          points.add(new Point(h));
        } catch (RuntimeException ex) { // e.g. boundaries out of order: skip the point, keep the rest
          logger.log(Level.FINE, "histogram point of " + h.name() + " left out", ex);
        }
      }
      if (points.isEmpty()) {
        continue;
      }
      out.add(
          ImmutableMetricData.createDoubleHistogram(
              resource,
              SCOPE,
              e.getKey(),
              first.description(),
              first.unit(),
              HistogramData.create(AggregationTemporality.CUMULATIVE, points)));
    }
    return out;
  }

  /** The points by metric name, in the order the names first come: one metric per name. */
  private static <T> Map<String, List<T>> byName(List<T> points, Function<T, String> name) {
    Map<String, List<T>> byName = new LinkedHashMap<>();
    for (T p : points) {
      byName.computeIfAbsent(name.apply(p), k -> new ArrayList<>()).add(p);
    }
    return byName;
  }

  /**
   * One cumulative point over an {@link ExportedHistogram}'s own (immutable) boundaries and counts,
   * read in place: {@code HistogramPointData.create} would copy both on every collection. Checked
   * as the SDK checks its own points ({@link ExportedHistogram#hasValidBoundaries}).
   */
  private static final class Point implements HistogramPointData {
    private final ExportedHistogram h;

    Point(ExportedHistogram h) {
      if (!h.hasValidBoundaries()) {
        throw new IllegalArgumentException(
            "invalid boundaries (not finite and strictly increasing): " + h.boundaryList());
      }
      this.h = h;
    }

    @Override
    public long getStartEpochNanos() {
      return h.startEpochNanos();
    }

    @Override
    public long getEpochNanos() {
      return h.epochNanos();
    }

    @Override
    public Attributes getAttributes() {
      return h.attributes();
    }

    @Override
    public double getSum() {
      return h.sum();
    }

    @Override
    public long getCount() {
      return h.count();
    }

    @Override
    public boolean hasMin() {
      return false;
    }

    @Override
    public double getMin() {
      return 0;
    }

    @Override
    public boolean hasMax() {
      return false;
    }

    @Override
    public double getMax() {
      return 0;
    }

    @Override
    public List<Double> getBoundaries() {
      return h.boundaryList();
    }

    @Override
    public List<Long> getCounts() {
      return h.countList();
    }

    @Override
    public List<DoubleExemplarData> getExemplars() {
      return List.of();
    }

    @Override
    public String toString() {
      return "Point{" + h.attributes() + ", boundaries=" + h.boundaryList() + ", counts=" + h.countList()
          + ", sum=" + h.sum() + "}";
    }
  }
}
