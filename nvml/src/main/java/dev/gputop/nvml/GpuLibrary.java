package dev.gputop.nvml;

/**
 * What the NVML receiver needs from a GPU library, the way OSHI puts its hardware layer behind
 * interfaces: an open session that samples every device and is closed once. {@link Nvml} is the
 * implementation over the JNA binding (and so over the real or the fake libnvidia-ml); tests of
 * the receiver's own logic (entries, alerts, health, metrics, re-opening) can use one written in
 * Java, without gcc. Implementations must allow {@link #sample()} and {@link #close()} from
 * different threads, one call at a time.
 */
interface GpuLibrary extends AutoCloseable {

  /** Opens a session; the NVML receiver calls it on its refresh thread. */
  @FunctionalInterface
  interface Opener {
    /**
     * Opens the library.
     *
     * @param libraryOrNull {@code nvml.library}, or null for the platform default
     * @throws NvmlUnavailableException when it can't be loaded or initialized, saying why
     */
    GpuLibrary open(String libraryOrNull) throws NvmlUnavailableException;
  }

  /** The driver version, e.g. {@code 550.54.15}, or null. */
  String driverVersion();

  /** The library file that was loaded. */
  String libraryFile();

  /** The size of one process entry read from the driver (16, 24, 32), 0 without a process API. */
  int processEntrySize();

  /** Reads every device; never throws for a device's failure (see {@link Nvml#sample()}). */
  GpuSample sample();

  /**
   * Waits up to {@code timeoutMillis} for the next Xid critical error; called from one thread of
   * its own, concurrently with {@link #sample()}, never blocking it (see {@link Nvml#waitForXid}).
   *
   * @return the event, or null when none came
   * @throws InterruptedException when interrupted while waiting
   */
  XidEvent waitForXid(int timeoutMillis) throws InterruptedException;

  /** Ends the session; idempotent. */
  @Override
  void close();
}
