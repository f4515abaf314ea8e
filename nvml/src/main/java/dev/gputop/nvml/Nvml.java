package dev.gputop.nvml;

import static dev.gputop.nvml.jna.NvmlReturn.ERROR_ARGUMENT_VERSION_MISMATCH;
import static dev.gputop.nvml.jna.NvmlReturn.ERROR_FUNCTION_NOT_FOUND;
import static dev.gputop.nvml.jna.NvmlReturn.ERROR_GPU_IS_LOST;
import static dev.gputop.nvml.jna.NvmlReturn.ERROR_INSUFFICIENT_SIZE;
import static dev.gputop.nvml.jna.NvmlReturn.ERROR_NOT_FOUND;
import static dev.gputop.nvml.jna.NvmlReturn.ERROR_NOT_SUPPORTED;
import static dev.gputop.nvml.jna.NvmlReturn.ERROR_NO_PERMISSION;

import com.sun.jna.Memory;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import dev.gputop.nvml.DeviceState.Field;
import dev.gputop.nvml.jna.Layouts;
import dev.gputop.nvml.jna.NvmlNative;
import dev.gputop.nvml.jna.NvmlReturn;
import dev.gputop.nvml.jna.Symbol;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One NVML session: {@link #open} loads libnvidia-ml and calls {@code nvmlInit_v2}, {@link
 * #sample()} reads every GPU, MIG instance and compute process, and {@link #close()} calls {@code
 * nvmlShutdown} exactly once. The NVML receiver keeps one open for its lifetime; the {@code gpus}
 * and {@code discover} commands open one, sample once and close it.
 *
 * <pre>{@code
 * try (Nvml nvml = Nvml.open(null)) {        // null: libnvidia-ml.so.1 / nvml.dll
 *   GpuSample sample = nvml.sample();
 *   sample.devices().forEach(d -> System.out.println(d.name() + " " + d.memoryUsedBytes()));
 * } catch (NvmlUnavailableException e) {
 *   System.err.println("NVML unavailable: " + e.getMessage());
 * }
 * }</pre>
 *
 * <p>What it handles (docs/nvml.md): versioned symbols called by name with fallbacks for old
 * drivers; the process-entry size (16, 24 or 32 bytes) chosen from the driver's symbols and checked
 * against what comes back; a field a device reports as unsupported is not asked again; a GPU that
 * falls off the bus is reported as failed from then on; devices are identified by UUID, never by
 * handle.
 *
 * <p>Thread-safety: {@link #sample()} and {@link #close()} are synchronized; one sample runs at a
 * time. A sample of 8 GPUs takes well under a millisecond against the fake library (see
 * docs/PERFORMANCE.md), but a real driver can block for about half a second while a sleeping GPU
 * wakes, so sample on a dedicated thread, never in a metrics callback.
 */
public final class Nvml implements AutoCloseable {

  private static final Logger logger = Logger.getLogger(Nvml.class.getName());

  private static final int OK = 0;
  private static final int MAX_PROCESSES = 16_384;
  private static final int MAX_MIG_DEVICES = 64;
  private static final int INITIAL_CAPACITY = 64;

  private final NvmlNative nv;
  private final String driverVersion;
  private final long pidMax;
  /** Out-parameters of single calls; every call uses it from offset 0. */
  private final Memory scratch = new Memory(256);
  private final Memory fieldValues = new Memory(2L * Layouts.FIELD_VALUE_SIZE);
  private Memory processBuffer;
  private int processCapacity;
  private Memory sampleBuffer;
  private int sampleCapacity;
  private int processStride;
  private boolean strideMismatchLogged;
  private final Map<String, DeviceState> states = new HashMap<>();
  private List<DeviceState> gpus = List.of();
  private int lastCount = -1;
  /** The return code of the last {@link #readString} call. */
  private int lastStringReturn;
  private boolean closed;

  private Nvml(NvmlNative nv) {
    this.nv = nv;
    this.driverVersion = readDriverVersion();
    this.pidMax = readPidMax();
    this.processStride = initialProcessStride(nv);
    allocateProcessBuffer(INITIAL_CAPACITY);
    allocateSampleBuffer(INITIAL_CAPACITY);
  }

  /**
   * Loads NVML and initializes it.
   *
   * @param libraryOrNull path or name of the library ({@code nvml.library}); null for the platform
   *     default
   * @throws NvmlUnavailableException when the library can't be loaded or initialized; the message
   *     says why and what to check
   */
  public static Nvml open(String libraryOrNull) throws NvmlUnavailableException {
    NvmlNative nv;
    try {
      nv = NvmlNative.load(libraryOrNull);
    } catch (UnsatisfiedLinkError e) {
      throw new NvmlUnavailableException(
          e.getMessage()
              + ". Is the NVIDIA driver installed? In a container, NVIDIA_DRIVER_CAPABILITIES must"
              + " include utility; or set nvml.library to the library's path.");
    }
    if (!nv.has(Symbol.INIT) || !nv.has(Symbol.SHUTDOWN) || !nv.has(Symbol.DEVICE_COUNT)) {
      throw new NvmlUnavailableException(
          nv.libraryFile() + " does not export nvmlInit/nvmlShutdown: not an NVML library");
    }
    int rc = nv.invoke(Symbol.INIT);
    if (rc != OK) {
      throw new NvmlUnavailableException(
          nv.resolvedName(Symbol.INIT) + " failed: " + NvmlReturn.describe(rc));
    }
    try {
      return new Nvml(nv);
    } catch (RuntimeException | Error e) {
      nv.invoke(Symbol.SHUTDOWN);
      throw e;
    }
  }

  /**
   * Opens NVML, samples once and closes it: the GPU processes for one-shot commands such as {@code
   * discover}. Never throws: when NVML is unavailable the source says so ({@link
   * GpuProcessSource#available()} false, with the reason).
   */
  public static GpuProcessSource sampleProcessesOnce(String libraryOrNull) {
    try (Nvml nvml = open(libraryOrNull)) {
      GpuSample sample = nvml.sample();
      if (sample.devices().isEmpty()) {
        return new FixedProcessSource(false, "NVML found no NVIDIA GPU", List.of());
      }
      return new FixedProcessSource(true, null, sample.processes());
    } catch (NvmlUnavailableException e) {
      return new FixedProcessSource(false, e.getMessage(), List.of());
    }
  }

  /** A process list read once. Immutable. */
  private record FixedProcessSource(boolean available, String unavailableReason, List<GpuProcess> gpuProcesses)
      implements GpuProcessSource {
    FixedProcessSource {
      gpuProcesses = List.copyOf(gpuProcesses);
    }
  }

  /** The driver version NVML reported at open, e.g. {@code 550.54.15}, or null. */
  public String driverVersion() {
    return driverVersion;
  }

  /** The library file that was loaded. */
  public String libraryFile() {
    return nv.libraryFile();
  }

  /**
   * The size of one process entry the agent currently reads: 16 (drivers without {@code _v2}), 24,
   * or 32 (R535.43-535.86); 0 when the driver has no process API.
   */
  public synchronized int processEntrySize() {
    return processStride;
  }

  /**
   * Reads every GPU and MIG instance, with its compute processes. Never throws for a device's
   * failure: a lost GPU comes back with state {@link GpuState#FAILED}, a value NVML can't give is
   * null.
   *
   * @throws IllegalStateException after {@link #close()}
   */
  public synchronized GpuSample sample() {
    if (closed) {
      throw new IllegalStateException("NVML session is closed");
    }
    int rc = nv.invoke(Symbol.DEVICE_COUNT, scratch);
    if (rc == OK) {
      int count = scratch.getInt(0);
      if (count != lastCount) {
        enumerate(count);
        lastCount = count;
      }
    } else {
      logger.log(
          lastCount < 0 ? Level.WARNING : Level.FINE,
          () -> "nvmlDeviceGetCount failed: " + NvmlReturn.describe(rc));
    }
    List<GpuDevice> devices = new ArrayList<>(gpus.size());
    List<GpuProcess> processes = new ArrayList<>();
    List<GpuProcessUtilization> utilizations = new ArrayList<>();
    for (DeviceState gpu : gpus) {
      sampleGpu(gpu, devices, processes, utilizations);
    }
    return new GpuSample(driverVersion, devices, processes, utilizations);
  }

  /** Calls {@code nvmlShutdown} once, pairing the {@code nvmlInit} of {@link #open}. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    int rc = nv.invoke(Symbol.SHUTDOWN);
    if (rc != OK) {
      logger.fine(() -> "nvmlShutdown: " + NvmlReturn.describe(rc));
    }
  }

  // ---- enumeration ----

  private void enumerate(int count) {
    List<DeviceState> found = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int rc = nv.invoke(Symbol.HANDLE_BY_INDEX, i, scratch);
      if (rc == ERROR_NO_PERMISSION.code()) {
        // GetCount_v2 counts GPUs this process may not open (a cgroup-restricted container).
        int index = i;
        logger.fine(() -> "GPU " + index + ": no permission, skipped");
        continue;
      }
      if (rc != OK) {
        DeviceState lost = states.computeIfAbsent("gpu-index-" + i, k -> new DeviceState(k, null, null, null));
        lost.index = i;
        if (!lost.failed) {
          lost.fail(nv.resolvedName(Symbol.HANDLE_BY_INDEX) + ": " + NvmlReturn.describe(rc));
          logger.warning("GPU " + i + " can't be opened: " + lost.error);
        }
        found.add(lost);
        continue;
      }
      found.add(identify(scratch.getPointer(0), i, null, null));
    }
    // A failed GPU keeps being reported even when the driver no longer lists it.
    for (DeviceState previous : gpus) {
      if (previous.failed && !found.contains(previous)) {
        found.add(previous);
      }
    }
    gpus = List.copyOf(found);
    logger.fine(() -> "NVML: " + count + " GPU(s)");
  }

  /** Reads the UUID of a handle and returns the device's state, created on first sight. */
  private DeviceState identify(Pointer handle, int index, DeviceState parent, Integer migIndex) {
    String uuid = readString(Symbol.UUID, handle, Layouts.UUID_BUFFER_SIZE);
    if (uuid == null) {
      int rc = lastStringReturn;
      // Without a UUID, the PCI bus id is the next stable identity; the index is the last resort.
      String busId = parent == null ? readBusId(handle) : null;
      String key =
          parent != null
              ? parent.key + "/mig-" + migIndex
              : busId != null ? "pci-" + busId : "gpu-index-" + index;
      DeviceState unknown =
          states.computeIfAbsent(
              key, k -> new DeviceState(k, null, parent == null ? null : parent.uuid, migIndex));
      unknown.index = index;
      if (unknown.pciBusId == null) {
        unknown.pciBusId = busId;
      }
      if (!unknown.failed) {
        unknown.fail("nvmlDeviceGetUUID: " + NvmlReturn.describe(rc));
        logger.warning(unknown.label() + " failed: " + unknown.error);
      }
      return unknown;
    }
    DeviceState d =
        states.computeIfAbsent(
            uuid, k -> new DeviceState(k, k, parent == null ? null : parent.uuid, migIndex));
    d.index = index;
    if (d.failed) {
      return d;
    }
    d.handle = handle;
    if (d.name == null) {
      d.name = readString(Symbol.NAME, handle, Layouts.NAME_BUFFER_SIZE);
      d.pciBusId = parent != null ? parent.pciBusId : readBusId(handle);
    }
    return d;
  }

  private String readBusId(Pointer handle) {
    Memory pci = new Memory(Layouts.PCI_INFO_SIZE);
    pci.clear();
    if (nv.invoke(Symbol.PCI_INFO, handle, pci) != OK) {
      return null;
    }
    String busId = pci.getString(Layouts.PCI_BUS_ID, StandardCharsets.US_ASCII.name());
    if (busId.isEmpty() || busId.length() > Layouts.PCI_BUS_ID_LENGTH) {
      // nvmlDeviceGetPciInfo (v1) fills only the 16-byte legacy form.
      busId = pci.getString(Layouts.PCI_BUS_ID_LEGACY, StandardCharsets.US_ASCII.name());
    }
    return busId.isEmpty() ? null : busId;
  }

  private String readString(Symbol symbol, Pointer handle, int size) {
    int rc = nv.invoke(symbol, handle, scratch, size);
    lastStringReturn = rc;
    if (rc != OK) {
      return null;
    }
    scratch.setByte(size - 1, (byte) 0);
    return scratch.getString(0, StandardCharsets.UTF_8.name());
  }

  // ---- sampling ----

  /** Thrown inside a device's sample when NVML says the GPU is lost; caught per device. */
  private static final class GpuLost extends RuntimeException {
    private static final long serialVersionUID = 1L;

    GpuLost(String message) {
      super(message, null, false, false);
    }
  }

  private void sampleGpu(
      DeviceState gpu,
      List<GpuDevice> devices,
      List<GpuProcess> processes,
      List<GpuProcessUtilization> utilizations) {
    if (gpu.failed) {
      addFailed(gpu, devices);
      return;
    }
    int processesBefore = processes.size();
    int utilizationsBefore = utilizations.size();
    try {
      DeviceReading r = new DeviceReading();
      readCommon(gpu, r);
      boolean mig = readMigMode(gpu);
      if (mig) {
        enumerateMig(gpu);
      } else {
        gpu.migChildren = List.of();
        readProcesses(gpu, r.memoryTotalBytes, processes);
        readProcessUtilization(gpu, processes, processesBefore, utilizations);
      }
      devices.add(r.toDevice(gpu));
    } catch (GpuLost e) {
      markLost(gpu, e);
      truncate(processes, processesBefore);
      truncate(utilizations, utilizationsBefore);
      addFailed(gpu, devices);
      return;
    }
    for (DeviceState instance : gpu.migChildren) {
      if (instance.failed) {
        devices.add(instance.failedDevice());
        continue;
      }
      int before = processes.size();
      try {
        DeviceReading r = new DeviceReading();
        readCommon(instance, r);
        readProcesses(instance, r.memoryTotalBytes, processes);
        devices.add(r.toDevice(instance));
      } catch (GpuLost e) {
        markLost(instance, e);
        truncate(processes, before);
        devices.add(instance.failedDevice());
      }
    }
  }

  private static void addFailed(DeviceState gpu, List<GpuDevice> devices) {
    devices.add(gpu.failedDevice());
    for (DeviceState instance : gpu.migChildren) {
      devices.add(instance.failedDevice());
    }
  }

  private static void truncate(List<?> list, int size) {
    while (list.size() > size) {
      list.remove(list.size() - 1);
    }
  }

  private void markLost(DeviceState d, GpuLost e) {
    d.fail(e.getMessage());
    logger.warning(d.label() + " failed and is reported as failed from now on: " + e.getMessage());
  }

  /** Whether rc is success; remembers unsupported fields, throws {@link GpuLost}, logs the rest once. */
  private boolean check(DeviceState d, Field field, Symbol symbol, int rc) {
    if (rc == OK) {
      return true;
    }
    if (rc == ERROR_NOT_SUPPORTED.code() || rc == ERROR_FUNCTION_NOT_FOUND.code()) {
      d.unsupported.add(field);
      logger.fine(() -> d.label() + ": " + field + " not supported (" + NvmlReturn.describe(rc) + ")");
      return false;
    }
    String call = nv.resolvedName(symbol);
    if (rc == ERROR_GPU_IS_LOST.code()) {
      throw new GpuLost(call + " returned " + NvmlReturn.describe(rc));
    }
    Level level = d.reported.add(field + ":" + rc) ? Level.WARNING : Level.FINE;
    logger.log(level, () -> d.label() + ": " + call + " failed: " + NvmlReturn.describe(rc));
    return false;
  }

  private Integer readUnsigned(DeviceState d, Field field, Symbol symbol, Object... args) {
    if (!d.supports(field)) {
      return null;
    }
    int rc = nv.invoke(symbol, args);
    return check(d, field, symbol, rc) ? scratch.getInt(0) : null;
  }

  private Long readLong(DeviceState d, Field field, Symbol symbol, Object... args) {
    if (!d.supports(field)) {
      return null;
    }
    int rc = nv.invoke(symbol, args);
    return check(d, field, symbol, rc) ? scratch.getLong(0) : null;
  }

  /** Everything but MIG and processes; on a MIG instance most of it is unsupported after the first sample. */
  private void readCommon(DeviceState d, DeviceReading r) {
    Pointer h = d.handle;
    readMemory(d, r);
    if (d.supports(Field.UTILIZATION)) {
      int rc = nv.invoke(Symbol.UTILIZATION_RATES, h, scratch);
      if (check(d, Field.UTILIZATION, Symbol.UTILIZATION_RATES, rc)) {
        r.utilization = percent(scratch.getInt(Layouts.UTILIZATION_GPU));
        r.memoryControllerUtilization = percent(scratch.getInt(Layouts.UTILIZATION_MEMORY));
      }
    }
    Integer milliwatts = readUnsigned(d, Field.POWER, Symbol.POWER_USAGE, h, scratch);
    r.powerWatts = milliwatts == null ? null : Integer.toUnsignedLong(milliwatts) / 1000.0;
    Long millijoules = readLong(d, Field.ENERGY, Symbol.TOTAL_ENERGY_CONSUMPTION, h, scratch);
    r.energyJoules = millijoules == null ? null : millijoules / 1000.0;
    r.temperatureCelsius = readTemperature(d);
    Integer fan = readUnsigned(d, Field.FAN, Symbol.FAN_SPEED, h, scratch);
    r.fanSpeedRatio = fan == null ? null : percent(fan);
    r.graphicsClockMhz = readUnsigned(d, Field.CLOCK_GRAPHICS, Symbol.CLOCK_INFO, h, Layouts.CLOCK_GRAPHICS, scratch);
    r.smClockMhz = readUnsigned(d, Field.CLOCK_SM, Symbol.CLOCK_INFO, h, Layouts.CLOCK_SM, scratch);
    r.memoryClockMhz = readUnsigned(d, Field.CLOCK_MEMORY, Symbol.CLOCK_INFO, h, Layouts.CLOCK_MEM, scratch);
    r.videoClockMhz = readUnsigned(d, Field.CLOCK_VIDEO, Symbol.CLOCK_INFO, h, Layouts.CLOCK_VIDEO, scratch);
    r.throttleReasons = readLong(d, Field.THROTTLE, Symbol.CLOCK_EVENT_REASONS, h, scratch);
    r.eccCorrectedErrors =
        readLong(d, Field.ECC_CORRECTED, Symbol.TOTAL_ECC_ERRORS, h, Layouts.ECC_CORRECTED, Layouts.ECC_VOLATILE, scratch);
    r.eccUncorrectedErrors =
        readLong(d, Field.ECC_UNCORRECTED, Symbol.TOTAL_ECC_ERRORS, h, Layouts.ECC_UNCORRECTED, Layouts.ECC_VOLATILE, scratch);
    readPcie(d, r);
  }

  private static Double percent(int value) {
    return Integer.toUnsignedLong(value) / 100.0;
  }

  private void readMemory(DeviceState d, DeviceReading r) {
    Pointer h = d.handle;
    if (d.supports(Field.MEMORY_V2)) {
      scratch.clear(Layouts.MEMORY_V2_SIZE);
      scratch.setInt(0, Layouts.MEMORY_V2_VERSION);
      int rc = nv.invoke(Symbol.MEMORY_INFO_V2, h, scratch);
      if (rc == ERROR_ARGUMENT_VERSION_MISMATCH.code()) {
        d.unsupported.add(Field.MEMORY_V2);
      } else if (check(d, Field.MEMORY_V2, Symbol.MEMORY_INFO_V2, rc)) {
        r.memoryTotalBytes = scratch.getLong(Layouts.MEMORY_V2_TOTAL);
        r.memoryUsedBytes = scratch.getLong(Layouts.MEMORY_V2_USED);
        return;
      }
      if (d.supports(Field.MEMORY_V2)) {
        return; // a transient failure: don't mix v1 numbers into the series
      }
    }
    if (d.supports(Field.MEMORY)) {
      int rc = nv.invoke(Symbol.MEMORY_INFO, h, scratch);
      if (check(d, Field.MEMORY, Symbol.MEMORY_INFO, rc)) {
        r.memoryTotalBytes = scratch.getLong(Layouts.MEMORY_TOTAL);
        r.memoryUsedBytes = scratch.getLong(Layouts.MEMORY_USED);
      }
    }
  }

  private Integer readTemperature(DeviceState d) {
    if (d.supports(Field.TEMPERATURE_V)) {
      scratch.setInt(0, Layouts.TEMPERATURE_V1_VERSION);
      scratch.setInt(Layouts.TEMPERATURE_SENSOR, Layouts.TEMPERATURE_GPU);
      scratch.setInt(Layouts.TEMPERATURE_VALUE, 0);
      int rc = nv.invoke(Symbol.TEMPERATURE_V, d.handle, scratch);
      if (rc == ERROR_ARGUMENT_VERSION_MISMATCH.code()) {
        d.unsupported.add(Field.TEMPERATURE_V);
      } else if (check(d, Field.TEMPERATURE_V, Symbol.TEMPERATURE_V, rc)) {
        return scratch.getInt(Layouts.TEMPERATURE_VALUE);
      } else if (d.supports(Field.TEMPERATURE_V)) {
        return null;
      }
    }
    return readUnsigned(d, Field.TEMPERATURE, Symbol.TEMPERATURE, d.handle, Layouts.TEMPERATURE_GPU, scratch);
  }

  private void readPcie(DeviceState d, DeviceReading r) {
    if (!d.supports(Field.PCIE)) {
      return;
    }
    fieldValues.clear();
    fieldValues.setInt(Layouts.FIELD_VALUE_ID, Layouts.FI_PCIE_COUNT_TX_BYTES);
    fieldValues.setInt(Layouts.FIELD_VALUE_SIZE + Layouts.FIELD_VALUE_ID, Layouts.FI_PCIE_COUNT_RX_BYTES);
    int rc = nv.invoke(Symbol.FIELD_VALUES, d.handle, 2, fieldValues);
    if (!check(d, Field.PCIE, Symbol.FIELD_VALUES, rc)) {
      return;
    }
    r.pcieTransmitBytes = fieldValue(0);
    r.pcieReceiveBytes = fieldValue(Layouts.FIELD_VALUE_SIZE);
    if (r.pcieTransmitBytes == null && r.pcieReceiveBytes == null) {
      int tx = fieldValues.getInt(Layouts.FIELD_VALUE_RETURN);
      if (tx == ERROR_NOT_SUPPORTED.code()) {
        d.unsupported.add(Field.PCIE);
      }
    }
  }

  /** Decodes one nvmlFieldValue_t by its value type; null when its own return code is an error. */
  private Long fieldValue(int offset) {
    if (fieldValues.getInt(offset + Layouts.FIELD_VALUE_RETURN) != OK) {
      return null;
    }
    long at = offset + Layouts.FIELD_VALUE_VALUE;
    switch (fieldValues.getInt(offset + Layouts.FIELD_VALUE_TYPE)) {
      case Layouts.VALUE_TYPE_DOUBLE:
        return (long) fieldValues.getDouble(at);
      case Layouts.VALUE_TYPE_UINT:
        return Integer.toUnsignedLong(fieldValues.getInt(at));
      case Layouts.VALUE_TYPE_ULONG:
        // unsigned long is 4 bytes on Windows (LLP64), 8 on Linux.
        return Platform.isWindows() ? Integer.toUnsignedLong(fieldValues.getInt(at)) : fieldValues.getLong(at);
      case Layouts.VALUE_TYPE_ULONGLONG:
      case Layouts.VALUE_TYPE_SLONGLONG:
        return fieldValues.getLong(at);
      case Layouts.VALUE_TYPE_SINT:
        return (long) fieldValues.getInt(at);
      case Layouts.VALUE_TYPE_USHORT:
        return (long) (fieldValues.getShort(at) & 0xFFFF);
      default:
        return null;
    }
  }

  // ---- MIG ----

  private boolean readMigMode(DeviceState gpu) {
    if (!gpu.supports(Field.MIG_MODE)) {
      return false;
    }
    int rc = nv.invoke(Symbol.MIG_MODE, gpu.handle, scratch, scratch.share(4));
    return check(gpu, Field.MIG_MODE, Symbol.MIG_MODE, rc) && scratch.getInt(0) == 1;
  }

  /** Lists the MIG instances of a GPU again on every sample: they can be reconfigured at run time. */
  private void enumerateMig(DeviceState gpu) {
    int rc = nv.invoke(Symbol.MAX_MIG_DEVICE_COUNT, gpu.handle, scratch);
    if (!check(gpu, Field.MIG_MODE, Symbol.MAX_MIG_DEVICE_COUNT, rc)) {
      gpu.migChildren = List.of();
      return;
    }
    int max = Math.min(scratch.getInt(0), MAX_MIG_DEVICES);
    List<DeviceState> children = new ArrayList<>();
    for (int i = 0; i < max; i++) {
      int handleRc = nv.invoke(Symbol.MIG_DEVICE_HANDLE_BY_INDEX, gpu.handle, i, scratch);
      if (handleRc == ERROR_NOT_FOUND.code()) {
        continue; // an empty slot
      }
      if (!check(gpu, Field.MIG_MODE, Symbol.MIG_DEVICE_HANDLE_BY_INDEX, handleRc)) {
        continue;
      }
      children.add(identify(scratch.getPointer(0), gpu.index, gpu, i));
    }
    gpu.migChildren = List.copyOf(children);
  }

  // ---- processes ----

  private static int initialProcessStride(NvmlNative nv) {
    String name = nv.resolvedName(Symbol.COMPUTE_RUNNING_PROCESSES);
    if (name == null) {
      return 0;
    }
    if (name.endsWith("_v3")) {
      // nvitop's rule: R535.43-535.86 wrote nvmlProcessDetail_v1_t (32 B) from _v3; they are the
      // drivers with ConfComputeMemSizeInfo but without RunningProcessDetailList.
      boolean early535 =
          nv.has(Symbol.CONF_COMPUTE_MEM_SIZE_INFO) && !nv.has(Symbol.RUNNING_PROCESS_DETAIL_LIST);
      return early535 ? Layouts.PROCESS_DETAIL_V1_SIZE : Layouts.PROCESS_INFO_V2_SIZE;
    }
    return name.endsWith("_v2") ? Layouts.PROCESS_INFO_V2_SIZE : Layouts.PROCESS_INFO_V1_SIZE;
  }

  /** Buffers are sized for the largest entry, so a driver that writes 32-byte entries can't overrun. */
  private void allocateProcessBuffer(int capacity) {
    processCapacity = capacity;
    processBuffer = new Memory((long) capacity * Layouts.PROCESS_DETAIL_V1_SIZE);
  }

  private void allocateSampleBuffer(int capacity) {
    sampleCapacity = capacity;
    sampleBuffer = new Memory((long) capacity * Layouts.PROCESS_SAMPLE_SIZE);
  }

  private void readProcesses(DeviceState d, Long memoryTotal, List<GpuProcess> out) {
    if (processStride == 0 || !d.supports(Field.PROCESSES)) {
      return;
    }
    scratch.setInt(0, processCapacity);
    int rc = nv.invoke(Symbol.COMPUTE_RUNNING_PROCESSES, d.handle, scratch, processBuffer);
    if (rc == ERROR_INSUFFICIENT_SIZE.code()) {
      int needed = scratch.getInt(0);
      // Slack, because processes come and go between the two calls (nvitop does the same).
      allocateProcessBuffer(Math.min(MAX_PROCESSES, Math.max(needed, 1) * 2 + 5));
      scratch.setInt(0, processCapacity);
      rc = nv.invoke(Symbol.COMPUTE_RUNNING_PROCESSES, d.handle, scratch, processBuffer);
    }
    if (!check(d, Field.PROCESSES, Symbol.COMPUTE_RUNNING_PROCESSES, rc)) {
      return;
    }
    int count = Math.min(scratch.getInt(0), processCapacity);
    if (count <= 0) {
      return;
    }
    List<GpuProcess> decoded = decodeProcesses(d, count, processStride, memoryTotal);
    if (decoded == null && processStride != Layouts.PROCESS_INFO_V1_SIZE) {
      int other =
          processStride == Layouts.PROCESS_INFO_V2_SIZE
              ? Layouts.PROCESS_DETAIL_V1_SIZE
              : Layouts.PROCESS_INFO_V2_SIZE;
      decoded = decodeProcesses(d, count, other, memoryTotal);
      if (decoded != null) {
        int was = processStride;
        processStride = other;
        logger.warning(
            "NVML process entries failed the sanity check as " + was + "-byte entries and pass as "
                + other + "-byte entries (driver " + driverVersion + "); reading " + other + " bytes from now on");
      }
    }
    if (decoded == null) {
      if (!strideMismatchLogged) {
        strideMismatchLogged = true;
        logger.warning(
            "NVML returned process entries that make no sense (driver " + driverVersion
                + ", entry size " + processStride + "); GPU processes are not reported");
      }
      return;
    }
    out.addAll(decoded);
  }

  /** The entries at the given stride, or null when any of them fails the sanity check. */
  private List<GpuProcess> decodeProcesses(DeviceState d, int count, int stride, Long memoryTotal) {
    List<GpuProcess> result = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      long at = (long) i * stride;
      long pid = Integer.toUnsignedLong(processBuffer.getInt(at + Layouts.PROCESS_PID));
      long used = processBuffer.getLong(at + Layouts.PROCESS_USED_MEMORY);
      if (pid == 0 || pid > pidMax) {
        return null;
      }
      if (used == Layouts.VALUE_NOT_AVAILABLE) {
        used = -1; // WDDM and some MIG setups: the driver can't say
      } else if (used < 0 || (memoryTotal != null && used > memoryTotal)) {
        return null;
      }
      result.add(new GpuProcess(pid, d.index, d.uuid, used));
    }
    return result;
  }

  private void readProcessUtilization(
      DeviceState d, List<GpuProcess> processes, int from, List<GpuProcessUtilization> out) {
    if (!d.supports(Field.PROCESS_UTILIZATION) || processes.size() == from) {
      return;
    }
    scratch.setInt(0, sampleCapacity);
    int rc = nv.invoke(Symbol.PROCESS_UTILIZATION, d.handle, sampleBuffer, scratch, d.lastSeenTimestamp);
    if (rc == ERROR_INSUFFICIENT_SIZE.code()) {
      allocateSampleBuffer(Math.min(MAX_PROCESSES, Math.max(scratch.getInt(0), 1) * 2 + 5));
      scratch.setInt(0, sampleCapacity);
      rc = nv.invoke(Symbol.PROCESS_UTILIZATION, d.handle, sampleBuffer, scratch, d.lastSeenTimestamp);
    }
    Map<Long, long[]> latest = new HashMap<>();
    if (rc == ERROR_NOT_FOUND.code()) {
      // No sample newer than the last one: no listed process ran a kernel since the last sample.
    } else if (!check(d, Field.PROCESS_UTILIZATION, Symbol.PROCESS_UTILIZATION, rc)) {
      return;
    } else {
      int count = Math.min(scratch.getInt(0), sampleCapacity);
      for (int i = 0; i < count; i++) {
        long at = (long) i * Layouts.PROCESS_SAMPLE_SIZE;
        long pid = Integer.toUnsignedLong(sampleBuffer.getInt(at + Layouts.PROCESS_SAMPLE_PID));
        long ts = sampleBuffer.getLong(at + Layouts.PROCESS_SAMPLE_TIMESTAMP);
        long sm = Integer.toUnsignedLong(sampleBuffer.getInt(at + Layouts.PROCESS_SAMPLE_SM));
        long mem = Integer.toUnsignedLong(sampleBuffer.getInt(at + Layouts.PROCESS_SAMPLE_MEM));
        d.lastSeenTimestamp = Math.max(d.lastSeenTimestamp, ts);
        long[] previous = latest.get(pid);
        if (previous == null || previous[0] <= ts) {
          latest.put(pid, new long[] {ts, sm, mem});
        }
      }
    }
    for (int i = from; i < processes.size(); i++) {
      GpuProcess p = processes.get(i);
      long[] s = latest.get(p.pid());
      double sm = s == null ? 0 : Math.min(s[1], 100) / 100.0;
      double mem = s == null ? 0 : Math.min(s[2], 100) / 100.0;
      out.add(new GpuProcessUtilization(p.pid(), d.uuid, sm, mem));
    }
  }

  // ---- system ----

  private String readDriverVersion() {
    int rc = nv.invoke(Symbol.SYSTEM_DRIVER_VERSION, scratch, Layouts.DRIVER_VERSION_BUFFER_SIZE);
    if (rc != OK) {
      return null;
    }
    scratch.setByte(Layouts.DRIVER_VERSION_BUFFER_SIZE - 1, (byte) 0);
    return scratch.getString(0, StandardCharsets.US_ASCII.name());
  }

  private static long readPidMax() {
    if (Platform.isWindows()) {
      return 0xFFFF_FFFFL;
    }
    // Files.readString trusts the size procfs reports (0) and can come back short; read lines.
    try (java.io.BufferedReader reader = Files.newBufferedReader(Path.of("/proc/sys/kernel/pid_max"))) {
      return Long.parseLong(reader.readLine().trim());
    } catch (IOException | RuntimeException e) {
      return 4_194_304L; // PID_MAX_LIMIT on 64-bit Linux
    }
  }
}
