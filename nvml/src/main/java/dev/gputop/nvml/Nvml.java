package dev.gputop.nvml;

import dev.gputop.config.services.GpuProcessSource;
import dev.gputop.config.services.GpuProcess;
import static dev.gputop.nvml.internal.jna.NvmlReturn.ERROR_ARGUMENT_VERSION_MISMATCH;
import static dev.gputop.nvml.internal.jna.NvmlReturn.ERROR_FUNCTION_NOT_FOUND;
import static dev.gputop.nvml.internal.jna.NvmlReturn.ERROR_GPU_IS_LOST;
import static dev.gputop.nvml.internal.jna.NvmlReturn.ERROR_INSUFFICIENT_SIZE;
import static dev.gputop.nvml.internal.jna.NvmlReturn.ERROR_NOT_FOUND;
import static dev.gputop.nvml.internal.jna.NvmlReturn.ERROR_NOT_SUPPORTED;
import static dev.gputop.nvml.internal.jna.NvmlReturn.ERROR_NO_PERMISSION;
import static dev.gputop.nvml.internal.jna.NvmlReturn.ERROR_TIMEOUT;

import com.sun.jna.Memory;
import com.sun.jna.Platform;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import dev.gputop.nvml.DeviceState.Field;
import dev.gputop.nvml.internal.jna.DeviceHandle;
import dev.gputop.nvml.internal.jna.EventSet;
import dev.gputop.nvml.internal.jna.Layouts;
import dev.gputop.nvml.internal.jna.NvmlNative;
import dev.gputop.nvml.internal.jna.NvmlReturn;
import dev.gputop.nvml.internal.jna.NvmlStructs;
import dev.gputop.nvml.internal.jna.Symbol;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
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
public final class Nvml implements GpuLibrary {

  private static final Logger logger = Logger.getLogger(Nvml.class.getName());

  private static final int OK = 0;
  private static final int MAX_PROCESSES = 16_384;
  private static final int MAX_MIG_DEVICES = 64;
  private static final int INITIAL_CAPACITY = 64;

