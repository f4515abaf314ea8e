package dev.gputop.nvml;

import dev.gputop.nvml.internal.jna.DeviceHandle;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@link Nvml} remembers about one GPU or MIG instance between samples, keyed by UUID (by PCI
 * bus id or index only for a GPU lost before its UUID was read): its identity, the fields it does
 * not support, whether it failed, and the last process-utilization timestamp. The NVML handle is
 * kept only as the way to reach the device inside the current init scope, never as its identity.
 * Not thread-safe: used under {@link Nvml}'s lock.
 */
final class DeviceState {

  /** The values read per device; a field NVML reports as unsupported is not asked again. */
  enum Field {
    MEMORY_V2,
    MEMORY,
    UTILIZATION,
    POWER,
    ENERGY,
    TEMPERATURE_V,
    TEMPERATURE,
    FAN,
    CLOCK_GRAPHICS,
    CLOCK_SM,
    CLOCK_MEMORY,
    CLOCK_VIDEO,
    THROTTLE,
    ECC_CORRECTED,
    ECC_UNCORRECTED,
    PCIE,
    MIG_MODE,
    PROCESSES,
    PROCESS_UTILIZATION,
    REMAPPED_ROWS,
    RETIRED_PAGES,
    RETIRED_PAGES_PENDING,
    PCIE_REPLAY,
    NVLINK,
    NVLINK_REPLAY,
    NVLINK_RECOVERY,
    NVLINK_CRC_FLIT,
    NVLINK_CRC_DATA,
    XID_EVENTS
  }

  final String key;
  final String uuid;
  final String parentUuid;
  final Integer migIndex;
  int index;
  String name;
  String pciBusId;
  DeviceHandle handle;
  final EnumSet<Field> unsupported = EnumSet.noneOf(Field.class);
  /** field:code pairs already logged at WARNING, so repeated failures log once. */
  final Set<String> reported = new HashSet<>();
  boolean failed;
  String error;
  long lastSeenTimestamp;
  /** NVLink links found at the first probe (-1: not probed yet). */
  int nvlinkCount = -1;
  /** Whether the GPU is registered for Xid events in the session's event set. */
  boolean xidRegistered;
  List<DeviceState> migChildren = List.of();

  DeviceState(String key, String uuid, String parentUuid, Integer migIndex) {
    this.key = key;
    this.uuid = uuid;
    this.parentUuid = parentUuid;
    this.migIndex = migIndex;
  }

  boolean supports(Field field) {
    return !unsupported.contains(field);
  }

  void fail(String reason) {
    failed = true;
    error = reason;
    handle = null;
    for (DeviceState child : migChildren) {
      child.fail("parent GPU failed: " + reason);
    }
  }

  /** The device as a failed sample: identity kept, every reading null. */
  GpuDevice failedDevice() {
    return new GpuDevice(
        index, uuid, name, pciBusId, parentUuid, migIndex, GpuState.FAILED, error, null, null, null,
        null, null, null, null, null, null, null, null, null, null, null, null, null, null,
        GpuFaults.NONE);
  }

  String label() {
    return (parentUuid == null ? "GPU " + index : "GPU " + index + " MIG " + migIndex)
        + " (" + (uuid != null ? uuid : key) + ")";
  }
}
