package dev.gputop.nvml.internal.jna;

import java.util.List;

/**
 * The NVML functions the agent calls, each with the symbol names to look for in preference order:
 * the versioned name that nvml.h's macros select first ({@code _v3}, {@code _v2}), then the older
 * names for drivers that lack it. A JNA binding resolves names itself, so it must ask for the
 * versioned symbols explicitly (NVML.md section 2).
 */
public enum Symbol {
  INIT("nvmlInit_v2", "nvmlInit"),
  SHUTDOWN("nvmlShutdown"),
  SYSTEM_DRIVER_VERSION("nvmlSystemGetDriverVersion"),
  DEVICE_COUNT("nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"),
  HANDLE_BY_INDEX("nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"),
  NAME("nvmlDeviceGetName"),
  UUID("nvmlDeviceGetUUID"),
  PCI_INFO("nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"),
  MEMORY_INFO_V2("nvmlDeviceGetMemoryInfo_v2"),
  MEMORY_INFO("nvmlDeviceGetMemoryInfo"),
  UTILIZATION_RATES("nvmlDeviceGetUtilizationRates"),
  TEMPERATURE_V("nvmlDeviceGetTemperatureV"),
  TEMPERATURE("nvmlDeviceGetTemperature"),
  POWER_USAGE("nvmlDeviceGetPowerUsage"),
  TOTAL_ENERGY_CONSUMPTION("nvmlDeviceGetTotalEnergyConsumption"),
  CLOCK_INFO("nvmlDeviceGetClockInfo"),
  FAN_SPEED("nvmlDeviceGetFanSpeed"),
  CLOCK_EVENT_REASONS(
      "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"),
  TOTAL_ECC_ERRORS("nvmlDeviceGetTotalEccErrors"),
  FIELD_VALUES("nvmlDeviceGetFieldValues"),
  COMPUTE_RUNNING_PROCESSES(
      "nvmlDeviceGetComputeRunningProcesses_v3",
      "nvmlDeviceGetComputeRunningProcesses_v2",
      "nvmlDeviceGetComputeRunningProcesses"),
  PROCESS_UTILIZATION("nvmlDeviceGetProcessUtilization"),
  MIG_MODE("nvmlDeviceGetMigMode"),
  MAX_MIG_DEVICE_COUNT("nvmlDeviceGetMaxMigDeviceCount"),
  MIG_DEVICE_HANDLE_BY_INDEX("nvmlDeviceGetMigDeviceHandleByIndex"),
  REMAPPED_ROWS("nvmlDeviceGetRemappedRows"),
  RETIRED_PAGES("nvmlDeviceGetRetiredPages_v2", "nvmlDeviceGetRetiredPages"),
  RETIRED_PAGES_PENDING("nvmlDeviceGetRetiredPagesPendingStatus"),
  PCIE_REPLAY_COUNTER("nvmlDeviceGetPcieReplayCounter"),
  NVLINK_STATE("nvmlDeviceGetNvLinkState"),
  NVLINK_ERROR_COUNTER("nvmlDeviceGetNvLinkErrorCounter"),
  EVENT_SET_CREATE("nvmlEventSetCreate"),
  REGISTER_EVENTS("nvmlDeviceRegisterEvents"),
  /** {@code _v2} (R450+) fills the 32-byte {@code nvmlEventData_t}; v1 only its first 24 bytes. */
  EVENT_SET_WAIT("nvmlEventSetWait_v2", "nvmlEventSetWait"),
  EVENT_SET_FREE("nvmlEventSetFree"),
  /** Only probed: with {@link #RUNNING_PROCESS_DETAIL_LIST} it tells the R535-early driver apart. */
  CONF_COMPUTE_MEM_SIZE_INFO("nvmlDeviceGetConfComputeMemSizeInfo"),
  /** Only probed: drivers that have it use 24-byte entries in {@code _v3}. */
  RUNNING_PROCESS_DETAIL_LIST("nvmlDeviceGetRunningProcessDetailList");

  private final List<String> candidates;

  Symbol(String... candidates) {
    this.candidates = List.of(candidates);
  }

  /** Symbol names to try, preferred first. */
  public List<String> candidates() {
    return candidates;
  }
}
