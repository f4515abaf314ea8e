package dev.gputop.inference.stats;

import dev.gputop.config.services.GpuPowerSource;
import dev.gputop.config.services.GpuReading;
import dev.gputop.inference.stats.ServerCounters.Total;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The energy of one server's GPUs (docs/inference.md, "Efficiency"), sampled at each of its
 * readable scrapes from the NVML receiver's latest readings: a monotonic total in joules since
 * the agent's first sample ({@code gputop.inference.energy}), and, per scrape, that total beside
 * the server's generation and prompt token totals ({@link ServerCounters}), so that joules per
 * token over the window are Δenergy / Δtokens between the same two scrapes, as PromQL's {@code
 * increase(energy) / increase(generation_tokens)} computes them from the exported counters.
 *
 * <p>Each GPU adds the increase of NVML's total energy counter since its last reading; a value
 * lower than the last one is a reset (a driver reload restarts the counter) and counts in full,
 * as Prometheus counts a counter reset. A GPU without the counter (before Volta) adds its power
 * integrated over the NVML samples (the trapezoid between two readings), and the values of a
 * window that holds such an increase are marked estimated. A GPU that is not read at a scrape
 * (fallen off the bus, NVML not answering) makes that scrape's sample incomplete and is forgotten:
 * when it is back it counts from its next reading on, so the total never jumps, and a window that
 * holds an incomplete sample has no joules per token. The same holds for a scrape where the
 * server's GPUs are shared with another server or changed.
 *
 * <p>Bounded: one reading per GPU of the server, one sample per scrape in the window (at most
 * {@code maxSamples}). Not thread-safe: owned by the receiver's refresh thread.
 */
public final class ServerEnergy {

  /** One scrape's totals. */
  private record Sample(
      long nanos, double joules, double generationTokens, double promptTokens, boolean complete,
      boolean estimated) {}

  /** A GPU's last reading. */
  private static final class Last {
    Double energy;
    Double power;
    long sampleNanos;
  }

  private final int maxSamples;
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();
  private final Map<Integer, Last> last = new HashMap<>();
  private List<Integer> gpus = List.of();
  private double joules;
  private boolean started;
  private long startEpochNanos;
  private long epochNanos;
  private long lastSampleNanos = Long.MIN_VALUE;

  /** @param maxSamples the most scrapes a window holds (the server's window's own bound) */
  public ServerEnergy(int maxSamples) {
    this.maxSamples = Math.max(2, maxSamples);
  }

  /**
   * Adds the server's readable scrape taken at {@code nanos} (monotonic, the window's key) and
   * {@code epochNanos} (wall clock), after its counters took it.
   *
   * @param gpus the server's GPUs (NVML indices), not empty
   * @param shared whether another server runs on one of them: nothing is attributed then
   * @param readings the NVML receiver's latest readings
   * @param counters the server's totals, this scrape included
   */
  public void add(long nanos, long epochNanos, List<Integer> gpus, boolean shared,
      GpuPowerSource.Readings readings, ServerCounters counters) {
    boolean complete = !shared && gpus.equals(this.gpus);
    if (!gpus.equals(this.gpus) || shared) {
      last.clear(); // other GPUs, or no longer only its own: every GPU starts again
      this.gpus = List.copyOf(gpus);
    }
    boolean fresh = readings.sampleNanos() != lastSampleNanos;
    double delta = 0;
    boolean estimated = false;
    if (!shared && fresh) {
      for (Integer index : gpus) {
        GpuReading r = reading(readings, index);
        Last l = last.get(index);
        if (r == null || r.lost() || (r.energyJoules() == null && r.powerWatts() == null)) {
          last.remove(index);
          complete = false;
          continue;
        }
        if (l == null) {
          l = new Last();
          last.put(index, l);
          complete = false; // no increase known for this GPU yet
        } else if (r.energyJoules() != null && l.energy != null) {
          double e = r.energyJoules();
          delta += e >= l.energy ? e - l.energy : e; // lower: the driver reloaded, counted as Prometheus does
        } else if (r.energyJoules() == null && r.powerWatts() != null && l.power != null) {
          delta += (r.powerWatts() + l.power) / 2 * (readings.sampleNanos() - l.sampleNanos) / 1e9;
          estimated = true;
        } else {
          complete = false; // the counter came or went: no increase this time
        }
        l.energy = r.energyJoules();
        l.power = r.powerWatts();
        l.sampleNanos = readings.sampleNanos();
      }
      lastSampleNanos = readings.sampleNanos();
    } else if (!fresh && samples.peekLast() != null) {
      complete = complete && samples.peekLast().complete; // no new reading: no increase
    }
    joules += delta;
    if (!started) {
      started = true;
      startEpochNanos = epochNanos;
    }
    this.epochNanos = epochNanos;
    samples.addLast(new Sample(nanos, joules, counters.total(Total.GENERATION_TOKENS),
        counters.total(Total.PROMPT_TOKENS), complete, estimated));
    while (samples.size() > maxSamples) {
      samples.removeFirst();
    }
  }

  private static GpuReading reading(GpuPowerSource.Readings readings, int index) {
    for (GpuReading r : readings.gpus()) {
      if (r.index() == index) {
        return r;
      }
    }
    return null;
  }

  /** Drops the samples before {@code oldestNanos}, the oldest scrape of the server's window. */
  public void trim(long oldestNanos) {
    while (!samples.isEmpty() && samples.peekFirst().nanos() < oldestNanos) {
      samples.removeFirst();
    }
  }

  /** Whether a sample was added yet: only then is the total exported. */
  public boolean started() {
    return started;
  }

  /** The GPUs' energy attributed to the server since the agent's first sample, in joules. */
  public double joules() {
    return joules;
  }

  /** The agent's first sample (wall clock): the total's start time. */
  public long startEpochNanos() {
    return startEpochNanos;
  }

  /** The newest sample (wall clock). */
  public long epochNanos() {
    return epochNanos;
  }

  /**
   * The window's energy per token: Δenergy / Δtokens between the oldest and the newest sample
   * since {@code oldestNanos}.
   */
  public Window window(long oldestNanos) {
    Sample first = null;
    Sample newest = null;
    boolean complete = true;
    boolean estimated = false;
    for (Iterator<Sample> it = samples.iterator(); it.hasNext(); ) {
      Sample s = it.next();
      if (s.nanos() < oldestNanos) {
        continue;
      }
      if (first == null) {
        first = s;
        continue;
      }
      newest = s;
      complete &= s.complete();
      estimated |= s.estimated();
    }
    if (newest == null) {
      return new Window(null, null, false, true);
    }
    if (!complete) {
      return new Window(null, null, false, false);
    }
    double energy = newest.joules() - first.joules();
    return new Window(perToken(energy, newest.generationTokens() - first.generationTokens()),
        perToken(energy, newest.promptTokens() - first.promptTokens()), estimated, true);
  }

  private static Double perToken(double joules, double tokens) {
    return tokens > 0 && Double.isFinite(tokens) ? joules / tokens : null;
  }

  /**
   * The energy per token of a window.
   *
   * @param joulesPerGeneratedToken Δenergy / Δgenerated tokens, null while no token was generated
   * @param joulesPerPromptToken Δenergy / Δprompt tokens, null where prompt tokens aren't counted
   * @param estimated whether a GPU's increase was integrated from its power
   * @param complete false when a GPU of the server was not read at a scrape of the window
   */
  public record Window(
      Double joulesPerGeneratedToken, Double joulesPerPromptToken, boolean estimated,
      boolean complete) {}
}
