package dev.gputop.nvml;

import dev.gputop.receiver.GpuReport;
import java.util.List;

/**
 * One GPU or MIG instance in the snapshot's {@code gpus[]} (docs/json-schema.md) and in {@code gpus
 * --json}. The first eleven fields are the contract; the rest add detail. N/A is null. The agent
 * reads it as a {@link GpuReport} (its key and charted values are fields here). Immutable.
 *
 * @param index NVML index (the parent's for a MIG instance)
 * @param uuid GPU or MIG UUID
 * @param name product name
 * @param pciBusId PCI bus id
 * @param state {@code ok} or {@code failed}
 * @param utilization fraction of time a kernel ran, 0-1
 * @param memoryUsedBytes memory used as nvidia-smi shows it (NVML memory v2 {@code used})
 * @param memoryTotalBytes total memory
 * @param powerWatts power draw
 * @param temperatureCelsius GPU temperature
 * @param processes compute processes on this GPU (on a MIG-enabled GPU they are listed under its
 *     instances)
 * @param parentUuid for a MIG instance, its GPU's UUID
 * @param migIndex for a MIG instance, its index on the GPU
 * @param error why the GPU failed
 * @param memoryControllerUtilization fraction of time memory was read or written, 0-1
 * @param energyJoules energy since the driver was loaded
 * @param fanSpeedRatio fan speed, 0-1 (may exceed 1)
 * @param clocksMhz current clocks
 * @param throttleReasons active clock event reasons ({@link ThrottleReason#attributeValue()})
 * @param eccCorrectedErrors corrected ECC errors since the driver was loaded
 * @param eccUncorrectedErrors uncorrected ECC errors since the driver was loaded
 * @param remappedRows row remapping (Ampere and later), or null where not reported
 * @param retiredPages page retirement (before Ampere), or null where not reported
 * @param pcieReplays PCIe replays since the driver was loaded
 * @param nvlinks NVLink links with their state and error counters (empty without NVLink)
 * @param xidEvents the last Xid events of this GPU (at most 16), oldest first
 */
public record GpuEntry(
    int index,
    String uuid,
    String name,
    String pciBusId,
    String state,
    Double utilization,
    Long memoryUsedBytes,
    Long memoryTotalBytes,
    Double powerWatts,
    Integer temperatureCelsius,
    List<GpuProcessEntry> processes,
    String parentUuid,
    Integer migIndex,
    String error,
    Double memoryControllerUtilization,
    Double energyJoules,
    Double fanSpeedRatio,
    Clocks clocksMhz,
    List<String> throttleReasons,
    Long eccCorrectedErrors,
    Long eccUncorrectedErrors,
    RemappedRows remappedRows,
    RetiredPages retiredPages,
    Long pcieReplays,
    List<GpuFaults.NvLink> nvlinks,
    List<Xid> xidEvents) implements GpuReport {

  public GpuEntry {
    processes = List.copyOf(processes);
    throttleReasons = throttleReasons == null ? null : List.copyOf(throttleReasons);
    nvlinks = nvlinks == null ? List.of() : List.copyOf(nvlinks);
    xidEvents = xidEvents == null ? List.of() : List.copyOf(xidEvents);
  }

  /** Rows remapped after correctable / uncorrectable errors, and whether a remap is pending or failed. */
  public record RemappedRows(Long correctable, Long uncorrectable, Boolean pending, Boolean failed) {}

  /** Pages retired after multiple single-bit / a double-bit ECC error, and whether one is pending. */
  public record RetiredPages(Long singleBit, Long doubleBit, Boolean pending) {}

  /**
   * One Xid event as received.
   *
   * @param xid the Xid code
   * @param time when the agent received it (ISO-8601)
   * @param critical whether it is one the {@code gpu_xid} alert fires for
   * @param description what a critical code means; null for the others
   */
  public record Xid(long xid, String time, boolean critical, String description) {}

  /** Current clocks in MHz; a clock the GPU doesn't report is null. */
  public record Clocks(Integer graphics, Integer sm, Integer memory, Integer video) {}
}
