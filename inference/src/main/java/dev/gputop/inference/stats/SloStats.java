package dev.gputop.inference.stats;

/**
 * The SLO attainment of one server (or one model on it) over the window, per latency: null where
 * no target is configured or the server does not export that histogram. Immutable.
 *
 * @param ttft time to first token
 * @param itl inter-token latency
 * @param e2e end-to-end latency
 * @param queue queue time
 */
public record SloStats(Value ttft, Value itl, Value e2e, Value queue) {

  /** No SLO known. */
  public static final SloStats NONE = new SloStats(null, null, null, null);

  /**
   * One SLO. Immutable.
   *
   * @param target the latency target in seconds
   * @param objective the fraction of requests that must meet it
   * @param attainment the fraction of the window's requests at or under the target, 0–1; null
   *     until the window has two scrapes, and while no request completed in it
   * @param burnRate {@code (1 − attainment) / (1 − objective)}: 1 spends the error budget exactly
   *     as fast as the objective allows; null with the attainment
   */
  public record Value(Double target, Double objective, Double attainment, Double burnRate) {}

  /** The lowest attainment of the four, or null when none is known. */
  public Double worstAttainment() {
    Double worst = null;
    for (Value v : new Value[] {ttft, itl, e2e, queue}) {
      if (v != null && v.attainment() != null && (worst == null || v.attainment() < worst)) {
        worst = v.attainment();
      }
    }
    return worst;
  }
}
