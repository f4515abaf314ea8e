package dev.gputop.nvml;

import dev.gputop.config.services.GpuProcessSource;
import dev.gputop.config.services.GpuProcess;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gputop.nvml.FakeNvml.Control;
import dev.gputop.nvml.FakeNvml.Variant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The real JNA binding against the fake libnvidia-ml (src/test/c/fake_nvml.c). */
class NvmlTest {

  private static final long GIB = 1024L * 1024 * 1024;
  private static final long MIB = 1024L * 1024;

  private static Nvml open(Variant variant) throws NvmlUnavailableException {
    return Nvml.open(FakeNvml.library(variant).toString());
  }

  @Test
  void sample_eightGpus_readsEveryField() throws Exception {
    Control fake = FakeNvml.reset(8);
    fake.fake_nvml_set(3, "util.gpu", 87);
    fake.fake_nvml_set(3, "util.memory", 41);
    fake.fake_nvml_set(3, "memory.used", 40 * GIB);
    fake.fake_nvml_set(3, "power", 412_345);
    fake.fake_nvml_set(3, "energy", 9_876_543);
    fake.fake_nvml_set(3, "temperature", 71);
    fake.fake_nvml_set(3, "fan", 55);
    fake.fake_nvml_set(3, "throttle", 0x4 | 0x40);
    fake.fake_nvml_set(3, "ecc.corrected", 12);
    fake.fake_nvml_set(3, "ecc.uncorrected", 1);
    fake.fake_nvml_set(3, "pcie.tx", 5_000_000_000L);
    fake.fake_nvml_set(3, "pcie.rx", 7_000_000_000L);
    fake.fake_nvml_set(3, "clock.sm", 1755);

    try (Nvml nvml = open(Variant.CURRENT)) {
      GpuSample sample = nvml.sample();

      assertThat(nvml.driverVersion()).isEqualTo("550.54.15");
      assertThat(sample.driverVersion()).isEqualTo("550.54.15");
      assertThat(sample.devices()).hasSize(8);
      assertThat(sample.devices()).extracting(GpuDevice::index).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
      GpuDevice d = sample.devices().get(3);
      assertThat(d.uuid()).isEqualTo("GPU-fa4e0003-1111-2222-3333-000000000003");
      assertThat(d.name()).isEqualTo("NVIDIA H100 80GB HBM3");
      assertThat(d.pciBusId()).isEqualTo("00000000:48:00.0");
      assertThat(d.state()).isEqualTo(GpuState.OK);
      assertThat(d.error()).isNull();
      assertThat(d.parentUuid()).isNull();
      assertThat(d.utilization()).isEqualTo(0.87);
      assertThat(d.memoryControllerUtilization()).isEqualTo(0.41);
      // memory v2 "used", without the 541 MiB the driver reserves: what nvidia-smi shows
      assertThat(d.memoryUsedBytes()).isEqualTo(40 * GIB);
      assertThat(d.memoryTotalBytes()).isEqualTo(85_520_809_984L);
      assertThat(d.powerWatts()).isEqualTo(412.345);
      assertThat(d.energyJoules()).isEqualTo(9876.543);
      assertThat(d.temperatureCelsius()).isEqualTo(71);
      assertThat(d.fanSpeedRatio()).isEqualTo(0.55);
      assertThat(d.graphicsClockMhz()).isEqualTo(1980);
      assertThat(d.smClockMhz()).isEqualTo(1755);
      assertThat(d.memoryClockMhz()).isEqualTo(2619);
      assertThat(d.videoClockMhz()).isEqualTo(1545);
      assertThat(d.throttleReasons()).isEqualTo(0x44L);
      assertThat(d.eccCorrectedErrors()).isEqualTo(12L);
      assertThat(d.eccUncorrectedErrors()).isEqualTo(1L);
      assertThat(d.pcieTransmitBytes()).isEqualTo(5_000_000_000L);
      assertThat(d.pcieReceiveBytes()).isEqualTo(7_000_000_000L);
      assertThat(sample.processes()).isEmpty();
    }
  }

