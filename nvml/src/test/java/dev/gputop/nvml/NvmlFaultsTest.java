package dev.gputop.nvml;

import static io.opentelemetry.sdk.testing.assertj.OpenTelemetryAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.nvml.FakeNvml.Control;
import dev.gputop.nvml.FakeNvml.Variant;
import dev.gputop.receiver.Alert;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * GPU faults through the real JNA binding against the fake libnvidia-ml: Xid events, remapped
 * rows, retired pages, PCIe replays, NVLink; and the receiver's metrics and alerts for them.
 */
class NvmlFaultsTest {

  private static final String GPU0 = "GPU-fa4e0000-1111-2222-3333-000000000000";
  private static final String GPU1 = "GPU-fa4e0001-1111-2222-3333-000000000001";

  private static Nvml open() throws NvmlUnavailableException {
    return Nvml.open(FakeNvml.library(Variant.CURRENT).toString());
  }

  private static Attributes gpu(String uuid, int index) {
    return Attributes.builder()
        .put("hw.id", uuid).put("hw.name", "GPU " + index).put("hw.type", "gpu")
        .put("hw.vendor", "NVIDIA").put("hw.model", "NVIDIA H100 80GB HBM3").build();
  }

  private static Map<String, MetricData> metrics(TestContext ctx) {
    return ctx.reader.collectAllMetrics().stream().collect(Collectors.toMap(MetricData::getName, m -> m));
  }

