package dev.gputop.nvml;

import static io.opentelemetry.sdk.testing.assertj.OpenTelemetryAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.config.services.GpuProcess;
import dev.gputop.config.services.GpuProcessSource;
import dev.gputop.config.services.ProcessOwnerLookup;
import dev.gputop.nvml.FakeNvml.Control;
import dev.gputop.nvml.FakeNvml.Variant;
import dev.gputop.receiver.Alert;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.testing.LogCapture;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The receiver against the fake libnvidia-ml: metrics as docs/metrics.md lists them, snapshot, health. */
class NvmlReceiverTest {

  private static final long GIB = 1024L * 1024 * 1024;
  private static final String GPU0 = "GPU-fa4e0000-1111-2222-3333-000000000000";
  private static final String GPU1 = "GPU-fa4e0001-1111-2222-3333-000000000001";

  private static String fakeLibrary() {
    return FakeNvml.library(Variant.CURRENT).toString();
  }

  private static Map<String, MetricData> metrics(TestContext ctx) {
    return ctx.reader.collectAllMetrics().stream()
        .collect(Collectors.toMap(MetricData::getName, m -> m));
  }

  private static Attributes gpu(String uuid, int index) {
    return Attributes.builder()
        .put("hw.id", uuid)
        .put("hw.name", "GPU " + index)
        .put("hw.type", "gpu")
        .put("hw.vendor", "NVIDIA")
        .put("hw.model", "NVIDIA H100 80GB HBM3")
        .build();
  }

  private static Attributes with(Attributes base, String key, String value) {
    return base.toBuilder().put(key, value).build();
  }