  @Test
  void open_close_pairsInitWithOneShutdown() throws Exception {
    Control fake = FakeNvml.reset(1);
    Nvml nvml = open(Variant.CURRENT);
    assertThat(fake.fake_nvml_init_calls()).isEqualTo(1);
    assertThat(fake.fake_nvml_calls("nvmlInit")).isZero();
    assertThat(fake.fake_nvml_refcount()).isEqualTo(1);

    nvml.close();
    nvml.close();

    assertThat(fake.fake_nvml_shutdown_calls()).isEqualTo(1);
    assertThat(fake.fake_nvml_refcount()).isZero();
    assertThatThrownBy(nvml::sample).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void open_missingLibrary_throwsUnavailableWithReason() {
    assertThatThrownBy(() -> Nvml.open("/nonexistent/libnvidia-ml.so.1"))
        .isInstanceOf(NvmlUnavailableException.class)
        .hasMessageContaining("/nonexistent/libnvidia-ml.so.1")
        .hasMessageContaining("NVIDIA driver installed");
  }

  @Test
  void open_driverNotLoaded_throwsUnavailableWithMappedCodeAndNoShutdown() {
    Control fake = FakeNvml.reset(1);
    fake.fake_nvml_set_error("nvmlInit_v2", -1, 9, -1);

    assertThatThrownBy(() -> open(Variant.CURRENT))
        .isInstanceOf(NvmlUnavailableException.class)
        .hasMessage("nvmlInit_v2 failed: NVML_ERROR_DRIVER_NOT_LOADED (9): the NVIDIA driver is not loaded");
    assertThat(fake.fake_nvml_shutdown_calls()).isZero();
    assertThat(fake.fake_nvml_refcount()).isZero();
  }

  @Test
  void sample_notSupported_isNullAndNeverAskedAgain() throws Exception {
    Control fake = FakeNvml.reset(2);
    fake.fake_nvml_set_error("nvmlDeviceGetFanSpeed", 0, 3, -1);
    try (Nvml nvml = open(Variant.CURRENT)) {
      GpuSample first = nvml.sample();
      nvml.sample();
      GpuSample third = nvml.sample();

      assertThat(first.devices().get(0).fanSpeedRatio()).isNull();
      assertThat(third.devices().get(0).fanSpeedRatio()).isNull();
      assertThat(third.devices().get(1).fanSpeedRatio()).isEqualTo(0.31);
      // GPU 0 once (then remembered), GPU 1 three times
      assertThat(fake.fake_nvml_calls("nvmlDeviceGetFanSpeed")).isEqualTo(4);
    }
  }

  @Test
  void sample_transientError_isNullOnceThenRead() throws Exception {
    Control fake = FakeNvml.reset(1);
    fake.fake_nvml_set_error("nvmlDeviceGetPowerUsage", 0, 999, 1);
    try (Nvml nvml = open(Variant.CURRENT)) {
      assertThat(nvml.sample().devices().get(0).powerWatts()).isNull();
      assertThat(nvml.sample().devices().get(0).powerWatts()).isEqualTo(100.0);
    }
  }

  @Test
  void sample_gpuLostMidRun_marksItFailedAndKeepsReportingIt() throws Exception {
    Control fake = FakeNvml.reset(2);
    fake.fake_nvml_add_process(1, 4242, 2 * GIB);
    try (Nvml nvml = open(Variant.CURRENT)) {
      GpuSample before = nvml.sample();
      assertThat(before.processes()).extracting(GpuProcess::pid).containsExactly(4242L);

      fake.fake_nvml_set(1, "lost", 1);
      GpuSample lost = nvml.sample();
      long callsAfterLoss = fake.fake_nvml_calls("nvmlDeviceGetPowerUsage");
      fake.fake_nvml_set(1, "lost", 0);
      GpuSample later = nvml.sample();

      for (GpuSample s : List.of(lost, later)) {
        assertThat(s.devices()).hasSize(2);
        GpuDevice failed = s.devices().get(1);
        assertThat(failed.state()).isEqualTo(GpuState.FAILED);
        assertThat(failed.uuid()).isEqualTo("GPU-fa4e0001-1111-2222-3333-000000000001");
        assertThat(failed.pciBusId()).isEqualTo("00000000:28:00.0");
        assertThat(failed.error()).contains("NVML_ERROR_GPU_IS_LOST (15)");
        assertThat(failed.memoryUsedBytes()).isNull();
        assertThat(s.devices().get(0).state()).isEqualTo(GpuState.OK);
        assertThat(s.devices().get(0).powerWatts()).isEqualTo(100.0);
        assertThat(s.processes()).isEmpty();
      }
      // once lost, the GPU is not asked again (it needs a reset)
      assertThat(fake.fake_nvml_calls("nvmlDeviceGetPowerUsage")).isEqualTo(callsAfterLoss + 1);
    }
  }

  @Test
  void sample_lostBeforeOpen_isListedAsFailedByIndex() throws Exception {
    Control fake = FakeNvml.reset(2);
    fake.fake_nvml_set(0, "lost", 1);
    try (Nvml nvml = open(Variant.CURRENT)) {
      GpuSample sample = nvml.sample();
      assertThat(sample.devices()).hasSize(2);
      GpuDevice lost = sample.devices().get(0);
      assertThat(lost.state()).isEqualTo(GpuState.FAILED);
      assertThat(lost.uuid()).isNull();
      assertThat(lost.id()).isEqualTo("gpu-index-0");
      assertThat(lost.error()).contains("GPU_IS_LOST");
      assertThat(sample.devices().get(1).state()).isEqualTo(GpuState.OK);
    }
  }

  @Test
  void sample_noPermissionForAGpu_skipsIt() throws Exception {
    Control fake = FakeNvml.reset(3);
    fake.fake_nvml_set_error("nvmlDeviceGetHandleByIndex_v2", -1, 4, 1);
    try (Nvml nvml = open(Variant.CURRENT)) {
      assertThat(nvml.sample().devices()).extracting(GpuDevice::index).containsExactly(1, 2);
    }
  }

  @Test
  void sample_processes_v3With24ByteEntries() throws Exception {
    Control fake = FakeNvml.reset(2);
    fake.fake_nvml_add_process(0, 1001, 10 * GIB);
    fake.fake_nvml_add_process(0, 1002, 512 * MIB);
    fake.fake_nvml_add_process(1, 1001, 3 * GIB);
    try (Nvml nvml = open(Variant.CURRENT)) {
      assertThat(nvml.processEntrySize()).isEqualTo(24);
      GpuSample sample = nvml.sample();
      String gpu0 = sample.devices().get(0).uuid();
      String gpu1 = sample.devices().get(1).uuid();
      assertThat(sample.processes())
          .containsExactly(
              new GpuProcess(1001, 0, gpu0, 10 * GIB),
              new GpuProcess(1002, 0, gpu0, 512 * MIB),
              new GpuProcess(1001, 1, gpu1, 3 * GIB));
      assertThat(fake.fake_nvml_calls("nvmlDeviceGetComputeRunningProcesses_v3")).isEqualTo(2);
      assertThat(fake.fake_nvml_calls("nvmlDeviceGetComputeRunningProcesses_v2")).isZero();
    }
  }

  @Test
  void sample_manyProcesses_growsTheBufferAndRetries() throws Exception {
    Control fake = FakeNvml.reset(1);
    for (int i = 0; i < 100; i++) {
      fake.fake_nvml_add_process(0, 2000 + i, (i + 1) * MIB);
    }
    try (Nvml nvml = open(Variant.CURRENT)) {
      GpuSample sample = nvml.sample();
      assertThat(sample.processes()).hasSize(100);
      assertThat(sample.processes().get(99)).isEqualTo(new GpuProcess(2099, 0, sample.devices().get(0).uuid(), 100 * MIB));
    }
  }

  @Test
  void sample_r535EarlyDriver_reads32ByteEntries() throws Exception {
    Control fake = FakeNvml.control(Variant.R535_EARLY);
    fake.fake_nvml_reset(1);
    fake.fake_nvml_add_process(0, 3001, 1 * GIB);
    fake.fake_nvml_add_process(0, 3002, 2 * GIB);
    fake.fake_nvml_add_process(0, 3003, 3 * GIB);
    try (Nvml nvml = open(Variant.R535_EARLY)) {
      assertThat(nvml.processEntrySize()).isEqualTo(32);
      GpuSample sample = nvml.sample();
      assertThat(sample.processes())
          .extracting(GpuProcess::pid, GpuProcess::usedMemoryBytes)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(3001L, 1 * GIB),
              org.assertj.core.groups.Tuple.tuple(3002L, 2 * GIB),
              org.assertj.core.groups.Tuple.tuple(3003L, 3 * GIB));
    }
  }

