package dev.gputop.nvml;

import static io.opentelemetry.sdk.testing.assertj.OpenTelemetryAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.config.services.GpuProcess;
import dev.gputop.config.services.ProcessOwnerLookup;
import dev.gputop.receiver.Alert;
import dev.gputop.receiver.HealthStatus;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.data.MetricData;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The NVML receiver's logic over {@link JavaFakeGpus}: no gcc, no native library. The same
 * behaviour against the real binding and the fake libnvidia-ml is in {@link NvmlReceiverTest}.
 */
class NvmlReceiverLogicTest {

  private static final long GIB = 1024L * 1024 * 1024;
  private static final String GPU0 = "GPU-00000000-0000-0000-0000-000000000000";
  private static final String GPU1 = "GPU-11111111-1111-1111-1111-111111111111";

  private static NvmlReceiver receiver(TestContext ctx, JavaFakeGpus gpus) {
    return new NvmlReceiver(ctx, new ProcessNames(Path.of("/nonexistent"), 8), gpus);
  }

  private static Map<String, MetricData> metrics(TestContext ctx) {
    return ctx.reader.collectAllMetrics().stream().collect(Collectors.toMap(MetricData::getName, m -> m));
  }

  @Test
  void refresh_sample_becomesEntriesAndMetrics() {
    JavaFakeGpus gpus = new JavaFakeGpus();
    gpus.devices(JavaFakeGpus.gpu(0, GPU0, 0.75, 20 * GIB, 80 * GIB));
    TestContext ctx = new TestContext(null);
    try (NvmlReceiver receiver = receiver(ctx, gpus)) {
      receiver.refresh();

      assertThat(receiver.gpus()).singleElement().satisfies(e -> {
        assertThat(e.uuid()).isEqualTo(GPU0);
        assertThat(e.state()).isEqualTo("ok");
        assertThat(e.utilization()).isEqualTo(0.75);
        assertThat(e.memoryUsedBytes()).isEqualTo(20 * GIB);
      });
      assertThat(receiver.health()).isEqualTo(HealthStatus.healthy());
      Attributes g0 = Attributes.builder()
          .put("hw.id", GPU0).put("hw.name", "GPU 0").put("hw.type", "gpu")
          .put("hw.vendor", "NVIDIA").put("hw.model", "NVIDIA H100 80GB HBM3").build();
      assertThat(metrics(ctx).get("hw.gpu.memory.utilization")).hasDoubleGaugeSatisfying(
          g -> g.hasPointsSatisfying(p -> p.hasValue(0.25).hasAttributes(g0)));
      assertThat(metrics(ctx).get("hw.power")).hasDoubleGaugeSatisfying(
          g -> g.hasPointsSatisfying(p -> p.hasValue(300.0).hasAttributes(g0)));
    }
  }

  @Test
  void refresh_failedGpu_alertsAndIsUnhealthy() {
    JavaFakeGpus gpus = new JavaFakeGpus();
    gpus.devices(
        JavaFakeGpus.gpu(0, GPU0, 0.1, GIB, 80 * GIB),
        JavaFakeGpus.failed(1, GPU1, "nvmlDeviceGetMemoryInfo_v2 returned NVML_ERROR_GPU_IS_LOST (15)"));
    TestContext ctx = new TestContext(null);
    try (NvmlReceiver receiver = receiver(ctx, gpus)) {
      receiver.refresh();

      List<Alert> alerts = receiver.contribution().alerts();
      assertThat(alerts).containsExactly(new Alert("gpu_failed", null,
          "GPU 1 (" + GPU1 + ", 00000000:11:00.0) failed: nvmlDeviceGetMemoryInfo_v2 returned NVML_ERROR_GPU_IS_LOST (15)"));
      assertThat(receiver.health().state()).isEqualTo(HealthStatus.State.UNHEALTHY);
      assertThat(receiver.health().reasons()).containsExactly(alerts.get(0).message());
    }
  }

  @Test
  void refresh_unavailable_retriesOnlyEveryMinuteThenRecovers() {
    JavaFakeGpus gpus = new JavaFakeGpus();
    gpus.unavailable = "cannot load NVML (libnvidia-ml.so.1: not found)";
    TestContext ctx = new TestContext(null);
    try (NvmlReceiver receiver = receiver(ctx, gpus)) {
      receiver.refresh();
      ctx.clock.advance(Duration.ofSeconds(59));
      receiver.refresh();
      assertThat(gpus.opens).isEqualTo(1);
      assertThat(receiver.health()).isEqualTo(HealthStatus.unavailable(gpus.unavailable));

      gpus.unavailable = null;
      gpus.devices(JavaFakeGpus.gpu(0, GPU0, 0.5, GIB, 80 * GIB));
      ctx.clock.advance(Duration.ofSeconds(1));
      receiver.refresh();

      assertThat(gpus.opens).isEqualTo(2);
      assertThat(receiver.available()).isTrue();
      assertThat(receiver.gpus()).hasSize(1);
    }
    assertThat(gpus.closes).isEqualTo(1);
  }

