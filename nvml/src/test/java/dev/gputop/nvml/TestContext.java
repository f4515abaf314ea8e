package dev.gputop.nvml;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.Clock;
import dev.gputop.config.InferenceConfig;
import dev.gputop.config.KubernetesConfig;
import dev.gputop.config.NvmlConfig;
import dev.gputop.config.ReceiverContext;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A receiver context over an SDK with an in-memory reader and a clock the test moves. */
final class TestContext implements ReceiverContext {

  /** A clock that only moves when told. */
  static final class ManualClock implements Clock {
    long nanos = 1_000_000_000L;

    @Override
    public long epochNanos() {
      return 1_700_000_000_000_000_000L + nanos;
    }

    @Override
    public long nanoTime() {
      return nanos;
    }

    void advance(Duration d) {
      nanos += d.toNanos();
    }
  }

  final InMemoryMetricReader reader = InMemoryMetricReader.create();
  final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
          .build();
  final ManualClock clock = new ManualClock();
  private final AgentConfig config;
  private final Map<Class<?>, Object> services = new ConcurrentHashMap<>();

  TestContext(String library) {
    config =
        new AgentConfig(
            Duration.ofSeconds(3),
            "off",
            InferenceConfig.defaults(),
            new NvmlConfig(true, library),
            KubernetesConfig.defaults());
  }

  @Override
  public AgentConfig config() {
    return config;
  }

  @Override
  public OpenTelemetry openTelemetry() {
    return sdk;
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public <T> void publish(Class<T> type, T service) {
    services.put(type, service);
  }

  @Override
  public <T> T lookup(Class<T> type) {
    return type.cast(services.get(type));
  }
}