  @Test
  void sample_driverWrites32ByteEntriesDespiteItsSymbols_sanityCheckSwitchesStride() throws Exception {
    Control fake = FakeNvml.reset(1);
    fake.fake_nvml_set_v3_stride(32);
    fake.fake_nvml_add_process(0, 4001, 1 * GIB);
    fake.fake_nvml_add_process(0, 4002, 2 * GIB);
    try (Nvml nvml = open(Variant.CURRENT)) {
      assertThat(nvml.processEntrySize()).isEqualTo(24);
      GpuSample sample = nvml.sample();
      assertThat(sample.processes()).extracting(GpuProcess::pid).containsExactly(4001L, 4002L);
      assertThat(sample.processes()).extracting(GpuProcess::usedMemoryBytes).containsExactly(1 * GIB, 2 * GIB);
      assertThat(nvml.processEntrySize()).isEqualTo(32);
    }
  }

  @Test
  void sample_oldDriverWithoutVersionedSymbols_fallsBackToV1() throws Exception {
    Control fake = FakeNvml.control(Variant.OLD_DRIVER);
    fake.fake_nvml_reset(2);
    fake.fake_nvml_set(1, "memory.used", 8 * GIB);
    fake.fake_nvml_set(1, "memory.reserved", 512 * MIB);
    fake.fake_nvml_set(1, "temperature", 66);
    fake.fake_nvml_set(1, "throttle", 0x20);
    fake.fake_nvml_add_process(1, 5001, 1 * GIB);
    fake.fake_nvml_add_process(1, 5002, 2 * GIB);
    try (Nvml nvml = open(Variant.OLD_DRIVER)) {
      assertThat(nvml.processEntrySize()).isEqualTo(16);
      assertThat(nvml.driverVersion()).isEqualTo("440.33.01");
      GpuSample sample = nvml.sample();
      GpuDevice d = sample.devices().get(1);
      assertThat(d.state()).isEqualTo(GpuState.OK);
      // v1 "used" includes the reserved part: the best an old driver offers
      assertThat(d.memoryUsedBytes()).isEqualTo(8 * GIB + 512 * MIB);
      assertThat(d.pciBusId()).isEqualTo("0000:28:00.0");
      assertThat(d.temperatureCelsius()).isEqualTo(66);
      assertThat(d.throttleReasons()).isEqualTo(0x20L);
      assertThat(sample.processes())
          .containsExactly(new GpuProcess(5001, 1, d.uuid(), 1 * GIB), new GpuProcess(5002, 1, d.uuid(), 2 * GIB));
      assertThat(fake.fake_nvml_init_calls()).isEqualTo(1);
      assertThat(fake.fake_nvml_calls("nvmlDeviceGetCount")).isEqualTo(1);
      assertThat(fake.fake_nvml_calls("nvmlDeviceGetCurrentClocksThrottleReasons")).isEqualTo(2);
    }
    assertThat(fake.fake_nvml_refcount()).isZero();
  }

