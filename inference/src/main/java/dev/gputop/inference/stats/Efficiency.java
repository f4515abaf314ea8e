package dev.gputop.inference.stats;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.gputop.config.services.GpuPowerSource;
import dev.gputop.config.services.GpuReading;
import java.util.ArrayList;
import java.util.List;

/**
 * A server's {@code efficiency} (docs/inference.md, "Efficiency"): its GPUs as NVML reads them,
 * their summed power, the energy per generated and per prompt token over the window, the
 * generation throughput per GPU and, with {@code inference.costPerGpuHour}, the cost of a million
 * generated tokens. Null values are N/A; {@code unavailable} says why all of them are. Immutable.
 *
 * @param unavailable why there are no values: {@link #NO_GPUS}, {@link #SHARED}, or {@link
 *     #GPU_LOST} for the window's energy only (power and throughput may still be known); null
 *     when nothing is missing for a reason of the GPUs'
 * @param gpus the server's GPUs, each as the latest NVML sample read it
 * @param powerWatts the summed power draw of its GPUs, newest sample; null unless every GPU reports it
 * @param joulesPerGeneratedToken Δenergy of its GPUs / Δgenerated tokens over the window
 * @param joulesPerPromptToken Δenergy / Δprompt tokens over the window, where prompt tokens are counted
 * @param estimated whether a GPU's energy in the window was integrated from its power samples
 *     (a GPU without NVML's energy counter) rather than read from the counter
 * @param generationTokensPerSecondPerGpu generated tokens per second over the window / its GPUs
 * @param costPerMillionGeneratedTokens {@code costPerGpuHour} × GPUs / 3600 / generated tokens
 *     per second × 10⁶, in the currency of {@code inference.costPerGpuHour}
 */
public record Efficiency(
    String unavailable,
    List<Gpu> gpus,
    Double powerWatts,
    Double joulesPerGeneratedToken,
    Double joulesPerPromptToken,
    boolean estimated,
    Double generationTokensPerSecondPerGpu,
    @JsonInclude(JsonInclude.Include.NON_NULL) Double costPerMillionGeneratedTokens) {

  /** The server's GPUs are not known: not discovered through NVML's processes, no {@code gpus:}. */
  public static final String NO_GPUS = "no_gpus";

  /** One of its GPUs also runs another server: the energy can't be split without a guess. */
  public static final String SHARED = "shared";

  /** A GPU of the server was not read at a scrape of the window (fallen off the bus, NVML down). */
  public static final String GPU_LOST = "gpu_lost";

  /** A server whose GPUs are unknown. */
  public static final Efficiency NONE =
      new Efficiency(NO_GPUS, List.of(), null, null, null, false, null, null);

  public Efficiency {
    gpus = List.copyOf(gpus);
  }

  /**
   * One GPU of the server as the latest NVML sample read it ({@code lost}: not answering).
   *
   * @param index the NVML index
   * @param utilization fraction of time a kernel ran, 0-1
   * @param memoryUsedBytes memory in use
   * @param memoryTotalBytes memory installed
   * @param powerWatts power draw
   * @param lost whether the GPU was not read (fallen off the bus, or not in NVML's sample)
   */
  public record Gpu(int index, Double utilization, Long memoryUsedBytes, Long memoryTotalBytes,
      Double powerWatts, boolean lost) {}

  /**
   * A server's efficiency.
   *
   * @param gpus its GPUs (empty: unknown)
   * @param shared whether one of them runs another server too
   * @param readings NVML's latest readings
   * @param window its energy over the window, or null when not sampled
   * @param generationTokensPerSecond its generation throughput over the window, or null
   * @param costPerGpuHour {@code inference.costPerGpuHour}, or null
   */
  public static Efficiency of(List<Integer> gpus, boolean shared, GpuPowerSource.Readings readings,
      ServerEnergy.Window window, Double generationTokensPerSecond, Double costPerGpuHour) {
    if (gpus.isEmpty()) {
      return NONE;
    }
    List<Gpu> devices = new ArrayList<>(gpus.size());
    double power = 0;
    boolean powerKnown = true;
    for (Integer index : gpus) {
      GpuReading r = null;
      for (GpuReading g : readings.gpus()) {
        if (g.index() == index) {
          r = g;
        }
      }
      if (r == null || r.lost()) {
        devices.add(new Gpu(index, null, null, null, null, true));
        powerKnown = false;
        continue;
      }
      devices.add(new Gpu(index, r.utilization(), r.memoryUsedBytes(), r.memoryTotalBytes(),
          r.powerWatts(), false));
      if (r.powerWatts() == null) {
        powerKnown = false;
      } else {
        power += r.powerWatts();
      }
    }
    if (shared) {
      return new Efficiency(SHARED, devices, null, null, null, false, null, null);
    }
    Double perGpu = generationTokensPerSecond == null ? null : generationTokensPerSecond / gpus.size();
    Double cost = costPerGpuHour == null || generationTokensPerSecond == null || !(generationTokensPerSecond > 0)
        ? null : costPerGpuHour * gpus.size() / 3600 / generationTokensPerSecond * 1e6;
    boolean lost = window != null && !window.complete();
    return new Efficiency(lost ? GPU_LOST : null, devices, powerKnown ? power : null,
        window == null ? null : window.joulesPerGeneratedToken(),
        window == null ? null : window.joulesPerPromptToken(),
        window != null && window.estimated(), perGpu, cost);
  }
}
