package dev.gputop.config;

import java.time.Duration;

/**
 * Service-level objectives of a server ({@code inference.slo}, an override, or an endpoint's
 * {@code slo}): a latency target per concept and the objective, the fraction of requests that
 * must meet each target. A null field is not set here: in {@code inference.slo} it means "no
 * target" (no objective: the default), in an override it means "keep what applies already".
 * Immutable.
 *
 * @param ttft time-to-first-token target
 * @param itl inter-token-latency target
 * @param e2e end-to-end-latency target
 * @param queue queue-time target
 * @param objective fraction of requests that must meet a target, in (0, 1), e.g. 0.99
 * @param minRequests the fewest requests in the window for {@code slo_breach} to fire
 */
public record SloTargets(
    Duration ttft, Duration itl, Duration e2e, Duration queue, Double objective, Integer minRequests) {

  /** Objective when none is configured. */
  public static final double DEFAULT_OBJECTIVE = 0.99;

  /** {@code minRequests} when none is configured: a handful of requests is not a breach. */
  public static final int DEFAULT_MIN_REQUESTS = 20;

  /** Nothing set. */
  public static final SloTargets NONE = new SloTargets(null, null, null, null, null, null);

  public SloTargets {
    for (Duration d : new Duration[] {ttft, itl, e2e, queue}) {
      if (d != null && (d.isNegative() || d.isZero())) {
        throw new IllegalArgumentException("an SLO target must be positive");
      }
    }
    if (objective != null && !(objective > 0 && objective < 1)) {
      throw new IllegalArgumentException("an SLO objective must lie strictly between 0 and 1");
    }
    if (minRequests != null && minRequests < 0) {
      throw new IllegalArgumentException("minRequests must not be negative");
    }
  }

  /** The defaults of {@code inference.slo}: no targets, objective 0.99, minRequests 20. */
  public static SloTargets defaults() {
    return new SloTargets(null, null, null, null, DEFAULT_OBJECTIVE, DEFAULT_MIN_REQUESTS);
  }

  /** These targets with every field that {@code other} sets replaced by it. */
  public SloTargets with(SloTargets other) {
    if (other == null) {
      return this;
    }
    return new SloTargets(
        other.ttft != null ? other.ttft : ttft,
        other.itl != null ? other.itl : itl,
        other.e2e != null ? other.e2e : e2e,
        other.queue != null ? other.queue : queue,
        other.objective != null ? other.objective : objective,
        other.minRequests != null ? other.minRequests : minRequests);
  }

  /** Whether any latency target is set. */
  public boolean hasTargets() {
    return ttft != null || itl != null || e2e != null || queue != null;
  }
}