  @Test
  void sample_processUtilization_takesNewestSampleAndAdvancesLastSeen() throws Exception {
    Control fake = FakeNvml.reset(1);
    fake.fake_nvml_add_process(0, 6001, 4 * GIB);
    fake.fake_nvml_add_process(0, 6002, 4 * GIB);
    fake.fake_nvml_add_process_sample(0, 6001, 1_000, 20, 5);
    fake.fake_nvml_add_process_sample(0, 6001, 2_000, 75, 30);
    fake.fake_nvml_add_process_sample(0, 6002, 1_500, 10, 2);
    try (Nvml nvml = open(Variant.CURRENT)) {
      GpuSample first = nvml.sample();
      String uuid = first.devices().get(0).uuid();
      assertThat(first.utilizationOf(6001, uuid)).isEqualTo(new GpuProcessUtilization(6001, uuid, 0.75, 0.30));
      assertThat(first.utilizationOf(6002, uuid)).isEqualTo(new GpuProcessUtilization(6002, uuid, 0.10, 0.02));

      // no sample newer than 2000 µs: NVML says NOT_FOUND, which means the processes were idle
      GpuSample second = nvml.sample();
      assertThat(second.utilizationOf(6001, uuid).smUtilization()).isZero();

      fake.fake_nvml_add_process_sample(0, 6002, 3_000, 50, 9);
      GpuSample third = nvml.sample();
      assertThat(third.utilizationOf(6002, uuid).smUtilization()).isEqualTo(0.5);
      assertThat(third.utilizationOf(6001, uuid).smUtilization()).isZero();
    }
  }

