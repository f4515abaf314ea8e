package dev.gputop.inference.export;

import dev.gputop.inference.stats.Efficiency;
import dev.gputop.inference.stats.LatencyStats;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.stats.SloKind;
import dev.gputop.inference.stats.SloStats;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The inference receiver's observable gauges (docs/metrics.md, "Inference receiver: windowed
 * serving statistics"): each statistic twice, the servers' own values in {@code
 * gputop.inference.*} and the models' of a multi-model server in {@code
 * gputop.inference.model.*}, never one beside the other. Every callback reads the latest published {@link InferenceSnapshot} and
 * records its precomputed points; no I/O, no computation beyond a field read. A value that is N/A
 * has no data point.
 *
 * <p>Thread-safe: callbacks may run on any SDK thread. {@link #close()} unregisters every
 * callback and is idempotent.
 */
public final class InferenceMetrics implements AutoCloseable {

  private static final Logger logger = Logger.getLogger(InferenceMetrics.class.getName());

  /** The instrumentation scope name of every instrument here. */
  public static final String SCOPE = "dev.gputop.inference";

  private static final String PREFIX = "gputop.inference.";
  private static final String MODEL_PREFIX = "gputop.inference.model.";
  private static final boolean[] BOTH = {false, true};

  private final Supplier<InferenceSnapshot> snapshot;
  private final List<AutoCloseable> registrations = new ArrayList<>();
  private boolean closed;

  /**
   * Registers the gauges with {@code openTelemetry}.
   *
   * @param snapshot gives the latest snapshot; must be cheap and never block
   */
  public InferenceMetrics(OpenTelemetry openTelemetry, Supplier<InferenceSnapshot> snapshot) {
    this.snapshot = snapshot;
    Meter meter = openTelemetry.getMeter(SCOPE);
    registrations.add(
        meter.gaugeBuilder("gputop.inference.up")
            .setDescription("1 when the last scrape of the server succeeded and its body was read "
                + "as an exposition, else 0.")
            .setUnit("1")
            .ofLongs()
            .buildWithCallback(m -> recordAll("gputop.inference.up", m, InferenceSnapshot::up)));
    registrations.add(
        meter.gaugeBuilder("gputop.inference.server.state")
            .setDescription("The server's state, a state set: one point per state (up, starting, "
                + "down), 1 for the current one, 0 for the others.")
            .setUnit("1")
            .ofLongs()
            .buildWithCallback(m -> recordAll("gputop.inference.server.state", m, InferenceSnapshot::states)));
    registrations.add(
        meter.gaugeBuilder("gputop.inference.served_model")
            .setDescription("1 per model the server serves (the info pattern: join on server for "
                + "model), with its engine.")
            .setUnit("1")
            .ofLongs()
            .buildWithCallback(m -> recordAll("gputop.inference.served_model", m, InferenceSnapshot::info)));
    longGauge(meter, "requests.running", "{request}",
        "Requests in the batch.", ServerStats::running);
    longGauge(meter, "requests.waiting", "{request}",
        "Requests queued for admission.", ServerStats::waiting);
    doubleGauge(meter, "kv_cache.usage_ratio", "1",
        "Fraction of KV-cache blocks in use (0-1).", ServerStats::kvCacheUsage);
    doubleGauge(meter, "prefix_cache.hit_ratio", "1",
        "Prefix-cache hits / queries over the window.", ServerStats::prefixHitRatio);
    doubleGauge(meter, "request.rate", "{request}/s",
        "Completed requests per second over the window.", ServerStats::requestsPerSecond);
    doubleGauge(meter, "prompt_tokens.rate", "{token}/s",
        "Prompt tokens per second over the window.", ServerStats::promptTokensPerSecond);
    doubleGauge(meter, "generation_tokens.rate", "{token}/s",
        "Generated tokens per second over the window.", ServerStats::generationTokensPerSecond);
    doubleGauge(meter, "preemption.rate", "{request}/s",
        "Preemptions per second over the window.", ServerStats::preemptionsPerSecond);
    latency(meter, "ttft", "Time to first token", ServerStats::ttft);
    doubleGauge(meter, "ttft_approx.mean", "s",
        "Approximate mean time to first token (mean queue time + mean prefill batch time) for "
            + "engines without a TTFT histogram (TGI).", ServerStats::ttftApproxMean);
    latency(meter, "itl", "Inter-token latency (per token: the gap between two output tokens)",
        ServerStats::itl);
    latency(meter, "tpot", "Time per output token (per request: decode time / output tokens after "
        + "the first)", ServerStats::tpot);
    latency(meter, "e2e", "End-to-end request latency", ServerStats::e2e);
    latency(meter, "queue", "Time waiting before scheduling", ServerStats::queue);
    doubleGauge(meter, "failed_request.rate", "{request}/s",
        "Requests per second that ended in a server-side error, over the window.",
        ServerStats::failedRequestsPerSecond);
    doubleGauge(meter, "aborted_request.rate", "{request}/s",
        "Requests per second the client aborted or cancelled, over the window.",
        ServerStats::abortedRequestsPerSecond);
    doubleGauge(meter, "spec_decode.acceptance_ratio", "1",
        "Speculative decoding: accepted draft tokens / draft tokens over the window.",
        ServerStats::specDecodeAcceptanceRate);
    latency(meter, "prefill", "Per-request prefill time", ServerStats::prefill);
    latency(meter, "decode", "Per-request decode time", ServerStats::decode);
    length(meter, "prompt_tokens_per_request",
        "Prompt length: prompt tokens per request", s -> s.requestLengths().prompt());
    length(meter, "generation_tokens_per_request",
        "Generation length: tokens generated per request", s -> s.requestLengths().generation());
    efficiency(meter, "power", "W", "Summed power draw of the server's GPUs (newest NVML sample).",
        Efficiency::powerWatts);
    efficiency(meter, "energy_per_generated_token", "J",
        "Energy of the server's GPUs per generated token over the window: Δenergy / Δgenerated tokens.",
        Efficiency::joulesPerGeneratedToken);
    efficiency(meter, "energy_per_prompt_token", "J",
        "Energy of the server's GPUs per prompt token over the window: Δenergy / Δprompt tokens.",
        Efficiency::joulesPerPromptToken);
    efficiency(meter, "generation_tokens_per_gpu.rate", "{token}/s",
        "Generated tokens per second over the window, per GPU of the server.",
        Efficiency::generationTokensPerSecondPerGpu);
    efficiency(meter, "cost_per_million_generated_tokens", "1",
        "inference.costPerGpuHour x GPUs / generated tokens per hour x 10^6 (currency-free).",
        Efficiency::costPerMillionGeneratedTokens);
    slo(meter, "slo.attainment_ratio", "1",
        "Fraction of the window's requests at or under the SLO target (inference.slo), by slo.",
        SloStats.Value::attainment);
    slo(meter, "slo.burn_rate", "1",
        "Error-budget burn rate (1 - attainment) / (1 - objective), by slo.",
        SloStats.Value::burnRate);
    slo(meter, "slo.good_request.rate", "{request}/s",
        "Completed requests per second within the SLO target: the request rate times the attainment, by slo.",
        SloStats.Value::goodRequestsPerSecond);
  }

  /**
   * The two families of one statistic: {@code gputop.inference.<name>} with the servers' own
   * points and {@code gputop.inference.model.<name>} with the per-model points, so that no
   * family holds a server's value beside its models' parts (docs/metrics.md, "No total beside
   * its parts"). The servers' counters ({@link CounterExports}) are named the same way.
   */
  static String family(String name, boolean perModel) {
    return (perModel ? MODEL_PREFIX : PREFIX) + name;
  }

  /** The description of a family: a model family's says so. */
  static String described(String description, boolean perModel) {
    return perModel ? description + " Per served model of a multi-model server." : description;
  }

  /** The SLO gauges: one point per SLO with a value, attribute {@code slo}. */
  private void slo(Meter meter, String rest, String unit, String description,
      Function<SloStats.Value, Double> value) {
    for (boolean perModel : BOTH) {
      String name = family(rest, perModel);
      registrations.add(
          meter.gaugeBuilder(name).setDescription(described(description, perModel)).setUnit(unit)
              .buildWithCallback(m -> eachPoint(name, perModel, p -> {
                SloStats s = p.stats().slo();
                for (SloKind k : SloKind.ALL) {
                  SloStats.Value v = s.value(k);
                  if (v != null) {
                    record(m, value.apply(v), p.slo().get(k.ordinal()));
                  }
                }
              })));
    }
  }

  /**
   * A gauge of the servers' efficiency ({@code gputop.inference.<name>}): server-level only, a
   * server's GPUs are not split by model; a server whose value is N/A has no point.
   */
  private void efficiency(Meter meter, String rest, String unit, String description,
      Function<Efficiency, Double> value) {
    String name = PREFIX + rest;
    registrations.add(
        meter.gaugeBuilder(name).setDescription(description).setUnit(unit).buildWithCallback(m -> {
          try {
            for (EfficiencyPoint p : snapshot.get().efficiency()) {
              record(m, value.apply(p.efficiency()), p.attributes());
            }
          } catch (RuntimeException e) {
            logger.log(Level.FINE, name + " callback failed", e);
          }
        }));
  }

  private void recordAll(String name, ObservableLongMeasurement m,
      Function<InferenceSnapshot, Map<Attributes, Long>> points) {
    try {
      for (Map.Entry<Attributes, Long> e : points.apply(snapshot.get()).entrySet()) {
        m.record(e.getValue(), e.getKey());
      }
    } catch (RuntimeException e) {
      logger.log(Level.FINE, name + " callback failed", e);
    }
  }

  private void doubleGauge(
      Meter meter, String rest, String unit, String description, Function<ServerStats, Double> value) {
    for (boolean perModel : BOTH) {
      String name = family(rest, perModel);
      registrations.add(
          meter.gaugeBuilder(name).setDescription(described(description, perModel)).setUnit(unit)
              .buildWithCallback(
                  m -> eachPoint(name, perModel, p -> record(m, value.apply(p.stats()), p.attributes()))));
    }
  }

  private void longGauge(
      Meter meter, String rest, String unit, String description, Function<ServerStats, Integer> value) {
    for (boolean perModel : BOTH) {
      String name = family(rest, perModel);
      registrations.add(
          meter.gaugeBuilder(name).setDescription(described(description, perModel)).setUnit(unit)
              .ofLongs().buildWithCallback(m -> eachPoint(name, perModel, p -> {
                Integer v = value.apply(p.stats());
                if (v != null) {
                  m.record(v, p.attributes());
                }
              })));
    }
  }

  private void latency(
      Meter meter, String concept, String what, Function<ServerStats, LatencyStats> value) {
    distribution(meter, concept, what, "s", value, true);
  }

  /**
   * A request length distribution in tokens ({@code RequestLengths}): by quantile and its mean,
   * as a latency; no observations gauge (the requests counters count the requests).
   */
  private void length(
      Meter meter, String name, String what, Function<ServerStats, LatencyStats> value) {
    distribution(meter, name, what, "{token}", value, false);
  }

  /** A distribution's gauges: by quantile, {@code .mean} and, if asked, {@code .observations}. */
  private void distribution(Meter meter, String concept, String what, String unit,
      Function<ServerStats, LatencyStats> value, boolean observations) {
    for (boolean perModel : BOTH) {
      String base = family(concept, perModel);
      registrations.add(
          meter.gaugeBuilder(base)
              .setDescription(described(
                  what + " over the window, by quantile (PromQL histogram_quantile).", perModel))
              .setUnit(unit)
              .buildWithCallback(m -> eachPoint(base, perModel, p -> {
                LatencyStats l = value.apply(p.stats());
                if (l != null) {
                  for (int i = 0; i < l.quantiles().size(); i++) {
                    record(m, l.values().get(i), p.quantile(l.quantiles(), i));
                  }
                }
              })));
      registrations.add(
          meter.gaugeBuilder(base + ".mean")
              .setDescription(described(what + ": mean over the window.", perModel))
              .setUnit(unit)
              .buildWithCallback(m -> eachPoint(base + ".mean", perModel, p -> {
                LatencyStats l = value.apply(p.stats());
                if (l != null) {
                  record(m, l.mean(), p.attributes());
                }
              })));
      if (!observations) {
        continue;
      }
      // ".observations", not ".count": Prometheus reserves a _count suffix for histograms and
      // summaries, and promtool flags a gauge that ends in it (PromtoolLintIT).
      registrations.add(
          meter.gaugeBuilder(base + ".observations")
              .setDescription(described(what + ": observations in the window.", perModel))
              .setUnit("{request}")
              .ofLongs()
              .buildWithCallback(m -> eachPoint(base + ".observations", perModel, p -> {
                LatencyStats l = value.apply(p.stats());
                if (l != null && l.count() != null) {
                  m.record(l.count(), p.attributes());
                }
              })));
    }
  }

  /**
   * Runs {@code action} on every point of the latest snapshot of one kind (the servers' own, or
   * per model). A failure is logged at FINE as "{@code name} callback failed" and never escapes
   * into the SDK's collection.
   */
  private void eachPoint(String name, boolean perModel, Consumer<StatsPoint> action) {
    try {
      for (StatsPoint p : snapshot.get().points()) {
        if (p.perModel() == perModel) {
          action.accept(p);
        }
      }
    } catch (RuntimeException e) {
      logger.log(Level.FINE, name + " callback failed", e);
    }
  }

  private static void record(ObservableDoubleMeasurement m, Double v, Attributes a) {
    if (v != null && Double.isFinite(v)) {
      m.record(v, a);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (AutoCloseable r : registrations) {
      try {
        r.close();
      } catch (Exception e) {
        logger.log(Level.FINE, "closing an inference instrument failed", e);
      }
    }
  }
}
