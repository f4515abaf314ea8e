package dev.gputop.receiver;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code overview.serving} of the JSON snapshot, field for field in the document's order (this
 * record is the one list of them): across servers, the worst TTFT p99, the worst
 * ITL p50, the total generation throughput, the total of queued requests and the worst SLO
 * attainment. Null when no server has the value; {@link #NONE} when no receiver contributes one.
 * Computed by the inference receiver. Immutable.
 *
 * @param worstSloAttainment the lowest attainment of any SLO (ttft, itl, e2e, queue) over the
 *     servers' totals
 * @param generationTokensPerJoule the fleet's generated tokens per joule over the window: Σ
 *     generation throughput / Σ power spent on it (each server's throughput × its joules per
 *     generated token), over the servers whose energy per token is known
 * @param goodRequestsPerSecond per SLO by its JSON name, in the inference receiver's SLO order (ttft, itl, e2e, queue),
 *     the sum of the servers' good requests per second, over the servers with that target; an
 *     SLO no server has is absent
 */
public record ServingOverview(
    Double worstTtftP99, Double worstItlP50, Double generationTokensPerSecond, Integer waiting,
    Double worstSloAttainment, Double generationTokensPerJoule,
    Map<String, Double> goodRequestsPerSecond) {

  /** Nothing known: every value null, no SLO. */
  public static final ServingOverview NONE = new ServingOverview(null, null, null, null, null, null, null);

  public ServingOverview {
    goodRequestsPerSecond = goodRequestsPerSecond == null
        ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(goodRequestsPerSecond));
  }
}
