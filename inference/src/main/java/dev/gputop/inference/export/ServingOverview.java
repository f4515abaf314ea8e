package dev.gputop.inference.export;

/**
 * {@code overview.serving} of the JSON snapshot: across servers, the worst TTFT p99, the worst
 * ITL p50, the total generation throughput, the total of queued requests and the worst SLO
 * attainment. Null when no server has the value. Immutable.
 *
 * @param worstSloAttainment the lowest attainment of any SLO (ttft, itl, e2e, queue) over the
 *     servers' totals
 */
public record ServingOverview(
    Double worstTtftP99, Double worstItlP50, Double generationTokensPerSecond, Integer waiting,
    Double worstSloAttainment) {}
