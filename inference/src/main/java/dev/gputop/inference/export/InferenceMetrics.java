package dev.gputop.inference.export;

import dev.gputop.inference.stats.LatencyStats;
import dev.gputop.inference.stats.ServerStats;
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
 * serving statistics"). Every callback reads the latest published {@link InferenceSnapshot} and
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
            .setDescription("1 when the last scrape of the server succeeded, else 0.")
            .setUnit("1")
            .ofLongs()
            .buildWithCallback(this::recordUp));
    longGauge(meter, "gputop.inference.requests.running", "{request}",
        "Requests in the batch.", ServerStats::running);
    longGauge(meter, "gputop.inference.requests.waiting", "{request}",
        "Requests queued for admission.", ServerStats::waiting);
    doubleGauge(meter, "gputop.inference.kv_cache.usage", "1",
        "Fraction of KV-cache blocks in use (0-1).", ServerStats::kvCacheUsage);
    doubleGauge(meter, "gputop.inference.prefix_cache.hit_ratio", "1",
        "Prefix-cache hits / queries over the window.", ServerStats::prefixHitRatio);
    doubleGauge(meter, "gputop.inference.request.rate", "{request}/s",
        "Completed requests per second over the window.", ServerStats::requestsPerSecond);
    doubleGauge(meter, "gputop.inference.prompt_tokens.rate", "{token}/s",
        "Prompt tokens per second over the window.", ServerStats::promptTokensPerSecond);
    doubleGauge(meter, "gputop.inference.generation_tokens.rate", "{token}/s",
        "Generated tokens per second over the window.", ServerStats::generationTokensPerSecond);
    doubleGauge(meter, "gputop.inference.preemption.rate", "{request}/s",
        "Preemptions per second over the window.", ServerStats::preemptionsPerSecond);
    latency(meter, "ttft", "Time to first token", ServerStats::ttft);
    doubleGauge(meter, "gputop.inference.ttft_approx.mean", "s",
        "Approximate mean time to first token (mean queue time + mean prefill batch time) for "
            + "engines without a TTFT histogram (TGI).", ServerStats::ttftApproxMean);
    latency(meter, "itl", "Inter-token latency", ServerStats::itl);
    latency(meter, "e2e", "End-to-end request latency", ServerStats::e2e);
    latency(meter, "queue", "Time waiting before scheduling", ServerStats::queue);
    doubleGauge(meter, "gputop.inference.failed_request.rate", "{request}/s",
        "Requests per second that ended in a server-side error, over the window.",
        ServerStats::failedRequestsPerSecond);
    doubleGauge(meter, "gputop.inference.aborted_request.rate", "{request}/s",
        "Requests per second the client aborted or cancelled, over the window.",
        ServerStats::abortedRequestsPerSecond);
    doubleGauge(meter, "gputop.inference.spec_decode.acceptance_rate", "1",
        "Speculative decoding: accepted draft tokens / draft tokens over the window.",
        ServerStats::specDecodeAcceptanceRate);
    latency(meter, "prefill", "Per-request prefill time", ServerStats::prefill);
    latency(meter, "decode", "Per-request decode time", ServerStats::decode);
    slo(meter, "gputop.inference.slo.attainment",
        "Fraction of the window's requests at or under the SLO target (inference.slo), by slo.",
        SloStats.Value::attainment);
    slo(meter, "gputop.inference.slo.burn_rate",
        "Error-budget burn rate (1 - attainment) / (1 - objective), by slo.",
        SloStats.Value::burnRate);
  }

  /** The SLO gauges: one point per SLO with a value, attribute {@code slo}. */
  private void slo(Meter meter, String name, String description,
      Function<SloStats.Value, Double> value) {
    registrations.add(
        meter.gaugeBuilder(name).setDescription(description).setUnit("1").buildWithCallback(
            m -> eachPoint(name, p -> {
              SloStats s = p.stats().slo();
              SloStats.Value[] values = {s.ttft(), s.itl(), s.e2e(), s.queue()};
              for (int i = 0; i < values.length; i++) {
                if (values[i] != null) {
                  record(m, value.apply(values[i]), p.slo().get(i));
                }
              }
            })));
  }

  private void recordUp(ObservableLongMeasurement m) {
    try {
      for (Map.Entry<Attributes, Long> e : snapshot.get().up().entrySet()) {
        m.record(e.getValue(), e.getKey());
      }
    } catch (RuntimeException e) {
      logger.log(Level.FINE, "inference up callback failed", e);
    }
  }

  private void doubleGauge(
      Meter meter, String name, String unit, String description, Function<ServerStats, Double> value) {
    registrations.add(
        meter.gaugeBuilder(name).setDescription(description).setUnit(unit).buildWithCallback(
            m -> eachPoint(name, p -> record(m, value.apply(p.stats()), p.attributes()))));
  }

  private void longGauge(
      Meter meter, String name, String unit, String description, Function<ServerStats, Integer> value) {
    registrations.add(
        meter.gaugeBuilder(name).setDescription(description).setUnit(unit).ofLongs().buildWithCallback(
            m -> eachPoint(name, p -> {
              Integer v = value.apply(p.stats());
              if (v != null) {
                m.record(v, p.attributes());
              }
            })));
  }

  private void latency(
      Meter meter, String concept, String what, Function<ServerStats, LatencyStats> value) {
    String base = "gputop.inference." + concept;
    registrations.add(
        meter.gaugeBuilder(base)
            .setDescription(what + " over the window, by quantile (PromQL histogram_quantile).")
            .setUnit("s")
            .buildWithCallback(m -> eachPoint(base, p -> {
              LatencyStats l = value.apply(p.stats());
              if (l != null) {
                record(m, l.p50(), p.p50());
                record(m, l.p90(), p.p90());
                record(m, l.p99(), p.p99());
              }
            })));
    registrations.add(
        meter.gaugeBuilder(base + ".mean")
            .setDescription(what + ": mean over the window.")
            .setUnit("s")
            .buildWithCallback(m -> eachPoint(base + ".mean", p -> {
              LatencyStats l = value.apply(p.stats());
              if (l != null) {
                record(m, l.mean(), p.attributes());
              }
            })));
    // ".observations", not ".count": Prometheus reserves a _count suffix for histograms and
    // summaries, and promtool flags a gauge that ends in it (PromtoolLintIT).
    registrations.add(
        meter.gaugeBuilder(base + ".observations")
            .setDescription(what + ": observations in the window.")
            .setUnit("{request}")
            .ofLongs()
            .buildWithCallback(m -> eachPoint(base + ".observations", p -> {
              LatencyStats l = value.apply(p.stats());
              if (l != null && l.count() != null) {
                m.record(l.count(), p.attributes());
              }
            })));
  }

  /**
   * Runs {@code action} on every point of the latest snapshot. A failure is logged at FINE as
   * "{@code name} callback failed" and never escapes into the SDK's collection.
   */
  private void eachPoint(String name, Consumer<StatsPoint> action) {
    try {
      for (StatsPoint p : snapshot.get().points()) {
        action.accept(p);
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