  /** Refreshes until the condition holds: the event thread delivers asynchronously. */
  private static void refreshUntil(NvmlReceiver receiver, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    receiver.refresh();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition not reached within 30 s").isLessThan(deadline);
      Thread.sleep(20);
      receiver.refresh();
    }
  }

  @Test
  void sample_rowRemappingGpu_readsRemappedRowsAndPcieReplays() throws Exception {
    Control fake = FakeNvml.reset(2);
    fake.fake_nvml_set(0, "remap.correctable", 3);
    fake.fake_nvml_set(0, "remap.uncorrectable", 1);
    fake.fake_nvml_set(0, "remap.pending", 1);
    fake.fake_nvml_set(0, "pcie.replay", 42);
    try (Nvml nvml = open()) {
      GpuFaults f = nvml.sample().devices().get(0).faults();

      assertThat(f.remappedRowsCorrectable()).isEqualTo(3L);
      assertThat(f.remappedRowsUncorrectable()).isEqualTo(1L);
      assertThat(f.remapPending()).isTrue();
      assertThat(f.remapFailed()).isFalse();
      assertThat(f.pcieReplays()).isEqualTo(42L);
      // An H100 remaps rows and does not retire pages; without NVLink there are no links.
      assertThat(f.retiredPagesSingleBit()).isNull();
      assertThat(f.retiredPagesPending()).isNull();
      assertThat(f.nvlinks()).isEmpty();
    }
  }

  @Test
  void sample_unsupportedFaultCalls_areProbedOncePerDevice() throws Exception {
    Control fake = FakeNvml.reset(2);
    try (Nvml nvml = open()) {
      nvml.sample();
      nvml.sample();
      nvml.sample();
      // Retired pages, their pending status and NVLink are NOT_SUPPORTED on both GPUs: asked once each.
      assertThat(fake.fake_nvml_calls("nvmlDeviceGetRetiredPages_v2")).isEqualTo(2);
      assertThat(fake.fake_nvml_calls("nvmlDeviceGetRetiredPagesPendingStatus")).isEqualTo(2);
      assertThat(fake.fake_nvml_calls("nvmlDeviceGetNvLinkState")).isEqualTo(2);
      assertThat(fake.fake_nvml_calls("nvmlDeviceGetRemappedRows")).isEqualTo(6);
    }
  }

  @Test
  void sample_pageRetiringGpu_readsRetiredPages() throws Exception {
    Control fake = FakeNvml.reset(1);
    fake.fake_nvml_set(0, "memory.retirement", 1);
    fake.fake_nvml_set(0, "retired.sbe", 5);
    fake.fake_nvml_set(0, "retired.dbe", 2);
    fake.fake_nvml_set(0, "retired.pending", 1);
    try (Nvml nvml = open()) {
      GpuFaults f = nvml.sample().devices().get(0).faults();

      assertThat(f.retiredPagesSingleBit()).isEqualTo(5L);
      assertThat(f.retiredPagesDoubleBit()).isEqualTo(2L);
      assertThat(f.retiredPagesPending()).isTrue();
      assertThat(f.remappedRowsCorrectable()).isNull();
    }
  }

  @Test
  void sample_nvlink_readsEveryLinkUntilTheDriverRefusesAndTheirCounters() throws Exception {
    Control fake = FakeNvml.reset(1);
    fake.fake_nvml_set(0, "nvlink.count", 3);
    fake.fake_nvml_set_nvlink(0, 1, "replay", 7);
    fake.fake_nvml_set_nvlink(0, 1, "recovery", 2);
    fake.fake_nvml_set_nvlink(0, 1, "crc_flit", 11);
    fake.fake_nvml_set_nvlink(0, 1, "crc_data", 13);
    fake.fake_nvml_set_nvlink(0, 2, "active", 0);
    try (Nvml nvml = open()) {
      List<GpuFaults.NvLink> first = nvml.sample().devices().get(0).faults().nvlinks();
      long probes = fake.fake_nvml_calls("nvmlDeviceGetNvLinkState");
      List<GpuFaults.NvLink> second = nvml.sample().devices().get(0).faults().nvlinks();

      assertThat(first).containsExactly(
          new GpuFaults.NvLink(0, true, 0L, 0L, 0L, 0L),
          new GpuFaults.NvLink(1, true, 7L, 2L, 11L, 13L),
          new GpuFaults.NvLink(2, false, null, null, null, null));
      assertThat(second).isEqualTo(first);
      assertThat(probes).isEqualTo(4); // links 0-2, and link 3 refused: the end of the list
      assertThat(fake.fake_nvml_calls("nvmlDeviceGetNvLinkState")).isEqualTo(7);
    }
  }

  @Test
  void waitForXid_deliversQueuedEventsOfRegisteredGpusAndTimesOutOtherwise() throws Exception {
    Control fake = FakeNvml.reset(2);
    try (Nvml nvml = open()) {
      assertThat(nvml.waitForXid(10)).isNull(); // no event set before the first sample
      nvml.sample();
      fake.fake_nvml_xid(1, 79);
      fake.fake_nvml_xid(0, 48);

      assertThat(nvml.waitForXid(1000)).isEqualTo(new XidEvent(GPU1, 1, 79, null, null));
      assertThat(nvml.waitForXid(1000)).isEqualTo(new XidEvent(GPU0, 0, 48, null, null));
      assertThat(nvml.waitForXid(50)).isNull();
      assertThat(fake.fake_nvml_calls("nvmlDeviceRegisterEvents")).isEqualTo(2);
    }
  }

  @Test
  void receiver_xid79AndXid48_countedAlertedAndInTheSnapshotWithinOneRefresh() throws Exception {
    Control fake = FakeNvml.reset(2);
    TestContext ctx = new TestContext(FakeNvml.library(Variant.CURRENT).toString());
    try (NvmlReceiver receiver = new NvmlReceiver(ctx, new ProcessNames())) {
      receiver.refresh();
      List<Alert> before = receiver.contribution().alerts();
      assertThat(before).isEmpty();
      assertThat(xidPoint(metrics(ctx), gpu(GPU1, 1), "79")).isZero(); // critical codes start at 0

      fake.fake_nvml_xid(1, 79);
      fake.fake_nvml_set(1, "lost", 1);
      fake.fake_nvml_xid(0, 48);
      fake.fake_nvml_xid(0, 13); // an application error: counted, not alerted
      refreshUntil(receiver, () -> receiver.gpus().get(0).xidEvents().size() == 2
          && receiver.gpus().get(1).xidEvents().size() == 1);

      Map<String, MetricData> m = metrics(ctx);
      assertThat(m.get("gputop.gpu.xid")).hasUnit("{error}");
      assertThat(xidPoint(m, gpu(GPU1, 1), "79")).isEqualTo(1);
      assertThat(xidPoint(m, gpu(GPU0, 0), "48")).isEqualTo(1);
      assertThat(xidPoint(m, gpu(GPU0, 0), "13")).isEqualTo(1);
      assertThat(xidPoint(m, gpu(GPU0, 0), "79")).isZero();

      GpuEntry e0 = receiver.gpus().get(0);
      assertThat(e0.xidEvents()).extracting(GpuEntry.Xid::xid).containsExactly(48L, 13L);
      assertThat(e0.xidEvents().get(0).critical()).isTrue();
      assertThat(e0.xidEvents().get(0).description()).isEqualTo("double-bit ECC error (uncorrectable memory error)");
      assertThat(e0.xidEvents().get(1).critical()).isFalse();
      List<Alert> alerts = receiver.contribution().alerts();
      assertThat(alerts).extracting(Alert::name).containsExactlyInAnyOrder("gpu_failed", "gpu_xid", "gpu_xid");
      assertThat(alerts).filteredOn(a -> a.name().equals("gpu_xid")).extracting(Alert::message)
          .containsExactlyInAnyOrder(
              "GPU 0 (" + GPU0 + ") reported Xid 48 (double-bit ECC error (uncorrectable memory error)) in the last 10 minutes",
              "GPU 1 (" + GPU1 + ") reported Xid 79 (GPU has fallen off the bus) in the last 10 minutes");

      ctx.clock.advance(Duration.ofMinutes(11));
      receiver.refresh();
      List<Alert> later = receiver.contribution().alerts();
      assertThat(later).extracting(Alert::name).containsExactly("gpu_failed"); // the Xid alert has aged out
      assertThat(xidPoint(metrics(ctx), gpu(GPU0, 0), "48")).isEqualTo(1); // the counter has not
    }
  }

  @Test
  void receiver_faultMetrics_followDocsMetricsMd() {
    Control fake = FakeNvml.reset(1);
    fake.fake_nvml_set(0, "remap.correctable", 4);
    fake.fake_nvml_set(0, "remap.failed", 1);
    fake.fake_nvml_set(0, "pcie.replay", 9);
    fake.fake_nvml_set(0, "nvlink.count", 2);
    fake.fake_nvml_set_nvlink(0, 1, "crc_data", 5);
    fake.fake_nvml_set_nvlink(0, 0, "active", 0);
    TestContext ctx = new TestContext(FakeNvml.library(Variant.CURRENT).toString());
    try (NvmlReceiver receiver = new NvmlReceiver(ctx, new ProcessNames())) {
      receiver.refresh();
      Map<String, MetricData> m = metrics(ctx);
      Attributes g0 = gpu(GPU0, 0);

      assertThat(m.get("gputop.gpu.memory.remapped_rows")).hasUnit("{row}").hasLongSumSatisfying(
          sum -> sum.isNotMonotonic().hasPointsSatisfying(
              p -> p.hasValue(4).hasAttributes(g0.toBuilder().put("error.type", "corrected").build()),
              p -> p.hasValue(0).hasAttributes(g0.toBuilder().put("error.type", "uncorrected").build())));
      assertThat(m.get("gputop.gpu.memory.remap_failed")).hasLongGaugeSatisfying(
          g -> g.hasPointsSatisfying(p -> p.hasValue(1).hasAttributes(g0)));
      assertThat(m.get("gputop.gpu.memory.remap_pending")).hasLongGaugeSatisfying(
          g -> g.hasPointsSatisfying(p -> p.hasValue(0).hasAttributes(g0)));
      assertThat(m.get("gputop.gpu.pcie.replays")).hasUnit("{replay}").hasLongSumSatisfying(
          sum -> sum.isMonotonic().hasPointsSatisfying(p -> p.hasValue(9).hasAttributes(g0)));
      assertThat(m.get("gputop.gpu.nvlink.state")).hasLongGaugeSatisfying(
          g -> g.hasPointsSatisfying(
              p -> p.hasValue(0).hasAttributes(g0.toBuilder().put("gputop.nvlink.link", "0").build()),
              p -> p.hasValue(1).hasAttributes(g0.toBuilder().put("gputop.nvlink.link", "1").build())));
      assertThat(m.get("gputop.gpu.nvlink.errors").getLongSumData().getPoints()).hasSize(4); // link 1 only: 0 is down
      assertThat(m.get("gputop.gpu.nvlink.errors")).hasLongSumSatisfying(sum -> sum.isMonotonic());
      assertThat(receiver.gpus().get(0).remappedRows()).isEqualTo(new GpuEntry.RemappedRows(4L, 0L, false, true));
      assertThat(receiver.gpus().get(0).pcieReplays()).isEqualTo(9L);
      assertThat(receiver.gpus().get(0).nvlinks()).hasSize(2);
      assertThat(m).doesNotContainKey("gputop.gpu.memory.retired_pages");
    }
  }

  private static long xidPoint(Map<String, MetricData> m, Attributes device, String xid) {
    Attributes want = device.toBuilder().put("xid", xid).build();
    return m.get("gputop.gpu.xid").getLongSumData().getPoints().stream()
        .filter(p -> p.getAttributes().equals(want))
        .mapToLong(LongPointData::getValue)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no gputop.gpu.xid point for " + want));
  }
}