  @Test
  void refresh_noDevice_isUnavailable() {
    JavaFakeGpus gpus = new JavaFakeGpus();
    TestContext ctx = new TestContext(null);
    try (NvmlReceiver receiver = receiver(ctx, gpus)) {
      receiver.refresh();
      assertThat(receiver.health()).isEqualTo(HealthStatus.unavailable("NVML found no NVIDIA GPU"));
      assertThat(gpus.samples).isEqualTo(1);
    }
  }

  @Test
  void xidEvent_isCountedAndAlertedAtTheNextRefreshThenAgesOut() throws Exception {
    JavaFakeGpus gpus = new JavaFakeGpus();
    gpus.devices(JavaFakeGpus.gpu(0, GPU0, 0.5, GIB, 80 * GIB));
    TestContext ctx = new TestContext(null);
    try (NvmlReceiver receiver = receiver(ctx, gpus)) {
      receiver.refresh();
      gpus.xids.add(new XidEvent(GPU0, 0, 95, null, null));
      // the event thread takes it from the queue; the next refresh after that publishes it
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!gpus.xids.isEmpty()) {
        assertThat(System.nanoTime()).isLessThan(deadline);
        Thread.sleep(10);
      }
      do {
        assertThat(System.nanoTime()).isLessThan(deadline);
        receiver.refresh();
      } while (receiver.gpus().get(0).xidEvents().isEmpty());

      assertThat(receiver.gpus().get(0).xidEvents()).singleElement().satisfies(x -> {
        assertThat(x.xid()).isEqualTo(95);
        assertThat(x.critical()).isTrue();
        assertThat(x.time()).isEqualTo(java.time.Instant.ofEpochSecond(0, ctx.clock.epochNanos()).toString());
      });
      List<Alert> alerts = receiver.contribution().alerts();
      assertThat(alerts).containsExactly(new Alert("gpu_xid", null, "GPU 0 (" + GPU0
          + ") reported Xid 95 (uncontained uncorrectable ECC error: reset the GPU) in the last 10 minutes"));
      assertThat(receiver.health()).isEqualTo(HealthStatus.healthy());

      ctx.clock.advance(Duration.ofMinutes(10).plusNanos(1));
      receiver.refresh();
      assertThat(receiver.contribution().alerts()).isEmpty();
    }
  }

  @Test
  void processOfAServerInAPod_carriesThePodInTheEntryAndTheProcessMetrics() {
    JavaFakeGpus gpus = new JavaFakeGpus();
    gpus.next = new GpuSample("550.54.15", List.of(JavaFakeGpus.gpu(0, GPU0, 0.5, 20 * GIB, 80 * GIB)),
        List.of(new GpuProcess(4242, 0, GPU0, 16 * GIB), new GpuProcess(5151, 0, GPU0, GIB)), List.of());
    dev.gputop.config.PodIdentity pod = new dev.gputop.config.PodIdentity("llm", "chat-7f9c", "vllm", "uid-1");
    TestContext ctx = new TestContext(null);
    ctx.publish(ProcessOwnerLookup.class, new ProcessOwnerLookup() {
      @Override
      public String serverFor(long pid) {
        return pid == 4242 ? "llm/chat-7f9c:8000" : null;
      }

      @Override
      public dev.gputop.config.PodIdentity podFor(long pid) {
        return pid == 4242 ? pod : null;
      }
    });
    try (NvmlReceiver receiver = receiver(ctx, gpus)) {
      receiver.refresh();

      assertThat(receiver.gpus().get(0).processes()).extracting(GpuProcessEntry::kubernetes).containsExactly(pod, null);
      Attributes inPod = Attributes.builder()
          .put("hw.id", GPU0).put(io.opentelemetry.api.common.AttributeKey.longKey("process.pid"), 4242L)
          .put("server", "llm/chat-7f9c:8000")
          .put("k8s.namespace.name", "llm").put("k8s.pod.name", "chat-7f9c").put("k8s.container.name", "vllm")
          .put("k8s.pod.uid", "uid-1").build();
      Attributes outside = Attributes.builder()
          .put("hw.id", GPU0).put(io.opentelemetry.api.common.AttributeKey.longKey("process.pid"), 5151L).build();
      assertThat(metrics(ctx).get("gputop.gpu.process.memory.usage")).hasLongSumSatisfying(
          sum -> sum.hasPointsSatisfying(
              p -> p.hasValue(16 * GIB).hasAttributes(inPod), p -> p.hasValue(GIB).hasAttributes(outside)));
    }
  }
}