  @Test
  void refresh_exportsEveryMetricOfDocsMetricsMd() {
    Control fake = FakeNvml.reset(2);
    fake.fake_nvml_set(0, "util.gpu", 87);
    fake.fake_nvml_set(0, "util.memory", 41);
    fake.fake_nvml_set(0, "memory.used", 20 * GIB);
    fake.fake_nvml_set(0, "memory.total", 80 * GIB);
    fake.fake_nvml_set(0, "power", 412_500);
    fake.fake_nvml_set(0, "energy", 9_876_543);
    fake.fake_nvml_set(0, "temperature", 71);
    fake.fake_nvml_set(0, "fan", 55);
    fake.fake_nvml_set(0, "throttle", 0x4);
    fake.fake_nvml_set(0, "ecc.corrected", 12);
    fake.fake_nvml_set(0, "ecc.uncorrected", 1);
    fake.fake_nvml_set(0, "pcie.tx", 5_000);
    fake.fake_nvml_set(0, "pcie.rx", 7_000);
    long self = ProcessHandle.current().pid();
    fake.fake_nvml_add_process(0, (int) self, 3 * GIB);
    fake.fake_nvml_add_process_sample(0, (int) self, 1_000, 64, 10);
    TestContext ctx = new TestContext(fakeLibrary());
    ctx.publish(ProcessOwnerLookup.class, pid -> pid == self ? "chat-api" : null);

    try (NvmlReceiver receiver = new NvmlReceiver(ctx, new ProcessNames())) {
      receiver.refresh();
      Map<String, MetricData> m = metrics(ctx);
      Attributes g0 = gpu(GPU0, 0);

      assertThat(m.get("hw.gpu.utilization")).hasUnit("1").hasDoubleGaugeSatisfying(
          gauge -> gauge.hasPointsSatisfying(
              p -> p.hasValue(0.87).hasAttributes(with(g0, "hw.gpu.task", "general")),
              p -> p.hasAttributes(with(gpu(GPU1, 1), "hw.gpu.task", "general"))));
      assertThat(m.get("hw.gpu.memory.usage")).hasUnit("By").hasLongSumSatisfying(
          sum -> sum.isNotMonotonic().hasPointsSatisfying(
              p -> p.hasValue(20 * GIB).hasAttributes(g0), p -> p.hasAttributes(gpu(GPU1, 1))));
      assertThat(m.get("hw.gpu.memory.limit")).hasUnit("By").hasLongSumSatisfying(
          sum -> sum.isNotMonotonic().hasPointsSatisfying(
              p -> p.hasValue(80 * GIB).hasAttributes(g0), p -> p.hasAttributes(gpu(GPU1, 1))));
      assertThat(m.get("hw.gpu.memory.utilization")).hasUnit("1").hasDoubleGaugeSatisfying(
          gauge -> gauge.hasPointsSatisfying(
              p -> p.hasValue(0.25).hasAttributes(g0), p -> p.hasAttributes(gpu(GPU1, 1))));
      assertThat(m.get("hw.gpu.io")).hasUnit("By").hasLongSumSatisfying(
          sum -> sum.isMonotonic().hasPointsSatisfying(
              p -> p.hasValue(7_000).hasAttributes(with(g0, "network.io.direction", "receive")),
              p -> p.hasValue(5_000).hasAttributes(with(g0, "network.io.direction", "transmit")),
              p -> p.hasAttributes(with(gpu(GPU1, 1), "network.io.direction", "receive")),
              p -> p.hasAttributes(with(gpu(GPU1, 1), "network.io.direction", "transmit"))));
      assertThat(m.get("hw.power")).hasUnit("W").hasDoubleGaugeSatisfying(
          gauge -> gauge.hasPointsSatisfying(
              p -> p.hasValue(412.5).hasAttributes(g0), p -> p.hasAttributes(gpu(GPU1, 1))));
      assertThat(m.get("hw.energy")).hasUnit("J").hasDoubleSumSatisfying(
          sum -> sum.isMonotonic().hasPointsSatisfying(
              p -> p.hasValue(9876.543).hasAttributes(g0), p -> p.hasAttributes(gpu(GPU1, 1))));
      assertThat(m.get("hw.errors")).hasUnit("{error}").hasLongSumSatisfying(
          sum -> sum.isMonotonic().hasPointsSatisfying(
              p -> p.hasValue(12).hasAttributes(with(g0, "error.type", "corrected")),
              p -> p.hasValue(1).hasAttributes(with(g0, "error.type", "uncorrected")),
              p -> p.hasAttributes(with(gpu(GPU1, 1), "error.type", "corrected")),
              p -> p.hasAttributes(with(gpu(GPU1, 1), "error.type", "uncorrected"))));
      assertThat(m.get("hw.status")).hasUnit("1").hasLongSumSatisfying(
          sum -> sum.isNotMonotonic().hasPointsSatisfying(
              p -> p.hasValue(1).hasAttributes(with(g0, "hw.state", "ok")),
              p -> p.hasValue(0).hasAttributes(with(g0, "hw.state", "failed")),
              p -> p.hasValue(1).hasAttributes(with(gpu(GPU1, 1), "hw.state", "ok")),
              p -> p.hasValue(0).hasAttributes(with(gpu(GPU1, 1), "hw.state", "failed"))));
      assertThat(m.get("gputop.gpu.temperature")).hasUnit("Cel").hasLongGaugeSatisfying(
          gauge -> gauge.hasPointsSatisfying(
              p -> p.hasValue(71).hasAttributes(g0), p -> p.hasValue(41).hasAttributes(gpu(GPU1, 1))));
      assertThat(pointsOf(m.get("gputop.gpu.clock"), g0, "gputop.clock.type"))
          .containsExactlyInAnyOrder("graphics=1980000000", "sm=1980000000", "memory=2619000000",
              "video=1545000000");
      assertThat(m.get("gputop.gpu.clock")).hasUnit("Hz");
      assertThat(pointsOf(m.get("gputop.gpu.throttle"), g0, "gputop.throttle.reason"))
          .containsExactlyInAnyOrder(
              "gpu_idle=0", "applications_clocks_setting=0", "sw_power_cap=1", "hw_slowdown=0",
              "sync_boost=0", "sw_thermal_slowdown=0", "hw_thermal_slowdown=0",
              "hw_power_brake_slowdown=0", "display_clock_setting=0");
      assertThat(m.get("gputop.gpu.throttle")).hasUnit("1");
      assertThat(m.get("gputop.gpu.memory_controller.utilization")).hasUnit("1").hasDoubleGaugeSatisfying(
          gauge -> gauge.hasPointsSatisfying(
              p -> p.hasValue(0.41).hasAttributes(g0), p -> p.hasAttributes(gpu(GPU1, 1))));
      assertThat(m.get("gputop.gpu.fan.speed_ratio")).hasUnit("1").hasDoubleGaugeSatisfying(
          gauge -> gauge.hasPointsSatisfying(
              p -> p.hasValue(0.55).hasAttributes(g0), p -> p.hasValue(0.31).hasAttributes(gpu(GPU1, 1))));
      Attributes process =
          Attributes.builder()
              .put("hw.id", GPU0)
              .put(AttributeKey.longKey("process.pid"), self)
              .put("process.executable.name", "java")
              .put("server", "chat-api")
              .build();
      assertThat(m.get("gputop.gpu.process.memory.usage")).hasUnit("By").hasLongSumSatisfying(
          sum -> sum.isNotMonotonic().hasPointsSatisfying(p -> p.hasValue(3 * GIB).hasAttributes(process)));
      assertThat(m.get("gputop.gpu.process.utilization")).hasUnit("1").hasDoubleGaugeSatisfying(
          gauge -> gauge.hasPointsSatisfying(p -> p.hasValue(0.64).hasAttributes(process)));
      // 16 above, plus the fault metrics an H100 reports by default (docs/metrics.md): the Xid
      // counter (its critical codes at 0), remapped rows, remap pending/failed, PCIe replays.
      assertThat(m).hasSize(21);
    }
  }

