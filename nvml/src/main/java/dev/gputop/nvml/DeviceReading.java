package dev.gputop.nvml;

/** The values of one device read during one sample, before they become a {@link GpuDevice}. Not thread-safe. */
final class DeviceReading {
  Double utilization;
  Double memoryControllerUtilization;
  Long memoryUsedBytes;
  Long memoryTotalBytes;
  Double powerWatts;
  Double energyJoules;
  Integer temperatureCelsius;
  Double fanSpeedRatio;
  Integer graphicsClockMhz;
  Integer smClockMhz;
  Integer memoryClockMhz;
  Integer videoClockMhz;
  Long throttleReasons;
  Long eccCorrectedErrors;
  Long eccUncorrectedErrors;
  Long pcieTransmitBytes;
  Long pcieReceiveBytes;
  GpuFaults faults = GpuFaults.NONE;

  GpuDevice toDevice(DeviceState d) {
    return new GpuDevice(
        d.index,
        d.uuid,
        d.name,
        d.pciBusId,
        d.parentUuid,
        d.migIndex,
        GpuState.OK,
        null,
        utilization,
        memoryControllerUtilization,
        memoryUsedBytes,
        memoryTotalBytes,
        powerWatts,
        energyJoules,
        temperatureCelsius,
        fanSpeedRatio,
        graphicsClockMhz,
        smClockMhz,
        memoryClockMhz,
        videoClockMhz,
        throttleReasons,
        eccCorrectedErrors,
        eccUncorrectedErrors,
        pcieTransmitBytes,
        pcieReceiveBytes,
        faults);
  }
}
