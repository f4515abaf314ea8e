package dev.gputop.agent.prometheus;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.CollectionRegistration;
import io.opentelemetry.sdk.metrics.export.MetricReader;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Collection;

/**
 * The SDK reader behind {@code /metrics}: registered on the meter provider like any pull reader
 * (cumulative, collected only when asked), it hands what the SDK collects to the agent's own
 * {@link PrometheusTextWriter}. It replaces OpenTelemetry's {@code PrometheusMetricReader} and
 * writes the same bytes (docs/PERFORMANCE.md, "The export path"). Thread-safe.
 */
public final class ExpositionReader implements MetricReader {

  private volatile CollectionRegistration registration = CollectionRegistration.noop();
  private final PrometheusTextWriter writer = new PrometheusTextWriter();

  @Override
  public void register(CollectionRegistration registration) {
    this.registration = registration;
  }

  @Override
  public AggregationTemporality getAggregationTemporality(InstrumentType instrumentType) {
    return AggregationTemporality.CUMULATIVE;
  }

  /** What the SDK holds now (the asynchronous instruments' callbacks run), as the writer takes it. */
  Collection<MetricData> collect() {
    return registration.collectAllMetrics();
  }

  /**
   * Collects and converts, without writing: a failure here comes before any response is sent.
   * The result is written once.
   */
  public PrometheusTextWriter.Prepared prepare() {
    return writer.prepare(collect());
  }

  /** Collects and writes the exposition to {@code out} (not closed), OpenMetrics when asked for. */
  public void write(boolean openMetrics, OutputStream out) throws IOException {
    prepare().write(openMetrics, out);
  }

  @Override
  public CompletableResultCode forceFlush() {
    return CompletableResultCode.ofSuccess();
  }

  @Override
  public CompletableResultCode shutdown() {
    return CompletableResultCode.ofSuccess();
  }

  @Override
  public String toString() {
    return "ExpositionReader{" + writer + "}";
  }
}
