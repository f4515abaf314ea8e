package dev.gputop.config;

import java.util.List;
import java.util.Objects;

/**
 * {@code inference.slo}: the objectives every server gets, and overrides per engine, model or
 * server name. What applies to a server (or one of its models), weakest first: {@code
 * inference.slo}, then every matching override in the order written (a later one wins for the
 * fields it sets), then the endpoint's own {@code inference.endpoints[].slo}. Immutable.
 *
 * @param base {@code inference.slo.{ttft,itl,e2e,queue,objective,minRequests}}
 * @param overrides {@code inference.slo.overrides[]}
 */
public record SloConfig(SloTargets base, List<SloOverride> overrides) {

  public SloConfig {
    Objects.requireNonNull(base, "base");
    overrides = List.copyOf(overrides);
    if (base.objective() == null || base.minRequests() == null) {
      base = SloTargets.defaults().with(base);
    }
  }

  /** No targets; objective 0.99, minRequests 20. */
  public static SloConfig defaults() {
    return new SloConfig(SloTargets.defaults(), List.of());
  }

  /**
   * The objectives of one server or model, objective and minRequests always set.
   *
   * @param model the model (the server's only model for its total), or null
   * @param endpoint the endpoint's own {@code slo}, or null (discovered servers, none set)
   */
  public SloTargets resolve(String server, String engine, String model, SloTargets endpoint) {
    SloTargets t = base;
    for (SloOverride o : overrides) {
      if (o.matches(server, engine, model)) {
        t = t.with(o.targets());
      }
    }
    return t.with(endpoint);
  }
}
