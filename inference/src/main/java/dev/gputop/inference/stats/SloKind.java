package dev.gputop.inference.stats;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.gputop.config.SloTargets;
import dev.gputop.inference.engine.Concept;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * The latencies an SLO can be set on, in the order every output lists them: the {@code slo}
 * attribute of the SLO gauges, the snapshot's {@code slo} object and {@code
 * overview.serving.goodRequestsPerSecond}, the {@code slo_breach} message. The one place that
 * order and the names are written.
 */
public enum SloKind {
  TTFT("ttft", Concept.TTFT, ServerStats::ttft, SloStats::ttft, SloTargets::ttft),
  ITL("itl", Concept.ITL, ServerStats::itl, SloStats::itl, SloTargets::itl),
  E2E("e2e", Concept.E2E, ServerStats::e2e, SloStats::e2e, SloTargets::e2e),
  QUEUE("queue", Concept.QUEUE, ServerStats::queue, SloStats::queue, SloTargets::queue);

  /** Every kind, in order, without the copy {@code values()} makes on each call. */
  public static final List<SloKind> ALL = List.of(values());

  private final String jsonName;
  private final Concept concept;
  private final Function<ServerStats, LatencyStats> latency;
  private final Function<SloStats, SloStats.Value> value;
  private final Function<SloTargets, Duration> target;

  SloKind(String jsonName, Concept concept, Function<ServerStats, LatencyStats> latency,
      Function<SloStats, SloStats.Value> value, Function<SloTargets, Duration> target) {
    this.jsonName = jsonName;
    this.concept = concept;
    this.latency = latency;
    this.value = value;
    this.target = target;
  }

  /** The name in JSON, in the {@code slo} attribute and in {@code inference.slo.*}. */
  @JsonValue
  public String jsonName() {
    return jsonName;
  }

  /** The latency histogram the attainment is computed from. */
  public Concept concept() {
    return concept;
  }

  /** This latency of {@code stats}, or null. */
  public LatencyStats latency(ServerStats stats) {
    return latency.apply(stats);
  }

  /** This SLO of {@code slo}, or null. */
  public SloStats.Value value(SloStats slo) {
    return value.apply(slo);
  }

  /** The target {@code targets} set for this latency, or null. */
  public Duration target(SloTargets targets) {
    return target.apply(targets);
  }
}
