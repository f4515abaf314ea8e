package dev.gputop.receiver;

/**
 * What the agent reads of a {@code gpus[]} entry beyond writing it: the key of its history and the
 * values the history charts (docs/json-schema.md names them; null is N/A). The NVML receiver's
 * {@code GpuEntry} implements it with its own fields; a receiver of GPUs of another kind would
 * implement it on its entry the same way. Implementations are immutable.
 */
public interface GpuReport {

  /** The GPU's index (the parent's for a MIG instance). */
  int index();

  /** For a MIG instance, its index on the GPU; else null. */
  Integer migIndex();

  /** Fraction of time a kernel ran, 0–1. */
  Double utilization();

  /** Memory in use, bytes. */
  Long memoryUsedBytes();

  /** Power draw, watts. */
  Double powerWatts();

  /** Temperature, °C. */
  Integer temperatureCelsius();
}
