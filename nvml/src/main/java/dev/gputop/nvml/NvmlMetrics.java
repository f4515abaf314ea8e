package dev.gputop.nvml;

import static dev.gputop.nvml.NvmlMetrics.Instrument.CLOCK;
import static dev.gputop.nvml.NvmlMetrics.Instrument.ENERGY;
import static dev.gputop.nvml.NvmlMetrics.Instrument.ERRORS;
import static dev.gputop.nvml.NvmlMetrics.Instrument.FAN;
import static dev.gputop.nvml.NvmlMetrics.Instrument.IO;
import static dev.gputop.nvml.NvmlMetrics.Instrument.MEMORY_CONTROLLER;
import static dev.gputop.nvml.NvmlMetrics.Instrument.MEMORY_LIMIT;
import static dev.gputop.nvml.NvmlMetrics.Instrument.MEMORY_USAGE;
import static dev.gputop.nvml.NvmlMetrics.Instrument.MEMORY_UTILIZATION;
import static dev.gputop.nvml.NvmlMetrics.Instrument.NVLINK_ERRORS;
import static dev.gputop.nvml.NvmlMetrics.Instrument.NVLINK_STATE;
import static dev.gputop.nvml.NvmlMetrics.Instrument.PCIE_REPLAYS;
import static dev.gputop.nvml.NvmlMetrics.Instrument.POWER;
import static dev.gputop.nvml.NvmlMetrics.Instrument.PROCESS_MEMORY;
import static dev.gputop.nvml.NvmlMetrics.Instrument.PROCESS_UTILIZATION;
import static dev.gputop.nvml.NvmlMetrics.Instrument.REMAPPED_ROWS;
import static dev.gputop.nvml.NvmlMetrics.Instrument.REMAP_FAILED;
import static dev.gputop.nvml.NvmlMetrics.Instrument.REMAP_PENDING;
import static dev.gputop.nvml.NvmlMetrics.Instrument.RETIRED_PAGES;
import static dev.gputop.nvml.NvmlMetrics.Instrument.RETIRED_PAGES_PENDING;
import static dev.gputop.nvml.NvmlMetrics.Instrument.STATUS;
import static dev.gputop.nvml.NvmlMetrics.Instrument.TEMPERATURE;
import static dev.gputop.nvml.NvmlMetrics.Instrument.THROTTLE;
import static dev.gputop.nvml.NvmlMetrics.Instrument.UTILIZATION;
import static dev.gputop.nvml.NvmlMetrics.Instrument.XID;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import io.opentelemetry.api.metrics.ObservableMeasurement;
import java.util.Arrays;
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

  /**
   * Every instrument, defined once: its name, kind, unit and description. docs/metrics.md lists
   * them for users; the callback below says what each records.
   */
  enum Instrument {
    UTILIZATION("hw.gpu.utilization", Kind.DOUBLE_GAUGE, "1",
        "Fraction of time the GPU ran a kernel."),
    MEMORY_USAGE("hw.gpu.memory.usage", Kind.LONG_UP_DOWN_COUNTER, "By",
        "GPU memory used (NVML memory v2 used, as nvidia-smi shows it)."),
    MEMORY_LIMIT("hw.gpu.memory.limit", Kind.LONG_UP_DOWN_COUNTER, "By",
        "Total GPU memory."),
    MEMORY_UTILIZATION("hw.gpu.memory.utilization", Kind.DOUBLE_GAUGE, "1",
        "GPU memory used divided by total memory."),
    IO("hw.gpu.io", Kind.LONG_COUNTER, "By",
        "PCIe bytes received and transmitted by the GPU."),
    POWER("hw.power", Kind.DOUBLE_GAUGE, "W",
        "GPU power draw."),
    ENERGY("hw.energy", Kind.DOUBLE_COUNTER, "J",
        "GPU energy consumed since the driver was loaded."),
    ERRORS("hw.errors", Kind.LONG_COUNTER, "{error}",
        "ECC errors since the driver was loaded."),
    STATUS("hw.status", Kind.LONG_UP_DOWN_COUNTER, "1",
        "1 for the GPU's current state (ok or failed), 0 for the other."),
    TEMPERATURE("gputop.gpu.temperature", Kind.LONG_GAUGE, "Cel",
        "GPU die temperature."),
    CLOCK("gputop.gpu.clock", Kind.LONG_GAUGE, "Hz",
        "Current GPU clocks by gputop.clock.type, in hertz."),
    THROTTLE("gputop.gpu.throttle", Kind.LONG_GAUGE, "1",
        "1 while the clock event (throttle) reason is active."),
    MEMORY_CONTROLLER("gputop.gpu.memory_controller.utilization", Kind.DOUBLE_GAUGE, "1",
        "Fraction of time GPU memory was read or written."),
    FAN("gputop.gpu.fan.speed_ratio", Kind.DOUBLE_GAUGE, "1",
        "Fan speed as a fraction of its maximum."),
    PROCESS_MEMORY("gputop.gpu.process.memory.usage", Kind.LONG_UP_DOWN_COUNTER, "By",
        "GPU memory used by a process."),
    PROCESS_UTILIZATION("gputop.gpu.process.utilization", Kind.DOUBLE_GAUGE, "1",
        "Fraction of the GPU's SMs a process used in the driver's latest sample."),
    XID("gputop.gpu.xid", Kind.LONG_COUNTER, "{error}",
        "Xid critical error events by xid code since the agent started."),
    REMAPPED_ROWS("gputop.gpu.memory.remapped_rows", Kind.LONG_UP_DOWN_COUNTER, "{row}",
        "Rows remapped after corrected or uncorrected memory errors (InfoROM entries)."),
    REMAP_PENDING("gputop.gpu.memory.remap_pending", Kind.LONG_GAUGE, "1",
        "1 while a row remap waits for a GPU reset to take effect."),
    REMAP_FAILED("gputop.gpu.memory.remap_failed", Kind.LONG_GAUGE, "1",
        "1 when a row remap failed."),
    RETIRED_PAGES("gputop.gpu.memory.retired_pages", Kind.LONG_UP_DOWN_COUNTER, "{page}",
        "Pages retired after multiple single-bit or a double-bit ECC error."),
    RETIRED_PAGES_PENDING("gputop.gpu.memory.retired_pages_pending", Kind.LONG_GAUGE, "1",
        "1 while a page retirement waits for the next driver reload."),
    PCIE_REPLAYS("gputop.gpu.pcie.replays", Kind.LONG_COUNTER, "{replay}",
        "PCIe replays (link-level retransmissions) since the driver was loaded."),
    NVLINK_STATE("gputop.gpu.nvlink.state", Kind.LONG_GAUGE, "1",
        "1 while the NVLink link is active, 0 when it is down."),
    NVLINK_ERRORS("gputop.gpu.nvlink.errors", Kind.LONG_COUNTER, "{error}",
        "NVLink data-link errors by error.type (replay, recovery, crc_flit, crc_data).");

    final String metricName;
    final Kind kind;
    final String unit;
    final String description;

    Instrument(String metricName, Kind kind, String unit, String description) {
      this.metricName = metricName;
      this.kind = kind;
      this.unit = unit;
      this.description = description;
    }

    ObservableMeasurement build(Meter meter) {
      switch (kind) {
        case DOUBLE_GAUGE:
          return meter.gaugeBuilder(metricName).setUnit(unit).setDescription(description)
              .buildObserver();
        case LONG_GAUGE:
          return meter.gaugeBuilder(metricName).ofLongs().setUnit(unit).setDescription(description)
              .buildObserver();
        case LONG_COUNTER:
          return meter.counterBuilder(metricName).setUnit(unit).setDescription(description)
              .buildObserver();
        case DOUBLE_COUNTER:
          return meter.counterBuilder(metricName).ofDoubles().setUnit(unit)
              .setDescription(description).buildObserver();
        default:
          return meter.upDownCounterBuilder(metricName).setUnit(unit).setDescription(description)
              .buildObserver();
      }
    }
  }

  /** The OpenTelemetry instrument kinds the NVML receiver uses, observed (asynchronous). */
  enum Kind {
    DOUBLE_GAUGE,
    LONG_GAUGE,
    LONG_COUNTER,
    DOUBLE_COUNTER,
    LONG_UP_DOWN_COUNTER
  }

  private static final Instrument[] INSTRUMENTS = Instrument.values();

  /** By {@link Instrument#ordinal()}. */
  private final ObservableMeasurement[] observers = new ObservableMeasurement[INSTRUMENTS.length];

  private final BatchCallback callback;

  NvmlMetrics(Meter meter, Supplier<? extends Source> source) {
    for (Instrument i : INSTRUMENTS) {
      observers[i.ordinal()] = i.build(meter);
    }
    callback =
        meter.batchCallback(
            () -> record(source.get()),
            observers[0], Arrays.copyOfRange(observers, 1, observers.length));
  }

  private void record(Source s) {
    for (DeviceView view : s.devices()) {
      GpuDevice d = view.device();
      DeviceAttributes a = view.attributes();
      boolean failed = d.state() == GpuState.FAILED;
      record(STATUS, failed ? 0 : 1, a.statusOk);
      record(STATUS, failed ? 1 : 0, a.statusFailed);
      if (failed) {
        continue;
      }
      if (d.utilization() != null) {
        record(UTILIZATION, d.utilization(), a.utilization);
      }
      if (d.memoryUsedBytes() != null) {
        record(MEMORY_USAGE, d.memoryUsedBytes(), a.base);
      }
      if (d.memoryTotalBytes() != null) {
        record(MEMORY_LIMIT, d.memoryTotalBytes(), a.base);
        if (d.memoryUsedBytes() != null && d.memoryTotalBytes() > 0) {
          record(MEMORY_UTILIZATION, (double) d.memoryUsedBytes() / d.memoryTotalBytes(), a.base);
        }
      }
      if (d.pcieReceiveBytes() != null) {
        record(IO, d.pcieReceiveBytes(), a.ioReceive);
      }
      if (d.pcieTransmitBytes() != null) {
        record(IO, d.pcieTransmitBytes(), a.ioTransmit);
      }
      if (d.powerWatts() != null) {
        record(POWER, d.powerWatts(), a.base);
      }
      if (d.energyJoules() != null) {
        record(ENERGY, d.energyJoules(), a.base);
      }
      if (d.eccCorrectedErrors() != null) {
        record(ERRORS, d.eccCorrectedErrors(), a.errorsCorrected);
      }
      if (d.eccUncorrectedErrors() != null) {
        record(ERRORS, d.eccUncorrectedErrors(), a.errorsUncorrected);
      }
      if (d.temperatureCelsius() != null) {
        record(TEMPERATURE, d.temperatureCelsius(), a.base);
      }
      recordClock(d.graphicsClockMhz(), a.clocks[0]);
      recordClock(d.smClockMhz(), a.clocks[1]);
      recordClock(d.memoryClockMhz(), a.clocks[2]);
      recordClock(d.videoClockMhz(), a.clocks[3]);
      if (d.throttleReasons() != null) {
        for (ThrottleReason r : ThrottleReason.values()) {
          record(THROTTLE, r.in(d.throttleReasons()) ? 1 : 0, a.throttle[r.ordinal()]);
        }
      }
      if (d.memoryControllerUtilization() != null) {
        record(MEMORY_CONTROLLER, d.memoryControllerUtilization(), a.base);
      }
      if (d.fanSpeedRatio() != null) {
        record(FAN, d.fanSpeedRatio(), a.base);
      }
      recordFaults(d.faults(), a);
    }
    for (XidView x : s.xids()) {
      record(XID, x.count(), x.attributes());
    }
    for (ProcessView p : s.processes()) {
      if (p.usedMemoryBytes() >= 0) {
        record(PROCESS_MEMORY, p.usedMemoryBytes(), p.attributes());
      }
      if (p.utilization() != null) {
        record(PROCESS_UTILIZATION, p.utilization(), p.attributes());
      }
    }
  }

  private void recordFaults(GpuFaults f, DeviceAttributes a) {
    if (f.remappedRowsCorrectable() != null) {
      record(REMAPPED_ROWS, f.remappedRowsCorrectable(), a.errorsCorrected);
      record(REMAPPED_ROWS, f.remappedRowsUncorrectable(), a.errorsUncorrected);
      record(REMAP_PENDING, f.remapPending() ? 1 : 0, a.base);
      record(REMAP_FAILED, f.remapFailed() ? 1 : 0, a.base);
    }
    if (f.retiredPagesSingleBit() != null) {
      record(RETIRED_PAGES, f.retiredPagesSingleBit(), a.retiredSingleBit);
      record(RETIRED_PAGES, f.retiredPagesDoubleBit(), a.retiredDoubleBit);
    }
    if (f.retiredPagesPending() != null) {
      record(RETIRED_PAGES_PENDING, f.retiredPagesPending() ? 1 : 0, a.base);
    }
    if (f.pcieReplays() != null) {
      record(PCIE_REPLAYS, f.pcieReplays(), a.base);
    }
    for (GpuFaults.NvLink l : f.nvlinks()) {
      record(NVLINK_STATE, l.active() ? 1 : 0, a.nvlink(l.link()));
      Long[] counters = {l.replayErrors(), l.recoveryErrors(), l.crcFlitErrors(), l.crcDataErrors()};
      for (int c = 0; c < counters.length; c++) {
        if (counters[c] != null) {
          record(NVLINK_ERRORS, counters[c], a.nvlinkError(l.link(), c));
        }
      }
    }
  }

  /** NVML gives MHz; exported in the base unit, hertz, as Prometheus names want (_hertz). */
  private void recordClock(Integer mhz, Attributes a) {
    if (mhz != null) {
      record(CLOCK, Integer.toUnsignedLong(mhz) * 1_000_000L, a);
    }
  }

  /** Records a whole number: into a long instrument as it is, into a double one as a double. */
  private void record(Instrument i, long value, Attributes a) {
    ObservableMeasurement m = observers[i.ordinal()];
    if (m instanceof ObservableLongMeasurement) {
      ((ObservableLongMeasurement) m).record(value, a);
    } else {
      ((ObservableDoubleMeasurement) m).record(value, a);
    }
  }

  /** Records a fraction or other real number; only double instruments take one. */
  private void record(Instrument i, double value, Attributes a) {
    ((ObservableDoubleMeasurement) observers[i.ordinal()]).record(value, a);
  }

  @Override
  public void close() {
    callback.close();
  }
}
