package dev.gputop.nvml;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;

/**
 * The attribute sets of one device's data points, built once per device so metric callbacks
 * allocate nothing. Immutable.
 */
final class DeviceAttributes {

  // Copied from the OpenTelemetry semantic conventions v1.44.0 (model/hardware).
  static final AttributeKey<String> HW_ID = AttributeKey.stringKey("hw.id");
  static final AttributeKey<String> HW_NAME = AttributeKey.stringKey("hw.name");
  static final AttributeKey<String> HW_TYPE = AttributeKey.stringKey("hw.type");
  static final AttributeKey<String> HW_MODEL = AttributeKey.stringKey("hw.model");
  static final AttributeKey<String> HW_VENDOR = AttributeKey.stringKey("hw.vendor");
  static final AttributeKey<String> HW_PARENT = AttributeKey.stringKey("hw.parent");
  static final AttributeKey<String> HW_STATE = AttributeKey.stringKey("hw.state");
  static final AttributeKey<String> HW_GPU_TASK = AttributeKey.stringKey("hw.gpu.task");
  static final AttributeKey<String> NETWORK_IO_DIRECTION = AttributeKey.stringKey("network.io.direction");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<Long> PROCESS_PID = AttributeKey.longKey("process.pid");
  static final AttributeKey<String> PROCESS_EXECUTABLE_NAME = AttributeKey.stringKey("process.executable.name");
  // gputop's own.
  static final AttributeKey<String> CLOCK_TYPE = AttributeKey.stringKey("gputop.clock.type");
  static final AttributeKey<String> THROTTLE_REASON = AttributeKey.stringKey("gputop.throttle.reason");
  static final AttributeKey<String> SERVER = AttributeKey.stringKey("server");
  static final AttributeKey<String> XID = AttributeKey.stringKey("xid");
  static final AttributeKey<String> NVLINK_LINK = AttributeKey.stringKey("gputop.nvlink.link");

  /** error.type values of the NVLink error counters, in nvmlNvLinkErrorCounter_t order. */
  static final String[] NVLINK_ERROR_TYPES = {"replay", "recovery", "crc_flit", "crc_data"};

  static final String[] CLOCK_TYPES = {"graphics", "sm", "memory", "video"};

  final GpuDevice identity;
  final Attributes base;
  final Attributes utilization;
  final Attributes statusOk;
  final Attributes statusFailed;
  final Attributes ioReceive;
  final Attributes ioTransmit;
  final Attributes errorsCorrected;
  final Attributes errorsUncorrected;
  final Attributes[] clocks = new Attributes[CLOCK_TYPES.length];
  final Attributes[] throttle = new Attributes[ThrottleReason.values().length];
  final Attributes retiredSingleBit;
  final Attributes retiredDoubleBit;
  private final Attributes[] nvlink = new Attributes[dev.gputop.nvml.internal.jna.Layouts.NVLINK_MAX_LINKS];
  private final Attributes[][] nvlinkErrors =
      new Attributes[dev.gputop.nvml.internal.jna.Layouts.NVLINK_MAX_LINKS][NVLINK_ERROR_TYPES.length];
  private final java.util.Map<Long, Attributes> xid = new java.util.concurrent.ConcurrentHashMap<>();

  DeviceAttributes(GpuDevice d) {
    this.identity = d;
    AttributesBuilder b =
        Attributes.builder()
            .put(HW_ID, d.id())
            .put(HW_NAME, d.isMig() ? "GPU " + d.index() + " MIG " + d.migIndex() : "GPU " + d.index())
            .put(HW_TYPE, "gpu")
            .put(HW_VENDOR, "NVIDIA");
    if (d.name() != null) {
      b.put(HW_MODEL, d.name());
    }
    if (d.parentUuid() != null) {
      b.put(HW_PARENT, d.parentUuid());
    }
    base = b.build();
    utilization = base.toBuilder().put(HW_GPU_TASK, "general").build();
    statusOk = base.toBuilder().put(HW_STATE, "ok").build();
    statusFailed = base.toBuilder().put(HW_STATE, "failed").build();
    ioReceive = base.toBuilder().put(NETWORK_IO_DIRECTION, "receive").build();
    ioTransmit = base.toBuilder().put(NETWORK_IO_DIRECTION, "transmit").build();
    errorsCorrected = base.toBuilder().put(ERROR_TYPE, "corrected").build();
    errorsUncorrected = base.toBuilder().put(ERROR_TYPE, "uncorrected").build();
    for (int i = 0; i < CLOCK_TYPES.length; i++) {
      clocks[i] = base.toBuilder().put(CLOCK_TYPE, CLOCK_TYPES[i]).build();
    }
    for (ThrottleReason r : ThrottleReason.values()) {
      throttle[r.ordinal()] = base.toBuilder().put(THROTTLE_REASON, r.attributeValue()).build();
    }
    retiredSingleBit = base.toBuilder().put(ERROR_TYPE, "single_bit").build();
    retiredDoubleBit = base.toBuilder().put(ERROR_TYPE, "double_bit").build();
  }

  /** The attributes of NVLink link {@code link} (built on first use, then kept). */
  Attributes nvlink(int link) {
    Attributes a = nvlink[link];
    if (a == null) {
      a = base.toBuilder().put(NVLINK_LINK, Integer.toString(link)).build();
      nvlink[link] = a;
    }
    return a;
  }

  /** The attributes of one NVLink error counter of a link. */
  Attributes nvlinkError(int link, int counter) {
    Attributes a = nvlinkErrors[link][counter];
    if (a == null) {
      a = nvlink(link).toBuilder().put(ERROR_TYPE, NVLINK_ERROR_TYPES[counter]).build();
      nvlinkErrors[link][counter] = a;
    }
    return a;
  }

  /** The attributes of the Xid counter for one code. */
  Attributes xid(long code) {
    return xid.computeIfAbsent(code, c -> base.toBuilder().put(XID, Long.toString(c)).build());
  }

  /** Whether these attributes still describe the device (its identity did not change). */
  boolean matches(GpuDevice d) {
    return identity.index() == d.index()
        && java.util.Objects.equals(identity.name(), d.name())
        && java.util.Objects.equals(identity.parentUuid(), d.parentUuid())
        && java.util.Objects.equals(identity.migIndex(), d.migIndex())
        && identity.id().equals(d.id());
  }
}