  private final NvmlNative nv;
  private final String driverVersion;
  private final long pidMax;
  // Out-parameters of single calls, reused under the lock: a sample allocates no native memory.
  private final IntByReference intOut = new IntByReference();
  private final IntByReference intOut2 = new IntByReference();
  private final LongByReference longOut = new LongByReference();
  private final DeviceHandle.Out handleOut = new DeviceHandle.Out();
  private final byte[] stringBuffer = new byte[Math.max(Layouts.UUID_BUFFER_SIZE, Layouts.NAME_BUFFER_SIZE)];
  private final NvmlStructs.PciInfo pciInfo = new NvmlStructs.PciInfo();
  private final NvmlStructs.Memory memoryV1 = new NvmlStructs.Memory();
  private final NvmlStructs.MemoryV2 memoryV2 = new NvmlStructs.MemoryV2();
  private final NvmlStructs.Utilization utilizationRates = new NvmlStructs.Utilization();
  private final NvmlStructs.Temperature temperatureV = new NvmlStructs.Temperature();
  private final NvmlStructs.FieldValue[] pcieFields =
      (NvmlStructs.FieldValue[]) new NvmlStructs.FieldValue().toArray(2);
  private Memory processBuffer;
  private int processCapacity;
  private Memory sampleBuffer;
  private int sampleCapacity;
  private int processStride;
  private boolean strideMismatchLogged;
  private final Map<String, DeviceState> states = new HashMap<>();
  private List<DeviceState> gpus = List.of();
  private int lastCount = -1;
  // Xid events: the set is created at the first sample; waitForXid runs on another thread with its
  // own out-parameter and finds the device of an event through handles registered under the lock.
  private volatile EventSet eventSet;
  private boolean eventSetUnavailable;
  private final Map<DeviceHandle, DeviceState> registered = new ConcurrentHashMap<>();
  private final NvmlStructs.EventData eventData = new NvmlStructs.EventData();
  private final ReentrantLock waitLock = new ReentrantLock();
  private final java.util.Set<Integer> waitErrorsLogged = ConcurrentHashMap.newKeySet();
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
    int rc = nv.init();
    if (rc != OK) {
      throw new NvmlUnavailableException(
          nv.resolvedName(Symbol.INIT) + " failed: " + NvmlReturn.describe(rc));
    }
    try {
      return new Nvml(nv);
    } catch (RuntimeException | Error e) {
      nv.shutdown();
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
  @Override
  public String driverVersion() {
    return driverVersion;
  }

  /** The library file that was loaded. */
  @Override
  public String libraryFile() {
    return nv.libraryFile();
  }

  /**
   * The size of one process entry the agent currently reads: 16 (drivers without {@code _v2}), 24,
   * or 32 (R535.43-535.86); 0 when the driver has no process API.
   */
  @Override
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
  @Override
  public synchronized GpuSample sample() {
    if (closed) {
      throw new IllegalStateException("NVML session is closed");
    }
    int rc = nv.deviceCount(intOut);
    if (rc == OK) {
      int count = intOut.getValue();
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
    waitLock.lock(); // a wait in progress ends within its timeout; the set is freed after it
    try {
      EventSet set = eventSet;
      eventSet = null;
      registered.clear();
      if (set != null) {
        nv.eventSetFree(set);
      }
    } finally {
      waitLock.unlock();
    }
    int rc = nv.shutdown();
    if (rc != OK) {
      logger.fine(() -> "nvmlShutdown: " + NvmlReturn.describe(rc));
    }
  }

  // ---- enumeration ----

  private void enumerate(int count) {
    List<DeviceState> found = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int rc = nv.handleByIndex(i, handleOut);
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
      found.add(identify(handleOut.handle(), i, null, null));
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
  private DeviceState identify(DeviceHandle handle, int index, DeviceState parent, Integer migIndex) {
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

  private String readBusId(DeviceHandle handle) {
    java.util.Arrays.fill(pciInfo.busIdLegacy, (byte) 0);
    java.util.Arrays.fill(pciInfo.busId, (byte) 0);
    if (nv.pciInfo(handle, pciInfo) != OK) {
      return null;
    }
    String busId = cString(pciInfo.busId, pciInfo.busId.length, StandardCharsets.US_ASCII);
    if (busId.isEmpty()) {
      // nvmlDeviceGetPciInfo (v1) fills only the 16-byte legacy form.
      busId = cString(pciInfo.busIdLegacy, pciInfo.busIdLegacy.length, StandardCharsets.US_ASCII);
    }
    return busId.isEmpty() ? null : busId;
  }

  private String readString(Symbol symbol, DeviceHandle handle, int size) {
    byte[] buffer = size == stringBuffer.length ? stringBuffer : new byte[size];
    java.util.Arrays.fill(buffer, (byte) 0);
    int rc = symbol == Symbol.UUID ? nv.uuid(handle, buffer) : nv.name(handle, buffer);
    lastStringReturn = rc;
    if (rc != OK) {
      return null;
    }
    return cString(buffer, size - 1, StandardCharsets.UTF_8);
  }

  /** The NUL-terminated string at the start of a char buffer, reading at most {@code max} bytes. */
  private static String cString(byte[] buffer, int max, java.nio.charset.Charset charset) {
    int end = 0;
    while (end < max && buffer[end] != 0) {
      end++;
    }
    return new String(buffer, 0, end, charset);
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
      registerXid(gpu);
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

  /** A typed call with an {@code unsigned int *} out-parameter. */
  @FunctionalInterface
  private interface IntCall {
    int call(IntByReference out);
  }

  /** A typed call with an {@code unsigned long long *} out-parameter. */
  @FunctionalInterface
  private interface LongCall {
    int call(LongByReference out);
  }

  private Integer readUnsigned(DeviceState d, Field field, Symbol symbol, IntCall call) {
    if (!d.supports(field)) {
      return null;
    }
    int rc = call.call(intOut);
    return check(d, field, symbol, rc) ? intOut.getValue() : null;
  }

  private Long readLong(DeviceState d, Field field, Symbol symbol, LongCall call) {
    if (!d.supports(field)) {
      return null;
    }
    int rc = call.call(longOut);
    return check(d, field, symbol, rc) ? longOut.getValue() : null;
  }

  /** Everything but MIG and processes; on a MIG instance most of it is unsupported after the first sample. */
  private void readCommon(DeviceState d, DeviceReading r) {
    DeviceHandle h = d.handle;
    readMemory(d, r);
    if (d.supports(Field.UTILIZATION)) {
      int rc = nv.utilizationRates(h, utilizationRates);
      if (check(d, Field.UTILIZATION, Symbol.UTILIZATION_RATES, rc)) {
        r.utilization = percent(utilizationRates.gpu);
        r.memoryControllerUtilization = percent(utilizationRates.memory);
      }
    }
    Integer milliwatts = readUnsigned(d, Field.POWER, Symbol.POWER_USAGE, out -> nv.powerUsage(h, out));
    r.powerWatts = milliwatts == null ? null : Integer.toUnsignedLong(milliwatts) / 1000.0;
    Long millijoules =
        readLong(d, Field.ENERGY, Symbol.TOTAL_ENERGY_CONSUMPTION, out -> nv.totalEnergyConsumption(h, out));
    r.energyJoules = millijoules == null ? null : millijoules / 1000.0;
    r.temperatureCelsius = readTemperature(d);
    Integer fan = readUnsigned(d, Field.FAN, Symbol.FAN_SPEED, out -> nv.fanSpeed(h, out));
    r.fanSpeedRatio = fan == null ? null : percent(fan);
    r.graphicsClockMhz = readClock(d, Field.CLOCK_GRAPHICS, Layouts.CLOCK_GRAPHICS);
    r.smClockMhz = readClock(d, Field.CLOCK_SM, Layouts.CLOCK_SM);
    r.memoryClockMhz = readClock(d, Field.CLOCK_MEMORY, Layouts.CLOCK_MEM);
    r.videoClockMhz = readClock(d, Field.CLOCK_VIDEO, Layouts.CLOCK_VIDEO);
    r.throttleReasons = readLong(d, Field.THROTTLE, Symbol.CLOCK_EVENT_REASONS, out -> nv.clockEventReasons(h, out));
    r.eccCorrectedErrors = readLong(d, Field.ECC_CORRECTED, Symbol.TOTAL_ECC_ERRORS,
        out -> nv.totalEccErrors(h, Layouts.ECC_CORRECTED, Layouts.ECC_VOLATILE, out));
    r.eccUncorrectedErrors = readLong(d, Field.ECC_UNCORRECTED, Symbol.TOTAL_ECC_ERRORS,
        out -> nv.totalEccErrors(h, Layouts.ECC_UNCORRECTED, Layouts.ECC_VOLATILE, out));
    readPcie(d, r);
    r.faults = readFaults(d);
  }

  // ---- faults ----

  private static final Field[] NVLINK_COUNTERS = {
    Field.NVLINK_REPLAY, Field.NVLINK_RECOVERY, Field.NVLINK_CRC_FLIT, Field.NVLINK_CRC_DATA
  };

  /** Memory retirement, PCIe replays and NVLink; each call probed once and skipped where unsupported. */
  private GpuFaults readFaults(DeviceState d) {
    DeviceHandle h = d.handle;
    Long remapCorrectable = null;
    Long remapUncorrectable = null;
    Boolean remapPending = null;
    Boolean remapFailed = null;
    if (d.supports(Field.REMAPPED_ROWS)) {
      IntByReference unc = new IntByReference();
      IntByReference pending = new IntByReference();
      IntByReference failed = new IntByReference();
      int rc = nv.remappedRows(h, intOut, unc, pending, failed);
      if (check(d, Field.REMAPPED_ROWS, Symbol.REMAPPED_ROWS, rc)) {
        remapCorrectable = Integer.toUnsignedLong(intOut.getValue());
        remapUncorrectable = Integer.toUnsignedLong(unc.getValue());
        remapPending = pending.getValue() != 0;
        remapFailed = failed.getValue() != 0;
      }
    }
    Long retiredSingle = null;
    Long retiredDouble = null;
    Boolean retiredPending = null;
    if (d.supports(Field.RETIRED_PAGES)) {
      retiredSingle = retiredPages(d, Layouts.RETIREMENT_CAUSE_SINGLE_BIT);
      retiredDouble = retiredSingle == null ? null : retiredPages(d, Layouts.RETIREMENT_CAUSE_DOUBLE_BIT);
      if (retiredDouble == null) {
        retiredSingle = null;
      }
    }
    Integer pending = readUnsigned(d, Field.RETIRED_PAGES_PENDING, Symbol.RETIRED_PAGES_PENDING,
        out -> nv.retiredPagesPending(h, out));
    if (pending != null) {
      retiredPending = pending != 0;
    }
    Integer replays = readUnsigned(d, Field.PCIE_REPLAY, Symbol.PCIE_REPLAY_COUNTER, out -> nv.pcieReplayCounter(h, out));
    return new GpuFaults(
        remapCorrectable, remapUncorrectable, remapPending, remapFailed, retiredSingle, retiredDouble,
        retiredPending, replays == null ? null : Integer.toUnsignedLong(replays), readNvLinks(d));
  }

  /** The count of retired pages for a cause: INSUFFICIENT_SIZE with the count, or SUCCESS with 0. */
  private Long retiredPages(DeviceState d, int cause) {
    int rc = nv.retiredPageCount(d.handle, cause, intOut);
    if (rc == ERROR_INSUFFICIENT_SIZE.code()) {
      rc = OK;
    }
    return check(d, Field.RETIRED_PAGES, Symbol.RETIRED_PAGES, rc) ? Integer.toUnsignedLong(intOut.getValue()) : null;
  }

  /**
   * The links of a GPU: probed once up to {@link Layouts#NVLINK_MAX_LINKS} (the first link the
   * driver refuses ends the list: NVML_NVLINK_MAX_LINKS differs between headers), then read by
   * number.
   */
  private List<GpuFaults.NvLink> readNvLinks(DeviceState d) {
    if (!d.supports(Field.NVLINK) || d.nvlinkCount == 0) {
      return List.of();
    }
    int max = d.nvlinkCount < 0 ? Layouts.NVLINK_MAX_LINKS : d.nvlinkCount;
    List<GpuFaults.NvLink> links = new ArrayList<>();
    for (int link = 0; link < max; link++) {
      int rc = nv.nvLinkState(d.handle, link, intOut);
      if (d.nvlinkCount < 0 && rc != OK) {
        if (link == 0) {
          check(d, Field.NVLINK, Symbol.NVLINK_STATE, rc);   // NOT_SUPPORTED: a GPU without NVLink
          if (d.supports(Field.NVLINK)) {
            return List.of(); // another error: probe again next time
          }
        }
        break; // INVALID_ARGUMENT past the last link
      }
      if (!check(d, Field.NVLINK, Symbol.NVLINK_STATE, rc)) {
        return List.of();
      }
      boolean active = intOut.getValue() == 1;
      Long[] counters = new Long[NVLINK_COUNTERS.length];
      for (int c = 0; c < NVLINK_COUNTERS.length; c++) {
        if (!active || !d.supports(NVLINK_COUNTERS[c])) {
          continue;
        }
        int counter = c;
        int finalLink = link;
        counters[c] = readLong(d, NVLINK_COUNTERS[c], Symbol.NVLINK_ERROR_COUNTER,
            out -> nv.nvLinkErrorCounter(d.handle, finalLink, counter, out));
      }
      links.add(new GpuFaults.NvLink(link, active, counters[0], counters[1], counters[2], counters[3]));
    }
    if (d.nvlinkCount < 0) {
      d.nvlinkCount = links.size();
      logger.fine(() -> d.label() + ": " + links.size() + " NVLink link(s)");
    }
    return links;
  }

  // ---- Xid events ----

  /** Registers a GPU for Xid critical errors once, creating the session's event set on first need. */
  private void registerXid(DeviceState gpu) {
    if (gpu.xidRegistered || !gpu.supports(Field.XID_EVENTS) || eventSetUnavailable) {
      return;
    }
    EventSet set = eventSet;
    if (set == null) {
      EventSet.Out out = new EventSet.Out();
      int rc = nv.eventSetCreate(out);
      if (rc != OK || out.set() == null) {
        eventSetUnavailable = true;
        logger.warning("NVML: no event set (" + NvmlReturn.describe(rc) + "); Xid events are not reported");
        return;
      }
      set = out.set();
      eventSet = set;
    }
    int rc = nv.registerEvents(gpu.handle, Layouts.EVENT_TYPE_XID_CRITICAL_ERROR, set);
    if (check(gpu, Field.XID_EVENTS, Symbol.REGISTER_EVENTS, rc)) {
      gpu.xidRegistered = true;
      registered.put(gpu.handle, gpu);
    }
  }

  /**
   * Waits up to {@code timeoutMillis} for the next Xid critical error of a registered GPU. Runs on
   * its own thread, concurrently with {@link #sample()} (NVML is thread-safe; this call has its own
   * out-parameter); {@link #close()} waits for a wait in progress to end. Without an event set
   * (before the first sample, or a driver without events) it sleeps the timeout and returns null.
   *
   * @return the event, or null when none came within the timeout
   * @throws InterruptedException when the waiting thread is interrupted while sleeping
   */
  @Override
  public XidEvent waitForXid(int timeoutMillis) throws InterruptedException {
    waitLock.lock();
    int rc;
    DeviceState device;
    long xid;
    int gi;
    int ci;
    try {
      EventSet set = eventSet;
      if (set == null || closed) {
        rc = -1;
        device = null;
        xid = gi = ci = 0;
      } else {
        eventData.device = null;
        eventData.eventType = eventData.eventData = 0;
        eventData.gpuInstanceId = eventData.computeInstanceId = Layouts.NO_INSTANCE;
        rc = nv.eventSetWait(set, eventData, timeoutMillis);
        DeviceHandle handle = eventData.deviceHandle();
        device = handle == null ? null : registered.get(handle);
        xid = eventData.eventData;
        gi = eventData.gpuInstanceId;
        ci = eventData.computeInstanceId;
        if (rc == OK && (eventData.eventType & Layouts.EVENT_TYPE_XID_CRITICAL_ERROR) != 0 && device != null) {
          return new XidEvent(device.uuid, device.index, xid,
              gi == Layouts.NO_INSTANCE ? null : gi, ci == Layouts.NO_INSTANCE ? null : ci);
        }
      }
    } finally {
      waitLock.unlock();
    }
    if (rc == ERROR_TIMEOUT.code() || rc == OK) {
      return null; // nothing, or an event of another type or device
    }
    if (rc != -1 && waitErrorsLogged.add(rc)) {
      logger.warning("nvmlEventSetWait failed: " + NvmlReturn.describe(rc) + "; retrying every "
          + timeoutMillis + " ms");
    }
    Thread.sleep(timeoutMillis); // no busy loop on an error or without a set
    return null;
  }

  private Integer readClock(DeviceState d, Field field, int clockType) {
    return readUnsigned(d, field, Symbol.CLOCK_INFO, out -> nv.clockInfo(d.handle, clockType, out));
  }

  private static Double percent(int value) {
    return Integer.toUnsignedLong(value) / 100.0;
  }

  private void readMemory(DeviceState d, DeviceReading r) {
    DeviceHandle h = d.handle;
    if (d.supports(Field.MEMORY_V2)) {
      memoryV2.total = memoryV2.reserved = memoryV2.free = memoryV2.used = 0;
      int rc = nv.memoryInfoV2(h, memoryV2);
      if (rc == ERROR_ARGUMENT_VERSION_MISMATCH.code()) {
        d.unsupported.add(Field.MEMORY_V2);
      } else if (check(d, Field.MEMORY_V2, Symbol.MEMORY_INFO_V2, rc)) {
        r.memoryTotalBytes = memoryV2.total;
        r.memoryUsedBytes = memoryV2.used;
        return;
      }
      if (d.supports(Field.MEMORY_V2)) {
        return; // a transient failure: don't mix v1 numbers into the series
      }
    }
    if (d.supports(Field.MEMORY)) {
      int rc = nv.memoryInfo(h, memoryV1);
      if (check(d, Field.MEMORY, Symbol.MEMORY_INFO, rc)) {
        r.memoryTotalBytes = memoryV1.total;
        r.memoryUsedBytes = memoryV1.used;
      }
    }
  }

  private Integer readTemperature(DeviceState d) {
    if (d.supports(Field.TEMPERATURE_V)) {
      int rc = nv.temperatureV(d.handle, Layouts.TEMPERATURE_GPU, temperatureV);
      if (rc == ERROR_ARGUMENT_VERSION_MISMATCH.code()) {
        d.unsupported.add(Field.TEMPERATURE_V);
      } else if (check(d, Field.TEMPERATURE_V, Symbol.TEMPERATURE_V, rc)) {
        return temperatureV.temperature;
      } else if (d.supports(Field.TEMPERATURE_V)) {
        return null;
      }
    }
    return readUnsigned(
        d, Field.TEMPERATURE, Symbol.TEMPERATURE, out -> nv.temperature(d.handle, Layouts.TEMPERATURE_GPU, out));
  }

  private void readPcie(DeviceState d, DeviceReading r) {
    if (!d.supports(Field.PCIE)) {
      return;
    }
    for (NvmlStructs.FieldValue f : pcieFields) {
      f.scopeId = 0;
      f.timestamp = f.latencyUsec = f.value = 0;
      f.valueType = f.nvmlReturn = 0;
    }
    pcieFields[0].fieldId = Layouts.FI_PCIE_COUNT_TX_BYTES;
    pcieFields[1].fieldId = Layouts.FI_PCIE_COUNT_RX_BYTES;
    int rc = nv.fieldValues(d.handle, pcieFields);
    if (!check(d, Field.PCIE, Symbol.FIELD_VALUES, rc)) {
      return;
    }
    r.pcieTransmitBytes = fieldValue(pcieFields[0]);
    r.pcieReceiveBytes = fieldValue(pcieFields[1]);
    if (r.pcieTransmitBytes == null && r.pcieReceiveBytes == null) {
      if (pcieFields[0].nvmlReturn == ERROR_NOT_SUPPORTED.code()) {
        d.unsupported.add(Field.PCIE);
      }
    }
  }

  /** Decodes one nvmlFieldValue_t by its value type; null when its own return code is an error. */
  static Long fieldValue(NvmlStructs.FieldValue f) {
    if (f.nvmlReturn != OK) {
      return null;
    }
    // The 8-byte union as a long (little-endian): the low bytes hold the narrower members.
    long raw = f.value;
    switch (f.valueType) {
      case Layouts.VALUE_TYPE_DOUBLE:
        return (long) Double.longBitsToDouble(raw);
      case Layouts.VALUE_TYPE_UINT:
        return raw & 0xFFFF_FFFFL;
      case Layouts.VALUE_TYPE_ULONG:
        // unsigned long is 4 bytes on Windows (LLP64), 8 on Linux.
        return Platform.isWindows() ? raw & 0xFFFF_FFFFL : raw;
      case Layouts.VALUE_TYPE_ULONGLONG:
      case Layouts.VALUE_TYPE_SLONGLONG:
        return raw;
      case Layouts.VALUE_TYPE_SINT:
        return (long) (int) raw;
      case Layouts.VALUE_TYPE_USHORT:
        return raw & 0xFFFFL;
      default:
        return null;
    }
  }

  // ---- MIG ----

  private boolean readMigMode(DeviceState gpu) {
    if (!gpu.supports(Field.MIG_MODE)) {
      return false;
    }
    int rc = nv.migMode(gpu.handle, intOut, intOut2);
    return check(gpu, Field.MIG_MODE, Symbol.MIG_MODE, rc) && intOut.getValue() == 1;
  }

  /** Lists the MIG instances of a GPU again on every sample: they can be reconfigured at run time. */
  private void enumerateMig(DeviceState gpu) {
    int rc = nv.maxMigDeviceCount(gpu.handle, intOut);
    if (!check(gpu, Field.MIG_MODE, Symbol.MAX_MIG_DEVICE_COUNT, rc)) {
      gpu.migChildren = List.of();
      return;
    }
    int max = Math.min(intOut.getValue(), MAX_MIG_DEVICES);
    List<DeviceState> children = new ArrayList<>();
    for (int i = 0; i < max; i++) {
      int handleRc = nv.migDeviceHandleByIndex(gpu.handle, i, handleOut);
      if (handleRc == ERROR_NOT_FOUND.code()) {
        continue; // an empty slot
      }
      if (!check(gpu, Field.MIG_MODE, Symbol.MIG_DEVICE_HANDLE_BY_INDEX, handleRc)) {
        continue;
      }
      children.add(identify(handleOut.handle(), gpu.index, gpu, i));
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
    intOut.setValue(processCapacity);
    int rc = nv.computeRunningProcesses(d.handle, intOut, processBuffer);
    if (rc == ERROR_INSUFFICIENT_SIZE.code()) {
      int needed = intOut.getValue();
      // Slack, because processes come and go between the two calls (nvitop does the same).
      allocateProcessBuffer(Math.min(MAX_PROCESSES, Math.max(needed, 1) * 2 + 5));
      intOut.setValue(processCapacity);
      rc = nv.computeRunningProcesses(d.handle, intOut, processBuffer);
    }
    if (!check(d, Field.PROCESSES, Symbol.COMPUTE_RUNNING_PROCESSES, rc)) {
      return;
    }
    int count = Math.min(intOut.getValue(), processCapacity);
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
    intOut.setValue(sampleCapacity);
    int rc = nv.processUtilization(d.handle, sampleBuffer, intOut, d.lastSeenTimestamp);
    if (rc == ERROR_INSUFFICIENT_SIZE.code()) {
      allocateSampleBuffer(Math.min(MAX_PROCESSES, Math.max(intOut.getValue(), 1) * 2 + 5));
      intOut.setValue(sampleCapacity);
      rc = nv.processUtilization(d.handle, sampleBuffer, intOut, d.lastSeenTimestamp);
    }
    Map<Long, long[]> latest = new HashMap<>();
    if (rc == ERROR_NOT_FOUND.code()) {
      // No sample newer than the last one: no listed process ran a kernel since the last sample.
    } else if (!check(d, Field.PROCESS_UTILIZATION, Symbol.PROCESS_UTILIZATION, rc)) {
      return;
    } else {
      int count = Math.min(intOut.getValue(), sampleCapacity);
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
    byte[] version = new byte[Layouts.DRIVER_VERSION_BUFFER_SIZE];
    int rc = nv.systemDriverVersion(version);
    if (rc != OK) {
      return null;
    }
    return cString(version, version.length - 1, StandardCharsets.US_ASCII);
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
