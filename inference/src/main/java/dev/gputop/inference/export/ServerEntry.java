package dev.gputop.inference.export;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.gputop.inference.stats.ServerStats;
import java.util.List;

/**
 * One {@code inference[]} entry of the JSON snapshot, field for field as docs/json-schema.md names
 * them; null is N/A. The statistics are {@link ServerStats}' own fields, written inline after
 * {@code pids} (they are declared there and nowhere else). Built by {@link SnapshotBuilder}.
 * Immutable.
 *
 * @param name the server's name
 * @param engine the engine's id ({@code vllm}, {@code sglang}, ... or {@code unknown})
 * @param url the metrics URL
 * @param source {@code discovered} or {@code configured}
 * @param state {@code up}, {@code down} or {@code starting}
 * @param error why the last scrape failed, or null
 * @param gpus NVML indices of the GPUs its processes use
 * @param pids its processes
 * @param stats the windowed statistics ({@link ServerStats#EMPTY} while down)
 * @param models the same statistics per served model when the server serves several, else empty
 * @param kubernetes the pod and container the server runs in ({@code namespace}, {@code pod},
 *     {@code container}, {@code podUid}), or null outside Kubernetes (then not in the JSON)
 */
public record ServerEntry(
    String name,
    String engine,
    String url,
    String source,
    String state,
    String error,
    List<Integer> gpus,
    List<Long> pids,
    @JsonUnwrapped ServerStats stats,
    List<ModelEntry> models,
    @JsonInclude(JsonInclude.Include.NON_NULL) dev.gputop.config.PodIdentity kubernetes) {

  public ServerEntry {
    gpus = List.copyOf(gpus);
    pids = List.copyOf(pids);
    models = List.copyOf(models);
  }
}
