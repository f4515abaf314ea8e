package dev.gputop.receiver;

import java.util.List;
import java.util.Objects;

/**
 * A receiver's health as the snapshot's {@code health} object and {@code /healthz} report it.
 * Immutable.
 *
 * @param state {@code healthy}, {@code unhealthy} or {@code unavailable}
 * @param reasons why it is not healthy, in words a person can act on; empty when healthy
 */
public record HealthStatus(State state, List<String> reasons) {

  /** The three states of docs/json-schema.md, "health". */
  public enum State {
    HEALTHY,
    UNHEALTHY,
    UNAVAILABLE;

    /** The lower-case name used in JSON. */
    @com.fasterxml.jackson.annotation.JsonValue
    public String jsonName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public HealthStatus {
    Objects.requireNonNull(state, "state");
    reasons = List.copyOf(reasons);
  }

  public static HealthStatus healthy() {
    return new HealthStatus(State.HEALTHY, List.of());
  }

  public static HealthStatus unhealthy(List<String> reasons) {
    return new HealthStatus(State.UNHEALTHY, reasons);
  }

  public static HealthStatus unavailable(String reason) {
    return new HealthStatus(State.UNAVAILABLE, List.of(reason));
  }
}
