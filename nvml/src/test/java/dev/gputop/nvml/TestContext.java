package dev.gputop.nvml;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.NvmlConfig;
import dev.gputop.testing.ManualClock;
import dev.gputop.testing.TestReceiverContext;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;

/**
 * test-support's receiver context over an SDK with an in-memory reader and a clock the test
 * moves, with NVML set to {@code library}.
 */
final class TestContext extends TestReceiverContext {

  final InMemoryMetricReader reader;
  final ManualClock clock;

  TestContext(String library) {
    this(InMemoryMetricReader.create(), new ManualClock(1_000_000_000L, 1_700_000_001_000_000_000L), library);
  }

  private TestContext(InMemoryMetricReader reader, ManualClock clock, String library) {
    super(
        AgentConfig.builder()
            .refreshNormal(Duration.ofSeconds(3))
            .listen("off")
            .nvml(new NvmlConfig(true, library))
            .build(),
        OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
            .build(),
        clock);
    this.reader = reader;
    this.clock = clock;
  }
}
