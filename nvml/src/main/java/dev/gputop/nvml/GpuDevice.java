package dev.gputop.nvml;

import java.util.Objects;

/**
 * One GPU, or one MIG instance, as read in one sample. Values NVML can't give for this device
 * (not supported, not permitted, or failed this time) are null, never 0. Immutable.
 *
 * @param index NVML index of the GPU (of the parent GPU for a MIG instance)
 * @param uuid {@code GPU-...} or {@code MIG-...}; null only for a GPU that was lost before its UUID
 *     could be read
 * @param name product name, e.g. {@code NVIDIA H100 80GB HBM3}
 * @param pciBusId e.g. {@code 00000000:3B:00.0} (a MIG instance has its parent's)
 * @param parentUuid for a MIG instance, its GPU's UUID; null for a GPU
 * @param migIndex for a MIG instance, its index on the parent; null for a GPU
 * @param state ok or failed
 * @param error why the device failed, or null
 * @param utilization fraction of time a kernel ran, 0-1
 * @param memoryControllerUtilization fraction of time memory was read or written, 0-1
 * @param memoryUsedBytes memory used (NVML memory v2 {@code used}, as nvidia-smi shows it; v1
 *     {@code used}, which includes the driver-reserved part, on drivers without v2)
 * @param memoryTotalBytes total memory
 * @param powerWatts power draw
 * @param energyJoules energy since the driver was loaded
 * @param temperatureCelsius GPU die temperature
 * @param fanSpeedRatio fan speed as a fraction of the maximum (may exceed 1)
 * @param graphicsClockMhz current graphics clock
 * @param smClockMhz current SM clock
 * @param memoryClockMhz current memory clock
 * @param videoClockMhz current video clock
 * @param throttleReasons bitmask of active clock event (throttle) reasons, see {@link
 *     ThrottleReason}
 * @param eccCorrectedErrors corrected ECC errors since the driver was loaded
 * @param eccUncorrectedErrors uncorrected ECC errors since the driver was loaded
 * @param pcieTransmitBytes PCIe bytes sent (a driver counter that may wrap)
 * @param pcieReceiveBytes PCIe bytes received (a driver counter that may wrap)
 * @param faults memory retirement, PCIe replays and NVLink ({@link GpuFaults#NONE} when none is
 *     reported)
 */
record GpuDevice(
    int index,
    String uuid,
    String name,
    String pciBusId,
    String parentUuid,
    Integer migIndex,
    GpuState state,
    String error,
    Double utilization,
    Double memoryControllerUtilization,
    Long memoryUsedBytes,
    Long memoryTotalBytes,
    Double powerWatts,
    Double energyJoules,
    Integer temperatureCelsius,
    Double fanSpeedRatio,
    Integer graphicsClockMhz,
    Integer smClockMhz,
    Integer memoryClockMhz,
    Integer videoClockMhz,
    Long throttleReasons,
    Long eccCorrectedErrors,
    Long eccUncorrectedErrors,
    Long pcieTransmitBytes,
    Long pcieReceiveBytes,
    GpuFaults faults) {

  public GpuDevice {
    Objects.requireNonNull(state, "state");
    faults = faults == null ? GpuFaults.NONE : faults;
  }

  /** Whether this is a MIG instance rather than a whole GPU. */
  public boolean isMig() {
    return parentUuid != null;
  }

  /**
   * A stable identifier for metrics ({@code hw.id}): the UUID, or for a GPU lost before its UUID
   * was read, its PCI bus id or index.
   */
  public String id() {
    if (uuid != null) {
      return uuid;
    }
    return pciBusId != null ? "pci-" + pciBusId : "gpu-index-" + index;
  }
}
