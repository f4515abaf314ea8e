package dev.gputop.config.services;

import java.util.List;

/**
 * Each GPU's power, energy counter, utilization and memory from the NVML receiver's latest
 * sample, for the inference receiver's efficiency (joules per token, tokens per GPU). Published
 * by the NVML receiver through {@link dev.gputop.receiver.ReceiverContext#publish}. Implementations
 * must be thread-safe and must not do I/O in these methods.
 */
public interface GpuPowerSource {

  /**
   * The latest sample's GPUs, in index order (empty while NVML is unavailable), with the moment
   * it was taken.
   */
  Readings gpuReadings();

  /**
   * One sample of every GPU. Immutable.
   *
   * @param sampleNanos when the sample was taken, on the agent clock's monotonic time ({@code
   *     Clock.nanoTime()}); 0 for no sample yet
   * @param gpus one reading per GPU, in index order
   */
  record Readings(long sampleNanos, List<GpuReading> gpus) {
    /** No sample. */
    public static final Readings NONE = new Readings(0, List.of());

    public Readings {
      gpus = List.copyOf(gpus);
    }
  }
}
