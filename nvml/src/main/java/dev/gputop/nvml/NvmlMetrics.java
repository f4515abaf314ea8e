package dev.gputop.nvml;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import java.util.List;
import java.util.function.Supplier;

/**
 * The NVML receiver's instruments (docs/metrics.md, "NVML receiver"), all observed in one batch
 * callback that reads the latest published snapshot and does no I/O. Thread-safe.
 */
final class NvmlMetrics implements AutoCloseable {

  /** What the callback reads: one device with its cached attributes. */
  record DeviceView(GpuDevice device, DeviceAttributes attributes) {}

  /** One process data point. */
  record ProcessView(Attributes attributes, long usedMemoryBytes, Double utilization) {}

  /** One Xid counter data point: a GPU and code with its count since the agent started. */
  record XidView(Attributes attributes, long count) {}

  /** The part of the receiver's snapshot the instruments read. */
  interface Source {
    List<DeviceView> devices();

    List<ProcessView> processes();

    List<XidView> xids();
  }

  private final BatchCallback callback;

  NvmlMetrics(Meter meter, Supplier<? extends Source> source) {
    ObservableDoubleMeasurement utilization =
        meter.gaugeBuilder("hw.gpu.utilization").setUnit("1")
            .setDescription("Fraction of time the GPU ran a kernel.").buildObserver();
    ObservableLongMeasurement memoryUsage =
        meter.upDownCounterBuilder("hw.gpu.memory.usage").setUnit("By")
            .setDescription("GPU memory used (NVML memory v2 used, as nvidia-smi shows it).").buildObserver();
    ObservableLongMeasurement memoryLimit =
        meter.upDownCounterBuilder("hw.gpu.memory.limit").setUnit("By")
            .setDescription("Total GPU memory.").buildObserver();
    ObservableDoubleMeasurement memoryUtilization =
        meter.gaugeBuilder("hw.gpu.memory.utilization").setUnit("1")
            .setDescription("GPU memory used divided by total memory.").buildObserver();
    ObservableLongMeasurement io =
        meter.counterBuilder("hw.gpu.io").setUnit("By")
            .setDescription("PCIe bytes received and transmitted by the GPU.").buildObserver();
    ObservableDoubleMeasurement power =
        meter.gaugeBuilder("hw.power").setUnit("W")
            .setDescription("GPU power draw.").buildObserver();
    ObservableDoubleMeasurement energy =
        meter.counterBuilder("hw.energy").ofDoubles().setUnit("J")
            .setDescription("GPU energy consumed since the driver was loaded.").buildObserver();
    ObservableLongMeasurement errors =
        meter.counterBuilder("hw.errors").setUnit("{error}")
            .setDescription("ECC errors since the driver was loaded.").buildObserver();
    ObservableLongMeasurement status =
        meter.upDownCounterBuilder("hw.status").setUnit("1")
            .setDescription("1 for the GPU's current state (ok or failed), 0 for the other.").buildObserver();
    ObservableLongMeasurement temperature =
        meter.gaugeBuilder("gputop.gpu.temperature").ofLongs().setUnit("Cel")
            .setDescription("GPU die temperature.").buildObserver();
    ObservableLongMeasurement clock =
        meter.gaugeBuilder("gputop.gpu.clock").ofLongs().setUnit("Hz")
            .setDescription("Current GPU clocks by gputop.clock.type, in hertz.").buildObserver();
    ObservableLongMeasurement throttle =
        meter.gaugeBuilder("gputop.gpu.throttle").ofLongs().setUnit("1")
            .setDescription("1 while the clock event (throttle) reason is active.").buildObserver();
    ObservableDoubleMeasurement memoryController =
        meter.gaugeBuilder("gputop.gpu.memory_controller.utilization").setUnit("1")
            .setDescription("Fraction of time GPU memory was read or written.").buildObserver();
    ObservableDoubleMeasurement fan =
        meter.gaugeBuilder("gputop.gpu.fan.speed_ratio").setUnit("1")
            .setDescription("Fan speed as a fraction of its maximum.").buildObserver();
    ObservableLongMeasurement processMemory =
        meter.upDownCounterBuilder("gputop.gpu.process.memory.usage").setUnit("By")
            .setDescription("GPU memory used by a process.").buildObserver();
    ObservableDoubleMeasurement processUtilization =
        meter.gaugeBuilder("gputop.gpu.process.utilization").setUnit("1")
            .setDescription("Fraction of the GPU's SMs a process used in the driver's latest sample.").buildObserver();

    ObservableLongMeasurement xid =
        meter.counterBuilder("gputop.gpu.xid").setUnit("{error}")
            .setDescription("Xid critical error events by xid code since the agent started.").buildObserver();
    ObservableLongMeasurement remappedRows =
        meter.upDownCounterBuilder("gputop.gpu.memory.remapped_rows").setUnit("{row}")
            .setDescription("Rows remapped after corrected or uncorrected memory errors (InfoROM entries).").buildObserver();
    ObservableLongMeasurement remapPending =
        meter.gaugeBuilder("gputop.gpu.memory.remap_pending").ofLongs().setUnit("1")
            .setDescription("1 while a row remap waits for a GPU reset to take effect.").buildObserver();
    ObservableLongMeasurement remapFailed =
        meter.gaugeBuilder("gputop.gpu.memory.remap_failed").ofLongs().setUnit("1")
            .setDescription("1 when a row remap failed.").buildObserver();
    ObservableLongMeasurement retiredPages =
        meter.upDownCounterBuilder("gputop.gpu.memory.retired_pages").setUnit("{page}")
            .setDescription("Pages retired after multiple single-bit or a double-bit ECC error.").buildObserver();
    ObservableLongMeasurement retiredPending =
        meter.gaugeBuilder("gputop.gpu.memory.retired_pages_pending").ofLongs().setUnit("1")
            .setDescription("1 while a page retirement waits for the next driver reload.").buildObserver();
    ObservableLongMeasurement pcieReplays =
        meter.counterBuilder("gputop.gpu.pcie.replays").setUnit("{replay}")
            .setDescription("PCIe replays (link-level retransmissions) since the driver was loaded.").buildObserver();
    ObservableLongMeasurement nvlinkState =
        meter.gaugeBuilder("gputop.gpu.nvlink.state").ofLongs().setUnit("1")
            .setDescription("1 while the NVLink link is active, 0 when it is down.").buildObserver();
    ObservableLongMeasurement nvlinkErrors =
        meter.counterBuilder("gputop.gpu.nvlink.errors").setUnit("{error}")
            .setDescription("NVLink data-link errors by error.type (replay, recovery, crc_flit, crc_data).").buildObserver();

    callback =
        meter.batchCallback(
            () -> {
              Source s = source.get();
              for (DeviceView view : s.devices()) {
                GpuDevice d = view.device();
                DeviceAttributes a = view.attributes();
                boolean failed = d.state() == GpuState.FAILED;
                status.record(failed ? 0 : 1, a.statusOk);
                status.record(failed ? 1 : 0, a.statusFailed);
                if (failed) {
                  continue;
                }
                if (d.utilization() != null) {
                  utilization.record(d.utilization(), a.utilization);
                }
                if (d.memoryUsedBytes() != null) {
                  memoryUsage.record(d.memoryUsedBytes(), a.base);
                }
                if (d.memoryTotalBytes() != null) {
                  memoryLimit.record(d.memoryTotalBytes(), a.base);
                  if (d.memoryUsedBytes() != null && d.memoryTotalBytes() > 0) {
                    memoryUtilization.record((double) d.memoryUsedBytes() / d.memoryTotalBytes(), a.base);
                  }
                }
                if (d.pcieReceiveBytes() != null) {
                  io.record(d.pcieReceiveBytes(), a.ioReceive);
                }
                if (d.pcieTransmitBytes() != null) {
                  io.record(d.pcieTransmitBytes(), a.ioTransmit);
                }
                if (d.powerWatts() != null) {
                  power.record(d.powerWatts(), a.base);
                }
                if (d.energyJoules() != null) {
                  energy.record(d.energyJoules(), a.base);
                }
                if (d.eccCorrectedErrors() != null) {
                  errors.record(d.eccCorrectedErrors(), a.errorsCorrected);
                }
                if (d.eccUncorrectedErrors() != null) {
                  errors.record(d.eccUncorrectedErrors(), a.errorsUncorrected);
                }
                if (d.temperatureCelsius() != null) {
                  temperature.record(d.temperatureCelsius(), a.base);
                }
                recordClock(clock, d.graphicsClockMhz(), a.clocks[0]);
                recordClock(clock, d.smClockMhz(), a.clocks[1]);
                recordClock(clock, d.memoryClockMhz(), a.clocks[2]);
                recordClock(clock, d.videoClockMhz(), a.clocks[3]);
                if (d.throttleReasons() != null) {
                  for (ThrottleReason r : ThrottleReason.values()) {
                    throttle.record(r.in(d.throttleReasons()) ? 1 : 0, a.throttle[r.ordinal()]);
                  }
                }
                if (d.memoryControllerUtilization() != null) {
                  memoryController.record(d.memoryControllerUtilization(), a.base);
                }
                if (d.fanSpeedRatio() != null) {
                  fan.record(d.fanSpeedRatio(), a.base);
                }
                recordFaults(d.faults(), a, remappedRows, remapPending, remapFailed, retiredPages,
                    retiredPending, pcieReplays, nvlinkState, nvlinkErrors);
              }
              for (XidView x : s.xids()) {
                xid.record(x.count(), x.attributes());
              }
              for (ProcessView p : s.processes()) {
                if (p.usedMemoryBytes() >= 0) {
                  processMemory.record(p.usedMemoryBytes(), p.attributes());
                }
                if (p.utilization() != null) {
                  processUtilization.record(p.utilization(), p.attributes());
                }
              }
            },
            utilization, memoryUsage, memoryLimit, memoryUtilization, io, power, energy, errors,
            status, temperature, clock, throttle, memoryController, fan, processMemory,
            processUtilization, xid, remappedRows, remapPending, remapFailed, retiredPages,
            retiredPending, pcieReplays, nvlinkState, nvlinkErrors);
  }

