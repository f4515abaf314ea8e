package dev.gputop.inference.export;

import dev.gputop.inference.stats.ServerCounters.Total;
import dev.gputop.inference.stats.ServerCounters;
import dev.gputop.inference.stats.ServerEnergy;
import dev.gputop.receiver.ExportedCounter;
import java.util.Collection;
import java.util.List;

/**
 * Turns a server's {@link ServerCounters} into monotonic cumulative sums (docs/metrics.md,
 * "Counters"): {@code gputop.inference.requests} by {@code outcome}, the token totals and
 * preemptions, each with the agent's first scrape of the server as start time; a server serving
 * several models also gets one point per model in the {@code gputop.inference.model.*} families,
 * as its gauges do. A total the server never exported has no point.
 *
 * <p>Stateless; reads the counters on the refresh thread that owns them.
 */
final class CounterExports {

  /**
   * The values of {@code outcome}, by index ({@code ""}: a counter without one): {@code error} is
   * a server-side failure, {@code aborted} a request the client gave up (each engine profile says
   * which of its reasons are which, docs/engines/).
   */
  static final List<String> OUTCOMES = List.of("", "success", "error", "aborted");

  /**
   * One total's server and model families, named and described as the gauges' families are
   * ({@link InferenceMetrics#family}), once here rather than again for every point of every
   * refresh.
   */
  private record Family(String name, String modelName, String description, String modelDescription,
      String unit, Total total, int outcome) {

    Family(String family, String description, String unit, Total total, int outcome) {
      this(InferenceMetrics.family(family, false), InferenceMetrics.family(family, true),
          InferenceMetrics.described(description, false), InferenceMetrics.described(description, true),
          unit, total, outcome);
    }
  }

  private static final String REQUESTS =
      "Requests finished since the agent's first scrape of the server, by outcome.";

  private static final List<Family> FAMILIES = List.of(
      new Family("requests", REQUESTS, "{request}", Total.SUCCESS_REQUESTS, 1),
      new Family("requests", REQUESTS, "{request}", Total.ERROR_REQUESTS, 2),
      new Family("requests", REQUESTS, "{request}", Total.ABORTED_REQUESTS, 3),
      new Family("prompt_tokens", "Prompt tokens processed since the agent's first scrape of the server.",
          "{token}", Total.PROMPT_TOKENS, 0),
      new Family("generation_tokens", "Tokens generated since the agent's first scrape of the server.",
          "{token}", Total.GENERATION_TOKENS, 0),
      new Family("cached_prompt_tokens",
          "Prompt tokens served from the prefix cache since the agent's first scrape of the server.",
          "{token}", Total.CACHED_PROMPT_TOKENS, 0),
      new Family("preemptions", "Requests preempted since the agent's first scrape of the server.",
          "{request}", Total.PREEMPTIONS, 0));

  private CounterExports() {}

  /**
   * Adds {@code gputop.inference.energy}: the energy of the server's GPUs since the agent's first
   * sample, in joules, with that sample as start time (docs/metrics.md, "Counters").
   */
  static void addEnergy(List<ExportedCounter> out, ExportCache.Server server, ServerEnergy energy) {
    out.add(new ExportedCounter("gputop.inference.energy",
        "Energy of the server's GPUs since the agent's first sample of them (NVML's energy counter,"
            + " or power integrated where a GPU lacks it).",
        "J", server.counterAttributes(null, 0), energy.startEpochNanos(), energy.epochNanos(),
        energy.joules()));
  }

  /**
   * Adds the server's totals to {@code out}, and its models' when it serves several ({@code
   * models} empty otherwise).
   */
  static void addTo(List<ExportedCounter> out, ExportCache.Server server, ServerCounters counters,
      Collection<String> models) {
    long start = counters.startEpochNanos();
    long at = counters.epochNanos();
    for (Family f : FAMILIES) {
      double v = counters.total(f.total);
      if (!Double.isNaN(v)) {
        out.add(new ExportedCounter(f.name, f.description, f.unit,
            server.counterAttributes(null, f.outcome), start, at, v));
      }
      for (String model : models) {
        double m = counters.total(model, f.total);
        if (!Double.isNaN(m)) {
          out.add(new ExportedCounter(f.modelName, f.modelDescription, f.unit,
              server.counterAttributes(model, f.outcome), start, at, m));
        }
      }
    }
  }
}
