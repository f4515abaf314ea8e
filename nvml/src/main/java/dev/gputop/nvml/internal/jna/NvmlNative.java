package dev.gputop.nvml.internal.jna;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * The loaded libnvidia-ml (or nvml.dll) with every {@link Symbol} resolved once at load time: each
 * symbol to the first of its candidate names that the library exports, or to nothing. Calls to a
 * symbol the library lacks return {@link NvmlReturn#ERROR_FUNCTION_NOT_FOUND} instead of
 * throwing, so callers treat an old driver like an unsupported field.
 *
 * <p>A thin typed binding, the way OSHI binds native libraries: one method per nvml.h function with
 * the header's parameter types (a {@link DeviceHandle} for {@code nvmlDevice_t}, the structures of
 * {@link NvmlStructs}, JNA references for scalar out-parameters), no logic beyond the call. What to
 * do with a return code is the sampler's business ({@code dev.gputop.nvml.Nvml}).
 *
 * <p>Functions are looked up by name with {@link NativeLibrary#getFunction} rather than through an
 * interface or direct mapping: direct mapping fails as a whole when one optional symbol is missing,
 * and explicit lookup makes the versioned names visible (NVML.md section 2).
 *
 * <p>Thread-safety: immutable after {@link #load}; NVML itself is thread-safe, and so are these
 * calls as long as callers do not share out-parameters.
 */
public final class NvmlNative {

  private final NativeLibrary library;
  private final String libraryName;
  private final Function[] functions = new Function[Symbol.values().length];
  private final String[] resolved = new String[Symbol.values().length];

  private NvmlNative(NativeLibrary library, String libraryName) {
    this.library = library;
    this.libraryName = libraryName;
    for (Symbol symbol : Symbol.values()) {
      for (String candidate : symbol.candidates()) {
        try {
          functions[symbol.ordinal()] = library.getFunction(candidate);
          resolved[symbol.ordinal()] = candidate;
          break;
        } catch (UnsatisfiedLinkError missing) {
          // Try the next, older name.
        }
      }
    }
  }

  /**
   * Loads the library: {@code nameOrPath} when given, else the platform's default names in turn.
   *
   * @throws UnsatisfiedLinkError when no candidate can be loaded; the message lists what was tried
   */
  public static NvmlNative load(String nameOrPath) {
    List<String> candidates =
        nameOrPath == null || nameOrPath.isBlank() ? defaultLibraryNames() : List.of(nameOrPath);
    List<String> failures = new ArrayList<>();
    for (String candidate : candidates) {
      try {
        return new NvmlNative(NativeLibrary.getInstance(candidate), candidate);
      } catch (UnsatisfiedLinkError e) {
        failures.add(candidate + ": " + firstLine(e.getMessage()));
      }
    }
    throw new UnsatisfiedLinkError("cannot load NVML (" + String.join("; ", failures) + ")");
  }

  /**
   * The names tried when {@code nvml.library} is not set: {@code libnvidia-ml.so.1} on Linux (the
   * unversioned name exists only with development packages), {@code nvml.dll} from the DLL search
   * path, System32, then the NVSMI folder of older Windows drivers.
   */
  public static List<String> defaultLibraryNames() {
    if (Platform.isWindows()) {
      String root = System.getenv().getOrDefault("SystemRoot", "C:\\Windows");
      String programFiles = System.getenv().getOrDefault("ProgramFiles", "C:\\Program Files");
      return List.of(
          "nvml",
          root + "\\System32\\nvml.dll",
          programFiles + "\\NVIDIA Corporation\\NVSMI\\nvml.dll");
    }
    return List.of("libnvidia-ml.so.1");
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "not found";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  /** Whether the library exports one of the symbol's names. */
  public boolean has(Symbol symbol) {
    return functions[symbol.ordinal()] != null;
  }

  /** The name the symbol resolved to, or null when the library has none of its names. */
  public String resolvedName(Symbol symbol) {
    return resolved[symbol.ordinal()];
  }

  /** The file that was loaded, or the name given when JNA can't tell. */
  public String libraryFile() {
    File file = library.getFile();
    return file == null ? libraryName : file.getPath();
  }

  /**
   * Calls the function; returns its {@code nvmlReturn_t}, or {@link
   * NvmlReturn#ERROR_FUNCTION_NOT_FOUND}'s code when the library lacks it.
   */
  private int invoke(Symbol symbol, Object... args) {
    Function f = functions[symbol.ordinal()];
    if (f == null) {
      return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
    }
    return f.invokeInt(args);
  }

  // ---- the typed calls: one method per nvml.h function, its prototype in the types of the header ----
  // Each returns the nvmlReturn_t; out-parameters are JNA references, byte buffers or the
  // structures of NvmlStructs, which JNA writes before and reads back after the call.

  /** {@code nvmlInit_v2(void)}. */
  public int init() {
    return invoke(Symbol.INIT);
  }

  /** {@code nvmlShutdown(void)}. */
  public int shutdown() {
    return invoke(Symbol.SHUTDOWN);
  }

  /** {@code nvmlSystemGetDriverVersion(char *version, unsigned int length)}. */
  public int systemDriverVersion(byte[] version) {
    return invoke(Symbol.SYSTEM_DRIVER_VERSION, version, version.length);
  }

  /** {@code nvmlDeviceGetCount_v2(unsigned int *deviceCount)}. */
  public int deviceCount(IntByReference count) {
    return invoke(Symbol.DEVICE_COUNT, count);
  }

  /** {@code nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)}. */
  public int handleByIndex(int index, DeviceHandle.Out device) {
    return invoke(Symbol.HANDLE_BY_INDEX, index, device);
  }

  /** {@code nvmlDeviceGetName(nvmlDevice_t, char *name, unsigned int length)}. */
  public int name(DeviceHandle device, byte[] name) {
    return invoke(Symbol.NAME, device.pointer(), name, name.length);
  }

  /** {@code nvmlDeviceGetUUID(nvmlDevice_t, char *uuid, unsigned int length)}. */
  public int uuid(DeviceHandle device, byte[] uuid) {
    return invoke(Symbol.UUID, device.pointer(), uuid, uuid.length);
  }

  /** {@code nvmlDeviceGetPciInfo_v3(nvmlDevice_t, nvmlPciInfo_t *pci)}. */
  public int pciInfo(DeviceHandle device, NvmlStructs.PciInfo pci) {
    return invoke(Symbol.PCI_INFO, device.pointer(), pci);
  }

  /** {@code nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t, nvmlMemory_v2_t *memory)}; sets the version field. */
  public int memoryInfoV2(DeviceHandle device, NvmlStructs.MemoryV2 memory) {
    memory.version = Layouts.MEMORY_V2_VERSION;
    return invoke(Symbol.MEMORY_INFO_V2, device.pointer(), memory);
  }

  /** {@code nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t *memory)}. */
  public int memoryInfo(DeviceHandle device, NvmlStructs.Memory memory) {
    return invoke(Symbol.MEMORY_INFO, device.pointer(), memory);
  }

  /** {@code nvmlDeviceGetUtilizationRates(nvmlDevice_t, nvmlUtilization_t *utilization)}. */
  public int utilizationRates(DeviceHandle device, NvmlStructs.Utilization utilization) {
    return invoke(Symbol.UTILIZATION_RATES, device.pointer(), utilization);
  }

  /** {@code nvmlDeviceGetTemperatureV(nvmlDevice_t, nvmlTemperature_t *temperature)}; sets version and sensor. */
  public int temperatureV(DeviceHandle device, int sensorType, NvmlStructs.Temperature temperature) {
    temperature.version = Layouts.TEMPERATURE_V1_VERSION;
    temperature.sensorType = sensorType;
    temperature.temperature = 0;
    return invoke(Symbol.TEMPERATURE_V, device.pointer(), temperature);
  }

  /** {@code nvmlDeviceGetTemperature(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int *temp)}. */
  public int temperature(DeviceHandle device, int sensorType, IntByReference celsius) {
    return invoke(Symbol.TEMPERATURE, device.pointer(), sensorType, celsius);
  }

  /** {@code nvmlDeviceGetPowerUsage(nvmlDevice_t, unsigned int *power)}: milliwatts. */
  public int powerUsage(DeviceHandle device, IntByReference milliwatts) {
    return invoke(Symbol.POWER_USAGE, device.pointer(), milliwatts);
  }

  /** {@code nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t, unsigned long long *energy)}: millijoules. */
  public int totalEnergyConsumption(DeviceHandle device, LongByReference millijoules) {
    return invoke(Symbol.TOTAL_ENERGY_CONSUMPTION, device.pointer(), millijoules);
  }

  /** {@code nvmlDeviceGetClockInfo(nvmlDevice_t, nvmlClockType_t, unsigned int *clock)}: MHz. */
  public int clockInfo(DeviceHandle device, int clockType, IntByReference mhz) {
    return invoke(Symbol.CLOCK_INFO, device.pointer(), clockType, mhz);
  }

  /** {@code nvmlDeviceGetFanSpeed(nvmlDevice_t, unsigned int *speed)}: percent. */
  public int fanSpeed(DeviceHandle device, IntByReference percent) {
    return invoke(Symbol.FAN_SPEED, device.pointer(), percent);
  }

  /** {@code nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t, unsigned long long *reasons)}. */
  public int clockEventReasons(DeviceHandle device, LongByReference reasons) {
    return invoke(Symbol.CLOCK_EVENT_REASONS, device.pointer(), reasons);
  }

  /**
   * {@code nvmlDeviceGetTotalEccErrors(nvmlDevice_t, nvmlMemoryErrorType_t, nvmlEccCounterType_t,
   * unsigned long long *eccCounts)}.
   */
  public int totalEccErrors(DeviceHandle device, int errorType, int counterType, LongByReference count) {
    return invoke(Symbol.TOTAL_ECC_ERRORS, device.pointer(), errorType, counterType, count);
  }

  /**
   * {@code nvmlDeviceGetFieldValues(nvmlDevice_t, int valuesCount, nvmlFieldValue_t *values)}; the
   * array must come from {@link com.sun.jna.Structure#toArray} (contiguous).
   */
  public int fieldValues(DeviceHandle device, NvmlStructs.FieldValue[] values) {
    return invoke(Symbol.FIELD_VALUES, device.pointer(), values.length, values);
  }

  /**
   * {@code nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t, unsigned int *infoCount, ...
   * *infos)}. The entries are raw memory: their size depends on the driver, not on the symbol
   * (NVML.md section 7), so the caller decodes them with {@link Layouts} at the stride it chose.
   */
  public int computeRunningProcesses(DeviceHandle device, IntByReference count, Memory infos) {
    return invoke(Symbol.COMPUTE_RUNNING_PROCESSES, device.pointer(), count, infos);
  }

  /**
   * {@code nvmlDeviceGetProcessUtilization(nvmlDevice_t, nvmlProcessUtilizationSample_t *utilization,
   * unsigned int *processSamplesCount, unsigned long long lastSeenTimeStamp)}; raw memory of
   * {@link Layouts#PROCESS_SAMPLE_SIZE}-byte entries, decoded only up to the count NVML returns.
   */
  public int processUtilization(DeviceHandle device, Memory samples, IntByReference count, long lastSeenTimestamp) {
    return invoke(Symbol.PROCESS_UTILIZATION, device.pointer(), samples, count, lastSeenTimestamp);
  }

  /** {@code nvmlDeviceGetMigMode(nvmlDevice_t, unsigned int *currentMode, unsigned int *pendingMode)}. */
  public int migMode(DeviceHandle device, IntByReference current, IntByReference pending) {
    return invoke(Symbol.MIG_MODE, device.pointer(), current, pending);
  }

  /** {@code nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t, unsigned int *count)}. */
  public int maxMigDeviceCount(DeviceHandle device, IntByReference count) {
    return invoke(Symbol.MAX_MIG_DEVICE_COUNT, device.pointer(), count);
  }

  /** {@code nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t, unsigned int index, nvmlDevice_t *migDevice)}. */
  public int migDeviceHandleByIndex(DeviceHandle device, int index, DeviceHandle.Out migDevice) {
    return invoke(Symbol.MIG_DEVICE_HANDLE_BY_INDEX, device.pointer(), index, migDevice);
  }

  /**
   * {@code nvmlDeviceGetRemappedRows(nvmlDevice_t, unsigned int *corrRows, unsigned int *uncRows,
   * unsigned int *isPending, unsigned int *failureOccurred)}: Ampere and later.
   */
  public int remappedRows(
      DeviceHandle device, IntByReference correctable, IntByReference uncorrectable,
      IntByReference pending, IntByReference failed) {
    return invoke(Symbol.REMAPPED_ROWS, device.pointer(), correctable, uncorrectable, pending, failed);
  }

  /**
   * {@code nvmlDeviceGetRetiredPages_v2(nvmlDevice_t, nvmlPageRetirementCause_t, unsigned int
   * *pageCount, unsigned long long *addresses, unsigned long long *timestamps)} called to count
   * only: {@code *pageCount = 0} and no buffers, so NVML answers SUCCESS with 0 pages or
   * INSUFFICIENT_SIZE with the count (v1 takes no timestamps; the extra NULL is ignored).
   */
  public int retiredPageCount(DeviceHandle device, int cause, IntByReference pageCount) {
    pageCount.setValue(0);
    return invoke(Symbol.RETIRED_PAGES, device.pointer(), cause, pageCount, null, null);
  }

  /** {@code nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t, nvmlEnableState_t *isPending)}. */
  public int retiredPagesPending(DeviceHandle device, IntByReference pending) {
    return invoke(Symbol.RETIRED_PAGES_PENDING, device.pointer(), pending);
  }

  /** {@code nvmlDeviceGetPcieReplayCounter(nvmlDevice_t, unsigned int *value)}. */
  public int pcieReplayCounter(DeviceHandle device, IntByReference value) {
    return invoke(Symbol.PCIE_REPLAY_COUNTER, device.pointer(), value);
  }

  /** {@code nvmlDeviceGetNvLinkState(nvmlDevice_t, unsigned int link, nvmlEnableState_t *isActive)}. */
  public int nvLinkState(DeviceHandle device, int link, IntByReference active) {
    return invoke(Symbol.NVLINK_STATE, device.pointer(), link, active);
  }

  /**
   * {@code nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t, unsigned int link,
   * nvmlNvLinkErrorCounter_t counter, unsigned long long *counterValue)}.
   */
  public int nvLinkErrorCounter(DeviceHandle device, int link, int counter, LongByReference value) {
    return invoke(Symbol.NVLINK_ERROR_COUNTER, device.pointer(), link, counter, value);
  }

  /** {@code nvmlEventSetCreate(nvmlEventSet_t *set)}. */
  public int eventSetCreate(EventSet.Out set) {
    return invoke(Symbol.EVENT_SET_CREATE, set);
  }

  /** {@code nvmlDeviceRegisterEvents(nvmlDevice_t, unsigned long long eventTypes, nvmlEventSet_t set)}. */
  public int registerEvents(DeviceHandle device, long eventTypes, EventSet set) {
    return invoke(Symbol.REGISTER_EVENTS, device.pointer(), eventTypes, set.pointer());
  }

  /**
   * {@code nvmlEventSetWait_v2(nvmlEventSet_t, nvmlEventData_t *data, unsigned int timeoutms)}:
   * blocks up to the timeout; {@code NVML_ERROR_TIMEOUT} when nothing happened.
   */
  public int eventSetWait(EventSet set, NvmlStructs.EventData data, int timeoutMillis) {
    return invoke(Symbol.EVENT_SET_WAIT, set.pointer(), data, timeoutMillis);
  }

  /** {@code nvmlEventSetFree(nvmlEventSet_t set)}. */
  public int eventSetFree(EventSet set) {
    return invoke(Symbol.EVENT_SET_FREE, set.pointer());
  }
}
