package dev.gputop.nvml.internal.jna;

import com.sun.jna.Structure;
import com.sun.jna.Structure.FieldOrder;

/**
 * The nvml.h structs the binding passes to single calls, declared as JNA structures with the
 * header's field order. JNA lays them out with the platform's C alignment, which on x86_64 Linux
 * and Windows x64 gives the same sizes and offsets as gcc does for nvml.h (NVML.md section 4).
 * Arrays whose entry size depends on the driver (process lists, utilization samples) are read as
 * raw memory with the offsets of {@link Layouts} instead; the tests check those offsets against
 * JNA's layout of the same structs.
 * Not thread-safe (JNA structures are mutable buffers).
 */
public final class NvmlStructs {

  private NvmlStructs() {}

  /** Gives tests the offset JNA computed for a field. */
  abstract static class Inspectable extends Structure {
    /** The offset of field {@code name} in bytes. */
    public int offsetOf(String name) {
      return fieldOffset(name);
    }
  }

  /** {@code nvmlPciInfo_t}: 68 bytes. */
  @FieldOrder({"busIdLegacy", "domain", "bus", "device", "pciDeviceId", "pciSubSystemId", "busId"})
  public static final class PciInfo extends Inspectable {
    /** "0000:3B:00.0": the 16-character form older drivers filled in. */
    public byte[] busIdLegacy = new byte[16];
    public int domain;
    public int bus;
    public int device;
    /** Device id in the upper 16 bits, vendor id (0x10DE) in the lower. */
    public int pciDeviceId;
    public int pciSubSystemId;
    /** "00000000:3B:00.0": the form nvidia-smi shows. */
    public byte[] busId = new byte[32];
  }

  /** {@code nvmlMemory_t} (v1): 24 bytes; {@code used} includes driver-reserved memory. */
  @FieldOrder({"total", "free", "used"})
  public static final class Memory extends Inspectable {
    public long total;
    public long free;
    public long used;
  }

  /** {@code nvmlMemory_v2_t}: 40 bytes; {@code version} must be {@link Layouts#MEMORY_V2_VERSION}. */
  @FieldOrder({"version", "total", "reserved", "free", "used"})
  public static final class MemoryV2 extends Inspectable {
    public int version;
    public long total;
    public long reserved;
    public long free;
    /** What nvidia-smi shows as used: without the reserved part. */
    public long used;
  }

  /** {@code nvmlUtilization_t}: 8 bytes, percentages. */
  @FieldOrder({"gpu", "memory"})
  public static final class Utilization extends Inspectable {
    /** Percent of the sample period during which a kernel ran. */
    public int gpu;
    /** Percent of the sample period during which memory was read or written (not capacity). */
    public int memory;
  }

  /** {@code nvmlTemperature_v1_t}: 12 bytes. */
  @FieldOrder({"version", "sensorType", "temperature"})
  public static final class Temperature extends Inspectable {
    public int version;
    public int sensorType;
    public int temperature;
  }

  /** {@code nvmlFieldValue_t}: 40 bytes; the 8-byte value union is read as a long at offset 32. */
  @FieldOrder({"fieldId", "scopeId", "timestamp", "latencyUsec", "valueType", "nvmlReturn", "value"})
  public static final class FieldValue extends Inspectable {
    public int fieldId;
    public int scopeId;
    public long timestamp;
    public long latencyUsec;
    public int valueType;
    public int nvmlReturn;
    public long value;
  }

  /**
   * {@code nvmlEventData_t}: 32 bytes since R450 ({@code nvmlEventSetWait_v2}); v1 writes only the
   * first 24 (device, eventType, eventData), so the instance ids are reset before each wait.
   */
  @FieldOrder({"device", "eventType", "eventData", "gpuInstanceId", "computeInstanceId"})
  public static final class EventData extends Inspectable {
    /** The {@code nvmlDevice_t} the event is for. */
    public com.sun.jna.Pointer device;
    /** One of the {@code nvmlEventType*} bits, e.g. {@link Layouts#EVENT_TYPE_XID_CRITICAL_ERROR}. */
    public long eventType;
    /** For an Xid critical error, the Xid; 999 for an unknown Xid; 0 for other events. */
    public long eventData;
    /** 0xFFFFFFFF unless MIG is on and the Xid is attributable to a GPU instance. */
    public int gpuInstanceId;
    public int computeInstanceId;

    /** The handle of the event's device, or null. */
    public DeviceHandle deviceHandle() {
      return DeviceHandle.of(device);
    }
  }
}
