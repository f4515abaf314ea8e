package dev.gputop.inference.export;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.gputop.inference.engine.Drift;
import dev.gputop.inference.stats.Efficiency;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.receiver.ServerReport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@code inference[]} entry of the JSON snapshot, field for field as docs/json-schema.md names
 * them; null is N/A. The statistics are {@link ServerStats}' own fields, written inline after
 * {@code pids} (they are declared there and nowhere else). Built by {@link SnapshotBuilder}. The
 * agent reads it as a {@link ServerReport} (its name and statistics). Immutable.
 *
 * @param name the server's name
 * @param engine the engine's id ({@code vllm}, {@code sglang}, ... or {@code unknown})
 * @param servedModels the models the server serves, as its newest readable scrape names them,
 *     sorted: one for most servers, several for Ray Serve or Dynamo, empty when the engine names
 *     none
 * @param url the metrics URL
 * @param source where the server comes from
 * @param state its state
 * @param error why the last scrape failed, or null
 * @param gpus NVML indices of the GPUs its processes use
 * @param pids its processes
 * @param stats the windowed statistics ({@link ServerStats#EMPTY} while down)
 * @param models the same statistics per served model when the server serves several, else empty
 * @param unreadFamilies the engine's families in the newest scrape that no profile rule reads
 *     and the profile doesn't know (drift: a rename after an upgrade), counted, with the first
 *     names
 * @param missing the concepts a server of its version should export (per the profile) that the
 *     newest scrape lacks, each with the name the profile expected
 * @param kubernetes the pod and container the server runs in ({@code namespace}, {@code pod},
 *     {@code container}, {@code podUid}), or null outside Kubernetes (then not in the JSON)
 * @param unavailable why each N/A statistic is N/A, by field ({@link Unavailable})
 * @param efficiency its GPUs (utilization, memory, power) and what they spend per token
 *     (docs/inference.md, "Efficiency")
 */
public record ServerEntry(
    String name,
    String engine,
    List<String> servedModels,
    String url,
    ServerSource source,
    ServerState state,
    String error,
    List<Integer> gpus,
    List<Long> pids,
    @JsonUnwrapped ServerStats stats,
    List<ModelEntry> models,
    UnreadFamilies unreadFamilies,
    List<Missing> missing,
    @JsonInclude(JsonInclude.Include.NON_NULL) dev.gputop.config.PodIdentity kubernetes,
    Map<String, String> unavailable,
    Efficiency efficiency) implements ServerReport {

  public ServerEntry {
    servedModels = List.copyOf(servedModels);
    gpus = List.copyOf(gpus);
    pids = List.copyOf(pids);
    models = List.copyOf(models);
    unreadFamilies = unreadFamilies == null ? UnreadFamilies.NONE : unreadFamilies;
    missing = missing == null ? List.of() : List.copyOf(missing);
    unavailable = Collections.unmodifiableMap(new LinkedHashMap<>(unavailable));
    efficiency = efficiency == null ? Efficiency.NONE : efficiency;
  }

  /**
   * An entry without drift (none seen yet, or the server is down) and without efficiency (its
   * GPUs unknown), whose N/A reasons are computed from its state alone (no window): for tests and
   * tools.
   */
  public ServerEntry(String name, String engine, String url, ServerSource source, ServerState state, String error,
      List<Integer> gpus, List<Long> pids, ServerStats stats, List<ModelEntry> models,
      dev.gputop.config.PodIdentity kubernetes) {
    this(name, engine, List.of(), url, source, state, error, gpus, pids, stats, models,
        UnreadFamilies.NONE, List.of(), kubernetes, Unavailable.of(state, stats, null), Efficiency.NONE);
  }

  /**
   * The engine's families no rule reads: how many, and the first {@link Drift#MAX_NAMES} as
   * written on the wire.
   */
  public record UnreadFamilies(int count, List<String> names) {
    public static final UnreadFamilies NONE = new UnreadFamilies(0, List.of());

    public UnreadFamilies {
      names = List.copyOf(names);
    }
  }

  /**
   * A concept expected from the server that it does not export.
   *
   * @param concept the concept's key ({@code generationTokens})
   * @param expected the source the profile reads first, e.g. {@code counter trtllm_generation_tokens}
   * @param since the release that added it, or null
   */
  public record Missing(String concept, String expected, String since) {}

  /** The JSON form of a scrape's drift. */
  public static UnreadFamilies unreadOf(Drift d) {
    return d.unreadCount() == 0 ? UnreadFamilies.NONE : new UnreadFamilies(d.unreadCount(), d.unread());
  }

  /** The JSON form of a scrape's missing concepts. */
  public static List<Missing> missingOf(Drift d) {
    if (d.missing().isEmpty()) {
      return List.of();
    }
    List<Missing> out = new ArrayList<>(d.missing().size());
    for (Drift.Missing m : d.missing()) {
      out.add(new Missing(m.concept().key(), m.expected(), m.since()));
    }
    return out;
  }
}
