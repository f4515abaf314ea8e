package dev.gputop.nvml;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@link GpuLibrary} written in Java: it returns the samples a test scripts, so the NVML
 * receiver's own logic (entries, alerts, health, metrics, re-opening) is tested without gcc and
 * without the fake libnvidia-ml. Not thread-safe; tests call it from one thread.
 */
final class JavaFakeGpus implements GpuLibrary, GpuLibrary.Opener {

  /** Why {@link #open} fails, or null when it succeeds. */
  String unavailable;
  /** The sample the next {@link #sample()} returns. */
  GpuSample next = GpuSample.empty("550.54.15");
  int opens;
  int samples;
  int closes;

  @Override
  public GpuLibrary open(String libraryOrNull) throws NvmlUnavailableException {
    opens++;
    if (unavailable != null) {
      throw new NvmlUnavailableException(unavailable);
    }
    return this;
  }

  @Override
  public String driverVersion() {
    return next.driverVersion();
  }

  @Override
  public String libraryFile() {
    return "java-fake";
  }

  @Override
  public int processEntrySize() {
    return 24;
  }

  @Override
  public GpuSample sample() {
    samples++;
    return next;
  }

  /** Xid events the next waits return, in order. */
  final java.util.concurrent.BlockingQueue<XidEvent> xids = new java.util.concurrent.LinkedBlockingQueue<>();

  @Override
  public XidEvent waitForXid(int timeoutMillis) throws InterruptedException {
    return xids.poll(timeoutMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    closes++;
  }

  /** A healthy GPU with the given utilization and memory, every other reading N/A. */
  static GpuDevice gpu(int index, String uuid, double utilization, long usedBytes, long totalBytes) {
    return new GpuDevice(
        index, uuid, "NVIDIA H100 80GB HBM3", "00000000:1" + index + ":00.0", null, null, GpuState.OK, null,
        utilization, null, usedBytes, totalBytes, 300.0, null, 60, null, null, null, null, null, null, null,
        null, null, null, GpuFaults.NONE);
  }

  /** A GPU in state failed, with why. */
  static GpuDevice failed(int index, String uuid, String error) {
    return new GpuDevice(
        index, uuid, "NVIDIA H100 80GB HBM3", "00000000:1" + index + ":00.0", null, null, GpuState.FAILED,
        error, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
        null, null, GpuFaults.NONE);
  }

  /** Scripts the next sample. */
  void devices(GpuDevice... devices) {
    next = new GpuSample("550.54.15", List.of(devices), new ArrayList<>(), List.of());
  }
}
