package dev.gputop.nvml.internal.jna;

import com.sun.jna.Structure.FieldOrder;

/**
 * The nvml.h structs the sampler reads as raw memory (their size depends on the driver, so the
 * binding has no JNA structure for them): declared here only so the tests can check the offsets of
 * {@link Layouts} against JNA's C layout of the same fields.
 */
public final class RawEntryStructs {

  private RawEntryStructs() {}

  /** {@code nvmlProcessInfo_v1_t}: 16 bytes, drivers before R450. */
  @FieldOrder({"pid", "usedGpuMemory"})
  public static final class ProcessInfoV1 extends NvmlStructs.Inspectable {
    public int pid;
    public long usedGpuMemory;
  }

  /** {@code nvmlProcessInfo_v2_t} (= {@code nvmlProcessInfo_t}): 24 bytes. */
  @FieldOrder({"pid", "usedGpuMemory", "gpuInstanceId", "computeInstanceId"})
  public static final class ProcessInfoV2 extends NvmlStructs.Inspectable {
    public int pid;
    /** Bytes, or ULLONG_MAX when not available (Windows WDDM). */
    public long usedGpuMemory;
    /** 0xFFFFFFFF when not on a MIG instance. */
    public int gpuInstanceId;
    public int computeInstanceId;
  }

  /** {@code nvmlProcessDetail_v1_t}: 32 bytes; what R535.43-535.86 wrote from the {@code _v3} call. */
  @FieldOrder({"pid", "usedGpuMemory", "gpuInstanceId", "computeInstanceId", "usedGpuCcProtectedMemory"})
  public static final class ProcessDetailV1 extends NvmlStructs.Inspectable {
    public int pid;
    public long usedGpuMemory;
    public int gpuInstanceId;
    public int computeInstanceId;
    public long usedGpuCcProtectedMemory;
  }

  /** {@code nvmlProcessUtilizationSample_t}: 32 bytes. */
  @FieldOrder({"pid", "timeStamp", "smUtil", "memUtil", "encUtil", "decUtil"})
  public static final class ProcessUtilizationSample extends NvmlStructs.Inspectable {
    public int pid;
    /** CPU timestamp in microseconds. */
    public long timeStamp;
    public int smUtil;
    public int memUtil;
    public int encUtil;
    public int decUtil;
  }

}
