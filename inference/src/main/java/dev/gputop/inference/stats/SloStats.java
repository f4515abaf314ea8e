package dev.gputop.inference.stats;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * The SLO attainment of one server (or one model on it) over the window, per latency: null where
 * no target is configured or the server does not export that histogram. Immutable.
 *
 * @param ttft time to first token
 * @param itl inter-token latency
 * @param e2e end-to-end latency
 * @param queue queue time
 * @param minRequests the fewest requests in the window for a breach to count ({@code
 *     inference.slo.minRequests}); not part of the JSON
 */
public record SloStats(Value ttft, Value itl, Value e2e, Value queue, @JsonIgnore int minRequests) {

  /** No SLO known. */
  public static final SloStats NONE = new SloStats(null, null, null, null, 0);

  /**
   * One SLO. Immutable.
   *
   * @param target the latency target in seconds
   * @param objective the fraction of requests that must meet it
   * @param attainment the fraction of the window's requests at or under the target, 0–1; null
   *     until the window has two scrapes, and while no request completed in it
   * @param burnRate {@code (1 − attainment) / (1 − objective)}: 1 spends the error budget exactly
   *     as fast as the objective allows; null with the attainment
   * @param goodRequestsPerSecond completed requests per second within the target: the window's
   *     request rate times the attainment (for {@code itl}, whose histogram counts tokens, the
   *     rate times the fraction of tokens within it); null with either
   */
  public record Value(Double target, Double objective, Double attainment, Double burnRate,
      Double goodRequestsPerSecond) {

    /** A value without good requests per second (not known yet). */
    public Value(Double target, Double objective, Double attainment, Double burnRate) {
      this(target, objective, attainment, burnRate, null);
    }

    Value withRate(Double requestsPerSecond) {
      Double good = attainment == null || requestsPerSecond == null ? null : requestsPerSecond * attainment;
      return new Value(target, objective, attainment, burnRate, good);
    }
  }

  /**
   * These SLOs with their good requests per second: {@code requestsPerSecond} (the window's
   * completed requests per second) times each attainment, from the same window.
   */
  public SloStats withRequestRate(Double requestsPerSecond) {
    return new SloStats(rate(ttft, requestsPerSecond), rate(itl, requestsPerSecond),
        rate(e2e, requestsPerSecond), rate(queue, requestsPerSecond), minRequests);
  }

  private static Value rate(Value v, Double requestsPerSecond) {
    return v == null ? null : v.withRate(requestsPerSecond);
  }

  /** The SLO of {@code kind}, or null. */
  public Value value(SloKind kind) {
    return kind.value(this);
  }

  /** The lowest attainment of the four, or null when none is known. */
  public Double worstAttainment() {
    Double worst = null;
    for (SloKind k : SloKind.ALL) {
      Value v = value(k);
      if (v != null && v.attainment() != null && (worst == null || v.attainment() < worst)) {
        worst = v.attainment();
      }
    }
    return worst;
  }
}
