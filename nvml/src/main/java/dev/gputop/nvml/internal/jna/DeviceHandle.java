package dev.gputop.nvml.internal.jna;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;

/**
 * An {@code nvmlDevice_t}: the opaque handle NVML gives for a GPU or MIG instance. It is valid only
 * inside the {@code nvmlInit} scope that produced it and says nothing about which device it is
 * (devices are identified by UUID), so it is a type of its own rather than a bare {@link Pointer}
 * that could be passed where any pointer goes. Immutable.
 */
public final class DeviceHandle {

  private final Pointer pointer;

  private DeviceHandle(Pointer pointer) {
    this.pointer = pointer;
  }

  /** The handle of a pointer NVML returned, or null for NULL. */
  static DeviceHandle of(Pointer pointer) {
    return pointer == null ? null : new DeviceHandle(pointer);
  }

  /** The native pointer, for the binding's calls only. */
  Pointer pointer() {
    return pointer;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeviceHandle h && Pointer.nativeValue(h.pointer) == Pointer.nativeValue(pointer);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(Pointer.nativeValue(pointer));
  }

  @Override
  public String toString() {
    return "nvmlDevice_t@" + Long.toHexString(Pointer.nativeValue(pointer));
  }

  /** The out-parameter of the calls that return a handle ({@code nvmlDevice_t *device}). Not thread-safe. */
  public static final class Out extends PointerByReference {
    /** The handle NVML wrote, or null when it wrote none. */
    public DeviceHandle handle() {
      Pointer p = getValue();
      return p == null ? null : new DeviceHandle(p);
    }
  }
}
