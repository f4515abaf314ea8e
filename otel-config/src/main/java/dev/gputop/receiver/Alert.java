package dev.gputop.receiver;

import java.util.Objects;

/**
 * One {@code alerts[]} entry of the JSON snapshot, the same shape from every receiver; the agent
 * lists the receivers' alerts in their start order. Immutable.
 *
 * @param name what kind of alert: {@code gpu_failed}, {@code gpu_xid} (NVML), {@code
 *     kv_cache_full}, {@code slo_breach}, {@code inference_unhealthy} (inference)
 * @param server the server it concerns, or null for one that concerns no server (a GPU's)
 * @param message what is wrong, in words a person can act on
 */
public record Alert(String name, String server, String message) {

  public Alert {
    Objects.requireNonNull(name, "name");
  }
}