  /** "type=value" of each point of a long gauge for one device. */
  private static List<String> pointsOf(MetricData metric, Attributes device, String key) {
    List<String> out = new ArrayList<>();
    Collection<? extends PointData> points = metric.getLongGaugeData().getPoints();
    for (PointData p : points) {
      Attributes a = p.getAttributes();
      if (device.asMap().entrySet().stream().allMatch(e -> e.getValue().equals(a.get(e.getKey())))) {
        out.add(a.get(AttributeKey.stringKey(key)) + "="
            + ((io.opentelemetry.sdk.metrics.data.LongPointData) p).getValue());
      }
    }
    return out;
  }

  @Test
  void contribution_hasSpecFields() {
    Control fake = FakeNvml.reset(2);
    fake.fake_nvml_set(1, "util.gpu", 50);
    fake.fake_nvml_set(1, "memory.used", 2 * GIB);
    fake.fake_nvml_add_process(1, 4242, GIB);
    TestContext ctx = new TestContext(fakeLibrary());
    try (NvmlReceiver receiver = new NvmlReceiver(ctx, new ProcessNames(Path.of("/nonexistent"), 8))) {
      receiver.refresh();

      Contribution contribution = receiver.contribution();
      assertThat(contribution.servers()).isEmpty();
      assertThat(contribution.overview()).isNull();
      assertThat(contribution.furtherSections()).isEmpty();
      assertThat(contribution.alerts()).isEmpty();
      assertThat(contribution.gpus()).isEqualTo(receiver.gpus());
      List<GpuEntry> gpus = receiver.gpus();
      assertThat(gpus).hasSize(2);
      GpuEntry e = gpus.get(1);
      assertThat(e.index()).isEqualTo(1);
      assertThat(e.uuid()).isEqualTo(GPU1);
      assertThat(e.name()).isEqualTo("NVIDIA H100 80GB HBM3");
      assertThat(e.pciBusId()).isEqualTo("00000000:28:00.0");
      assertThat(e.state()).isEqualTo("ok");
      assertThat(e.utilization()).isEqualTo(0.5);
      assertThat(e.memoryUsedBytes()).isEqualTo(2 * GIB);
      assertThat(e.memoryTotalBytes()).isEqualTo(85_520_809_984L);
      assertThat(e.powerWatts()).isEqualTo(110.0);
      assertThat(e.temperatureCelsius()).isEqualTo(41);
      assertThat(e.processes()).containsExactly(new GpuProcessEntry(4242, GIB, null, null, 0.0)); // no driver sample: idle
      assertThat(e.clocksMhz()).isEqualTo(new GpuEntry.Clocks(1980, 1980, 2619, 1545));
      assertThat(e.throttleReasons()).isEmpty();
      assertThat(receiver.health()).isEqualTo(HealthStatus.healthy());
      assertThat(receiver.available()).isTrue();
      assertThat(receiver.unavailableReason()).isNull();
      assertThat(ctx.lookup(GpuProcessSource.class)).isSameAs(receiver);
      assertThat(receiver.gpuProcesses()).containsExactly(new GpuProcess(4242, 1, GPU1, GIB));
    }
  }