  @Test
  void sample_migInstances_areDevicesWithParentAndTheirOwnProcesses() throws Exception {
    Control fake = FakeNvml.reset(2);
    int mig0 = fake.fake_nvml_add_mig(0, 1, 0, 10 * GIB);
    int mig1 = fake.fake_nvml_add_mig(0, 2, 0, 20 * GIB);
    fake.fake_nvml_add_process(mig1, 7001, 5 * GIB);
    try (Nvml nvml = open(Variant.CURRENT)) {
      nvml.sample();
      GpuSample sample = nvml.sample();
      assertThat(sample.devices()).extracting(GpuDevice::uuid)
          .containsExactly(
              "GPU-fa4e0000-1111-2222-3333-000000000000",
              "MIG-0a160000-aaaa-bbbb-cccc-000000000000",
              "MIG-0a160000-aaaa-bbbb-cccc-000000000001",
              "GPU-fa4e0001-1111-2222-3333-000000000001");
      GpuDevice parent = sample.devices().get(0);
      GpuDevice instance = sample.devices().get(2);
      assertThat(parent.utilization()).isNull(); // not supported on a MIG-enabled GPU
      assertThat(parent.powerWatts()).isEqualTo(100.0);
      assertThat(instance.isMig()).isTrue();
      assertThat(instance.parentUuid()).isEqualTo(parent.uuid());
      assertThat(instance.migIndex()).isEqualTo(1);
      assertThat(instance.index()).isZero();
      assertThat(instance.pciBusId()).isEqualTo(parent.pciBusId());
      assertThat(instance.memoryTotalBytes()).isEqualTo(20 * GIB);
      assertThat(instance.memoryUsedBytes()).isEqualTo(5 * GIB);
      assertThat(instance.powerWatts()).isNull();
      assertThat(sample.processes()).containsExactly(new GpuProcess(7001, 0, instance.uuid(), 5 * GIB));
      assertThat(mig0).isNotEqualTo(mig1);
    }
  }

  @Test
  void sample_deviceCountChanges_reenumeratesAndKeepsStateByUuid() throws Exception {
    Control fake = FakeNvml.reset(1);
    fake.fake_nvml_set_error("nvmlDeviceGetFanSpeed", 0, 3, -1);
    try (Nvml nvml = open(Variant.CURRENT)) {
      nvml.sample();
      // a second GPU appears; GPU 0 keeps its UUID and what NVML said it does not support
      fake.fake_nvml_reset(2);
      GpuSample sample = nvml.sample();
      assertThat(sample.devices()).hasSize(2);
      assertThat(sample.devices().get(0).fanSpeedRatio()).isNull();
      assertThat(sample.devices().get(1).fanSpeedRatio()).isEqualTo(0.31);
    }
  }

  @Test
  void sampleProcessesOnce_readsThenShutsDown() {
    Control fake = FakeNvml.reset(2);
    fake.fake_nvml_add_process(1, 8001, GIB);

    GpuProcessSource source = Nvml.sampleProcessesOnce(FakeNvml.library(Variant.CURRENT).toString());

    assertThat(source.available()).isTrue();
    assertThat(source.unavailableReason()).isNull();
    assertThat(source.gpuProcesses())
        .containsExactly(new GpuProcess(8001, 1, "GPU-fa4e0001-1111-2222-3333-000000000001", GIB));
    assertThat(fake.fake_nvml_refcount()).isZero();

    GpuProcessSource missing = Nvml.sampleProcessesOnce("/nonexistent/libnvidia-ml.so.1");
    assertThat(missing.available()).isFalse();
    assertThat(missing.unavailableReason()).contains("/nonexistent/libnvidia-ml.so.1");
    assertThat(missing.gpuProcesses()).isEmpty();
  }

  @Test
  void sample_uuidUnreadableButBusIdKnown_isKeyedByBusId() throws Exception {
    Control fake = FakeNvml.reset(2);
    fake.fake_nvml_set_error("nvmlDeviceGetUUID", 1, 15, -1);
    try (Nvml nvml = open(Variant.CURRENT)) {
      GpuDevice failed = nvml.sample().devices().get(1);
      assertThat(failed.state()).isEqualTo(GpuState.FAILED);
      assertThat(failed.uuid()).isNull();
      assertThat(failed.pciBusId()).isEqualTo("00000000:28:00.0");
      assertThat(failed.id()).isEqualTo("pci-00000000:28:00.0");
    }
  }
}
