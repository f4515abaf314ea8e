package dev.gputop.inference.export;

import dev.gputop.inference.stats.SloKind;

/**
 * {@code overview.serving} of the JSON snapshot: across servers, the worst TTFT p99, the worst
 * ITL p50, the total generation throughput, the total of queued requests and the worst SLO
 * attainment. Null when no server has the value. Immutable.
 *
 * @param worstSloAttainment the lowest attainment of any SLO (ttft, itl, e2e, queue) over the
 *     servers' totals
 * @param generationTokensPerJoule the fleet's generated tokens per joule over the window: Σ
 *     generation throughput / Σ power spent on it (each server's throughput × its joules per
 *     generated token), over the servers whose energy per token is known
 * @param goodRequestsPerSecond per SLO, in the order of {@link SloKind},
 *     the sum of the servers' good requests per second, over the servers with that target; an
 *     SLO no server has is absent
 */
public record ServingOverview(
    Double worstTtftP99, Double worstItlP50, Double generationTokensPerSecond, Integer waiting,
    Double worstSloAttainment, Double generationTokensPerJoule,
    java.util.Map<SloKind, Double> goodRequestsPerSecond) {

  public ServingOverview {
    java.util.Map<SloKind, Double> good = new java.util.EnumMap<>(SloKind.class);
    if (goodRequestsPerSecond != null) {
      good.putAll(goodRequestsPerSecond);
    }
    goodRequestsPerSecond = java.util.Collections.unmodifiableMap(good);
  }

  /** An overview without efficiency. */
  public ServingOverview(Double worstTtftP99, Double worstItlP50, Double generationTokensPerSecond,
      Integer waiting, Double worstSloAttainment) {
    this(worstTtftP99, worstItlP50, generationTokensPerSecond, waiting, worstSloAttainment, null, null);
  }
}
