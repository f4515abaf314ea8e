package dev.gputop.agent.internal;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.propagation.ContextPropagators;
import java.util.Objects;

/**
 * An {@link OpenTelemetry} that hands out the delegate's meters and no-op tracers. Inside a host
 * JVM (attach and extension modes) the receivers' per-scrape spans would land among the host
 * application's traces every few seconds, so only metrics go through. Thread-safe (stateless
 * beyond the immutable delegate).
 */
public final class MetricsOnlyOpenTelemetry implements OpenTelemetry {

  private final OpenTelemetry delegate;

  /** Hands out {@code delegate}'s meters. */
  public MetricsOnlyOpenTelemetry(OpenTelemetry delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public MeterProvider getMeterProvider() {
    return delegate.getMeterProvider();
  }

  @Override
  public TracerProvider getTracerProvider() {
    return TracerProvider.noop();
  }

  @Override
  public ContextPropagators getPropagators() {
    return ContextPropagators.noop();
  }
}