  @Test
  void refresh_gpuLost_reportsFailedStatusAlertAndUnhealthy() {
    Control fake = FakeNvml.reset(2);
    TestContext ctx = new TestContext(fakeLibrary());
    try (NvmlReceiver receiver = new NvmlReceiver(ctx, new ProcessNames())) {
      receiver.refresh();
      fake.fake_nvml_set(1, "lost", 1);
      receiver.refresh();
      receiver.refresh();

      assertThat(receiver.gpus()).extracting(GpuEntry::state).containsExactly("ok", "failed");
      GpuEntry failed = receiver.gpus().get(1);
      assertThat(failed.uuid()).isEqualTo(GPU1);
      assertThat(failed.memoryUsedBytes()).isNull();
      assertThat(failed.error()).contains("NVML_ERROR_GPU_IS_LOST");
      List<Alert> alerts = receiver.contribution().alerts();
      assertThat(alerts).hasSize(1);
      assertThat(alerts.get(0).name()).isEqualTo("gpu_failed");
      assertThat(alerts.get(0).server()).isNull();
      assertThat(alerts.get(0).message()).startsWith("GPU 1 (" + GPU1 + ", 00000000:28:00.0) failed: ");
      assertThat(receiver.health().state()).isEqualTo(HealthStatus.State.UNHEALTHY);
      assertThat(receiver.health().reasons()).containsExactly(alerts.get(0).message());

      Map<String, MetricData> m = metrics(ctx);
      assertThat(m.get("hw.status")).hasLongSumSatisfying(
          sum -> sum.hasPointsSatisfying(
              p -> p.hasValue(1).hasAttributes(with(gpu(GPU0, 0), "hw.state", "ok")),
              p -> p.hasValue(0).hasAttributes(with(gpu(GPU0, 0), "hw.state", "failed")),
              p -> p.hasValue(0).hasAttributes(with(gpu(GPU1, 1), "hw.state", "ok")),
              p -> p.hasValue(1).hasAttributes(with(gpu(GPU1, 1), "hw.state", "failed"))));
      assertThat(m.get("hw.power").getDoubleGaugeData().getPoints()).hasSize(1);
    }
  }

  @Test
  void gpuPowerSource_readsEachWholeGpusPowerAndEnergy_aLostOneWithoutValues_atTheSamplesTime() {
    Control fake = FakeNvml.reset(3);
    fake.fake_nvml_set(0, "power", 350_000);
    fake.fake_nvml_set(0, "energy", 12_345_678);
    fake.fake_nvml_set(2, "energy.none", 1); // a GPU before Volta: no total energy counter
    fake.fake_nvml_add_mig(1, 1, 0, 10 * GIB);
    TestContext ctx = new TestContext(fakeLibrary());
    try (NvmlReceiver receiver = new NvmlReceiver(ctx, new ProcessNames())) {
      assertThat(ctx.lookup(dev.gputop.config.services.GpuPowerSource.class)).isSameAs(receiver);
      assertThat(receiver.gpuReadings().gpus()).isEmpty();
      ctx.clock.advanceSeconds(7);
      receiver.refresh();
      var readings = receiver.gpuReadings();
      assertThat(readings.sampleNanos()).isEqualTo(ctx.clock.nanoTime());
      // Whole GPUs only: the MIG instance's power and energy are its GPU's.
      assertThat(readings.gpus()).extracting(dev.gputop.config.services.GpuReading::index).containsExactly(0, 1, 2);
      var gpu0 = readings.gpus().get(0);
      assertThat(gpu0.uuid()).isEqualTo(GPU0);
      assertThat(gpu0.powerWatts()).isEqualTo(350.0);
      assertThat(gpu0.energyJoules()).isEqualTo(12_345.678);
      assertThat(gpu0.lost()).isFalse();
      assertThat(readings.gpus().get(2).energyJoules()).isNull();
      assertThat(readings.gpus().get(2).powerWatts()).isEqualTo(120.0);

      fake.fake_nvml_set(0, "lost", 1);
      receiver.refresh();
      var lost = receiver.gpuReadings().gpus().get(0);
      assertThat(lost.lost()).isTrue();
      assertThat(lost.powerWatts()).isNull();
      assertThat(lost.energyJoules()).isNull();
    }
  }

  @Test
  void refresh_migInstance_isItsOwnHwIdWithParent() {
    Control fake = FakeNvml.reset(1);
    int mig = fake.fake_nvml_add_mig(0, 1, 0, 10 * GIB);
    fake.fake_nvml_add_process(mig, 7001, GIB);
    TestContext ctx = new TestContext(fakeLibrary());
    try (NvmlReceiver receiver = new NvmlReceiver(ctx, new ProcessNames())) {
      receiver.refresh();
      String migUuid = "MIG-0a160000-aaaa-bbbb-cccc-000000000000";
      Attributes instance =
          Attributes.builder()
              .put("hw.id", migUuid)
              .put("hw.name", "GPU 0 MIG 0")
              .put("hw.type", "gpu")
              .put("hw.vendor", "NVIDIA")
              .put("hw.model", "NVIDIA H100 80GB HBM3 MIG 1g.10gb")
              .put("hw.parent", GPU0)
              .build();
      assertThat(metrics(ctx).get("hw.gpu.memory.limit")).hasLongSumSatisfying(
          sum -> sum.hasPointsSatisfying(
              p -> p.hasAttributes(gpu(GPU0, 0)),
              p -> p.hasValue(10 * GIB).hasAttributes(instance)));
      assertThat(receiver.gpus()).extracting(GpuEntry::uuid).containsExactly(GPU0, migUuid);
      assertThat(receiver.gpus().get(1).parentUuid()).isEqualTo(GPU0);
      assertThat(receiver.gpus().get(1).processes()).extracting(GpuProcessEntry::pid).containsExactly(7001L);
    }
  }

