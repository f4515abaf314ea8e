package dev.gputop.nvml.internal.jna;

/**
 * Sizes, offsets and constants of nvml.h that the sampler uses to read raw memory (cheaper than a
 * JNA {@link com.sun.jna.Structure} per call). Every offset here matches {@link NvmlStructs}, and a
 * test checks that.
 */
public final class Layouts {

  private Layouts() {}

  public static final int PCI_INFO_SIZE = 68;
  public static final int PCI_BUS_ID_LEGACY = 0;
  public static final int PCI_BUS_ID = 36;
  public static final int PCI_BUS_ID_LENGTH = 32;

  public static final int MEMORY_SIZE = 24;
  public static final int MEMORY_TOTAL = 0;
  public static final int MEMORY_FREE = 8;
  public static final int MEMORY_USED = 16;

  /** {@code NVML_STRUCT_VERSION(Memory, 2)} = sizeof(nvmlMemory_v2_t) | 2 << 24. */
  public static final int MEMORY_V2_VERSION = 0x02000028;
  public static final int MEMORY_V2_SIZE = 40;
  public static final int MEMORY_V2_TOTAL = 8;
  public static final int MEMORY_V2_RESERVED = 16;
  public static final int MEMORY_V2_FREE = 24;
  public static final int MEMORY_V2_USED = 32;

  public static final int UTILIZATION_GPU = 0;
  public static final int UTILIZATION_MEMORY = 4;

  /** {@code NVML_STRUCT_VERSION(Temperature, 1)}. */
  public static final int TEMPERATURE_V1_VERSION = 0x0100000C;
  public static final int TEMPERATURE_V1_SIZE = 12;
  public static final int TEMPERATURE_SENSOR = 4;
  public static final int TEMPERATURE_VALUE = 8;

  /** Process entries: pid at 0 and used memory at 8 in all three sizes. */
  public static final int PROCESS_PID = 0;
  public static final int PROCESS_USED_MEMORY = 8;
  public static final int PROCESS_GPU_INSTANCE_ID = 16;
  public static final int PROCESS_COMPUTE_INSTANCE_ID = 20;
  public static final int PROCESS_INFO_V1_SIZE = 16;
  public static final int PROCESS_INFO_V2_SIZE = 24;
  public static final int PROCESS_DETAIL_V1_SIZE = 32;

  public static final int PROCESS_SAMPLE_SIZE = 32;
  public static final int PROCESS_SAMPLE_PID = 0;
  public static final int PROCESS_SAMPLE_TIMESTAMP = 8;
  public static final int PROCESS_SAMPLE_SM = 16;
  public static final int PROCESS_SAMPLE_MEM = 20;

  public static final int FIELD_VALUE_SIZE = 40;
  public static final int FIELD_VALUE_ID = 0;
  public static final int FIELD_VALUE_SCOPE = 4;
  public static final int FIELD_VALUE_TYPE = 24;
  public static final int FIELD_VALUE_RETURN = 28;
  public static final int FIELD_VALUE_VALUE = 32;

  /** {@code NVML_DEVICE_NAME_V2_BUFFER_SIZE} and {@code NVML_DEVICE_UUID_V2_BUFFER_SIZE}. */
  public static final int NAME_BUFFER_SIZE = 96;
  public static final int UUID_BUFFER_SIZE = 96;
  public static final int DRIVER_VERSION_BUFFER_SIZE = 80;

  /** {@code NVML_VALUE_NOT_AVAILABLE} for unsigned long long: "the driver can't say" (WDDM). */
  public static final long VALUE_NOT_AVAILABLE = -1L;
  /** gpuInstanceId / computeInstanceId of a process not on a MIG instance. */
  public static final int NO_INSTANCE = 0xFFFFFFFF;

  public static final int CLOCK_GRAPHICS = 0;
  public static final int CLOCK_SM = 1;
  public static final int CLOCK_MEM = 2;
  public static final int CLOCK_VIDEO = 3;
  public static final int TEMPERATURE_GPU = 0;
  public static final int ECC_CORRECTED = 0;
  public static final int ECC_UNCORRECTED = 1;
  public static final int ECC_VOLATILE = 0;

  public static final int FI_PCIE_COUNT_TX_BYTES = 197;
  public static final int FI_PCIE_COUNT_RX_BYTES = 198;

  public static final int VALUE_TYPE_DOUBLE = 0;
  public static final int VALUE_TYPE_UINT = 1;
  public static final int VALUE_TYPE_ULONG = 2;
  public static final int VALUE_TYPE_ULONGLONG = 3;
  public static final int VALUE_TYPE_SLONGLONG = 4;
  public static final int VALUE_TYPE_SINT = 5;
  public static final int VALUE_TYPE_USHORT = 6;

  public static final int EVENT_DATA_SIZE = 32;
  public static final int EVENT_DATA_V1_SIZE = 24;
  /** {@code nvmlEventTypeXidCriticalError}. */
  public static final long EVENT_TYPE_XID_CRITICAL_ERROR = 0x8L;
  /** {@code NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS} and {@code _DOUBLE_BIT_ECC_ERROR}. */
  public static final int RETIREMENT_CAUSE_SINGLE_BIT = 0;
  public static final int RETIREMENT_CAUSE_DOUBLE_BIT = 1;
  /**
   * {@code NVML_NVLINK_MAX_LINKS} of the newest header (13.3: 36; 12.x: 18; 11.x: 12): links are
   * probed up to this many, stopping at the first the driver refuses.
   */
  public static final int NVLINK_MAX_LINKS = 36;
  /** {@code nvmlNvLinkErrorCounter_t}: DL_REPLAY, DL_RECOVERY, DL_CRC_FLIT, DL_CRC_DATA. */
  public static final int NVLINK_ERROR_DL_REPLAY = 0;
  public static final int NVLINK_ERROR_DL_RECOVERY = 1;
  public static final int NVLINK_ERROR_DL_CRC_FLIT = 2;
  public static final int NVLINK_ERROR_DL_CRC_DATA = 3;
  /** {@code nvmlEventSetWait} timeout in milliseconds the event thread uses: short, so close() is prompt. */
  public static final int EVENT_WAIT_MILLIS = 1000;
}
