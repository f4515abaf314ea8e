package dev.gputop.nvml.internal.jna;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;

/** An {@code nvmlEventSet_t}: the opaque handle of an event set, valid until it is freed. Immutable. */
public final class EventSet {

  private final Pointer pointer;

  private EventSet(Pointer pointer) {
    this.pointer = pointer;
  }

  Pointer pointer() {
    return pointer;
  }

  @Override
  public String toString() {
    return "nvmlEventSet_t@" + Long.toHexString(Pointer.nativeValue(pointer));
  }

  /** The out-parameter of {@code nvmlEventSetCreate}. Not thread-safe. */
  public static final class Out extends PointerByReference {
    /** The set NVML created, or null. */
    public EventSet set() {
      Pointer p = getValue();
      return p == null ? null : new EventSet(p);
    }
  }
}
