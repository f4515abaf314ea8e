package dev.gputop.nvml;

import dev.gputop.config.services.ProcessOwnerLookup;
import dev.gputop.config.services.GpuProcess;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Turns a {@link GpuSample} into the snapshot's {@code gpus[]} entries, naming each process's
 * executable and inference server. Used by the NVML receiver and by the {@code gpus} command, so
 * both print the same records. Stateless; thread-safe when the lookups are.
 */
public final class GpuEntries {

  private static final Logger logger = Logger.getLogger(GpuEntries.class.getName());

  private GpuEntries() {}

  /**
   * The entries of every device in the sample.
   *
   * @param owners which server a PID belongs to, or null when no inference receiver runs
   * @param names executable names, or null to leave names out
   */
  public static List<GpuEntry> of(GpuSample sample, ProcessOwnerLookup owners, ProcessNames names) {
    return of(sample, owners, names, java.util.Map.of());
  }

  /** The entries, with the Xid events the receiver's event thread received per GPU UUID. */
  static List<GpuEntry> of(
      GpuSample sample, ProcessOwnerLookup owners, ProcessNames names, java.util.Map<String, XidLog.Gpu> xids) {
    if (names != null) {
      Set<Long> live = new HashSet<>();
      for (GpuProcess p : sample.processes()) {
        live.add(p.pid());
      }
      names.retain(live);
    }
    List<GpuEntry> entries = new ArrayList<>(sample.devices().size());
    for (GpuDevice d : sample.devices()) {
      List<GpuProcessEntry> processes = new ArrayList<>();
      for (GpuProcess p : sample.processes()) {
        if (d.uuid() == null || !d.uuid().equals(p.gpuUuid())) {
          continue;
        }
        GpuProcessUtilization u = sample.utilizationOf(p.pid(), p.gpuUuid());
        processes.add(
            new GpuProcessEntry(
                p.pid(),
                p.usedMemoryBytes() < 0 ? null : p.usedMemoryBytes(),
                serverOf(owners, p.pid()),
                names == null ? null : names.nameOf(p.pid()),
                u == null ? null : u.smUtilization(),
                podOf(owners, p.pid())));
      }
      XidLog.Gpu x = d.uuid() == null ? null : xids.get(d.uuid());
      entries.add(entry(d, processes, x));
    }
    return List.copyOf(entries);
  }

  /** The owner's answer; a failing lookup (another module's code) never breaks the sample. */
  static String serverOf(ProcessOwnerLookup owners, long pid) {
    if (owners == null) {
      return null;
    }
    try {
      return owners.serverFor(pid);
    } catch (RuntimeException e) {
      logger.log(Level.FINE, "ProcessOwnerLookup failed for pid " + pid, e);
      return null;
    }
  }

  /** The owner's pod for a PID; a failing lookup never breaks the sample. */
  static dev.gputop.config.PodIdentity podOf(ProcessOwnerLookup owners, long pid) {
    if (owners == null) {
      return null;
    }
    try {
      return owners.podFor(pid);
    } catch (RuntimeException e) {
      logger.log(Level.FINE, "ProcessOwnerLookup failed for pid " + pid, e);
      return null;
    }
  }

  private static GpuEntry entry(GpuDevice d, List<GpuProcessEntry> processes, XidLog.Gpu xids) {
    GpuFaults f = d.faults();
    List<GpuEntry.Xid> events = new ArrayList<>();
    if (xids != null) {
      for (XidLog.Entry e : xids.recent()) {
        long code = e.event().xid();
        events.add(new GpuEntry.Xid(code, e.time().toString(), XidCodes.isCritical(code), XidCodes.describe(code)));
      }
    }
    boolean anyClock =
        d.graphicsClockMhz() != null || d.smClockMhz() != null || d.memoryClockMhz() != null
            || d.videoClockMhz() != null;
    List<String> reasons = null;
    if (d.throttleReasons() != null) {
      reasons = new ArrayList<>();
      for (ThrottleReason r : ThrottleReason.values()) {
        if (r.in(d.throttleReasons())) {
          reasons.add(r.attributeValue());
        }
      }
    }
    return new GpuEntry(
        d.index(),
        d.uuid(),
        d.name(),
        d.pciBusId(),
        d.state().jsonName(),
        d.utilization(),
        d.memoryUsedBytes(),
        d.memoryTotalBytes(),
        d.powerWatts(),
        d.temperatureCelsius(),
        processes,
        d.parentUuid(),
        d.migIndex(),
        d.error(),
        d.memoryControllerUtilization(),
        d.energyJoules(),
        d.fanSpeedRatio(),
        anyClock
            ? new GpuEntry.Clocks(d.graphicsClockMhz(), d.smClockMhz(), d.memoryClockMhz(), d.videoClockMhz())
            : null,
        reasons,
        d.eccCorrectedErrors(),
        d.eccUncorrectedErrors(),
        f.remappedRowsCorrectable() == null && f.remapPending() == null
            ? null
            : new GpuEntry.RemappedRows(
                f.remappedRowsCorrectable(), f.remappedRowsUncorrectable(), f.remapPending(), f.remapFailed()),
        f.retiredPagesSingleBit() == null && f.retiredPagesPending() == null
            ? null
            : new GpuEntry.RetiredPages(f.retiredPagesSingleBit(), f.retiredPagesDoubleBit(), f.retiredPagesPending()),
        f.pcieReplays(),
        f.nvlinks(),
        events);
  }
}