  private static void recordFaults(
      GpuFaults f, DeviceAttributes a, ObservableLongMeasurement remappedRows,
      ObservableLongMeasurement remapPending, ObservableLongMeasurement remapFailed,
      ObservableLongMeasurement retiredPages, ObservableLongMeasurement retiredPending,
      ObservableLongMeasurement pcieReplays, ObservableLongMeasurement nvlinkState,
      ObservableLongMeasurement nvlinkErrors) {
    if (f.remappedRowsCorrectable() != null) {
      remappedRows.record(f.remappedRowsCorrectable(), a.errorsCorrected);
      remappedRows.record(f.remappedRowsUncorrectable(), a.errorsUncorrected);
      remapPending.record(f.remapPending() ? 1 : 0, a.base);
      remapFailed.record(f.remapFailed() ? 1 : 0, a.base);
    }
    if (f.retiredPagesSingleBit() != null) {
      retiredPages.record(f.retiredPagesSingleBit(), a.retiredSingleBit);
      retiredPages.record(f.retiredPagesDoubleBit(), a.retiredDoubleBit);
    }
    if (f.retiredPagesPending() != null) {
      retiredPending.record(f.retiredPagesPending() ? 1 : 0, a.base);
    }
    if (f.pcieReplays() != null) {
      pcieReplays.record(f.pcieReplays(), a.base);
    }
    for (GpuFaults.NvLink l : f.nvlinks()) {
      nvlinkState.record(l.active() ? 1 : 0, a.nvlink(l.link()));
      Long[] counters = {l.replayErrors(), l.recoveryErrors(), l.crcFlitErrors(), l.crcDataErrors()};
      for (int c = 0; c < counters.length; c++) {
        if (counters[c] != null) {
          nvlinkErrors.record(counters[c], a.nvlinkError(l.link(), c));
        }
      }
    }
  }

  /** NVML gives MHz; exported in the base unit, hertz, as Prometheus names want (_hertz). */
  private static void recordClock(ObservableLongMeasurement clock, Integer mhz, Attributes a) {
    if (mhz != null) {
      clock.record(Integer.toUnsignedLong(mhz) * 1_000_000L, a);
    }
  }

  @Override
  public void close() {
    callback.close();
  }
}