  @Test
  void create_withoutLibrary_isUnavailableLogsOnceAndRunsOn() {
    LogCapture logged = LogCapture.attach(Logger.getLogger(NvmlReceiver.class.getName()), Level.ALL);
    TestContext ctx = new TestContext("/nonexistent/libnvidia-ml.so.1");
    try (NvmlReceiver receiver = new NvmlReceiver(ctx, new ProcessNames())) {
      for (int i = 0; i < 5; i++) {
        receiver.refresh();
        ctx.clock.advance(Duration.ofSeconds(61)); // every refresh retries opening
      }

      assertThat(receiver.health().state()).isEqualTo(HealthStatus.State.UNAVAILABLE);
      assertThat(receiver.health().reasons()).singleElement().asString()
          .contains("/nonexistent/libnvidia-ml.so.1");
      assertThat(receiver.available()).isFalse();
      assertThat(receiver.unavailableReason()).contains("NVIDIA driver installed");
      assertThat(receiver.gpuProcesses()).isEmpty();
      assertThat(receiver.contribution().gpus()).isEmpty();
      assertThat(receiver.contribution().alerts()).isEmpty();
      assertThat(ctx.lookup(GpuProcessSource.class)).isSameAs(receiver);
      assertThat(ctx.reader.collectAllMetrics()).isEmpty();
      assertThat(logged.records()).filteredOn(r -> r.getMessage().startsWith("NVML unavailable: ")).hasSize(1);
    } finally {
      logged.close();
    }
  }

  @Test
  void create_leavesNvmlClosedUntilTheFirstRefresh() {
    // nvmlInit can take seconds without nvidia-persistenced: it runs on the refresh thread.
    Control fake = FakeNvml.reset(1);
    TestContext ctx = new TestContext(fakeLibrary());
    try (NvmlReceiver receiver = new NvmlReceiver(ctx, new ProcessNames())) {
      assertThat(fake.fake_nvml_refcount()).isZero();
      assertThat(receiver.available()).isFalse();
      assertThat(receiver.unavailableReason()).isEqualTo("NVML not sampled yet");

      receiver.refresh();

      assertThat(fake.fake_nvml_refcount()).isEqualTo(1);
      assertThat(receiver.available()).isTrue();
      assertThat(receiver.gpuProcesses()).isNotNull();
    }
    assertThat(fake.fake_nvml_refcount()).isZero();
  }

  @Test
  void refresh_noGpu_isUnavailable() {
    FakeNvml.reset(0);
    TestContext ctx = new TestContext(fakeLibrary());
    try (NvmlReceiver receiver = new NvmlReceiver(ctx, new ProcessNames())) {
      receiver.refresh();
      assertThat(receiver.health()).isEqualTo(HealthStatus.unavailable("NVML found no NVIDIA GPU"));
    }
  }

  @Test
  void close_shutsNvmlDownOnceAndUnregistersCallbacks() {
    Control fake = FakeNvml.reset(1);
    TestContext ctx = new TestContext(fakeLibrary());
    NvmlReceiver receiver = new NvmlReceiver(ctx, new ProcessNames());
    receiver.refresh();
    receiver.close();
    receiver.close();
    receiver.refresh();
    assertThat(fake.fake_nvml_shutdown_calls()).isEqualTo(1);
    assertThat(fake.fake_nvml_refcount()).isZero();
    assertThat(ctx.reader.collectAllMetrics()).isEmpty();
  }

  @Test
  void provider_isFoundByServiceLoaderWithOrder100() {
    List<dev.gputop.receiver.ReceiverProvider> providers = new ArrayList<>();
    ServiceLoader.load(dev.gputop.receiver.ReceiverProvider.class).forEach(providers::add);
    assertThat(providers).singleElement().satisfies(p -> {
      assertThat(p.name()).isEqualTo("nvml");
      assertThat(p.order()).isEqualTo(100);
      assertThat(p.enabled(new TestContext(null).config())).isTrue();
    });
  }
}
