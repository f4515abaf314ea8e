package dev.gputop.inference.export;

import dev.gputop.receiver.Alert;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.ExportedCounter;
import dev.gputop.receiver.ExportedHistogram;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.ServingOverview;
import io.opentelemetry.api.common.Attributes;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything the inference receiver publishes after one refresh: its contribution to the JSON snapshot, the metric
 * points, the re-exported histograms, health, and which server each PID belongs to. Readers (the
 * metric callbacks, the HTTP listener, NVML's owner lookups) only ever see a complete one, through
 * an {@link java.util.concurrent.atomic.AtomicReference}. Immutable.
 *
 * @param servers the {@code inference} section
 * @param overview the {@code overview.serving} section
 * @param alerts the {@code alerts} section
 * @param discovery the {@code discovery} section
 * @param health the receiver's health
 * @param points the gauge points: the servers' own, then per-model points ({@link
 *     StatsPoint#perModel()}), which go to families of their own
 * @param up the {@code gputop.inference.up} points: attributes ({@code server}, {@code engine})
 *     → 1 or 0
 * @param info the {@code gputop.inference.served_model} points: one per served model → 1
 * @param states the {@code gputop.inference.server.state} points: every state of every server
 *     → 1 for its current state, else 0
 * @param histograms the servers' own histograms to re-export
 * @param counters the servers' monotonic totals ({@link CounterExports})
 * @param owners PID → server name
 * @param pods PID → the Kubernetes pod of its server, for the servers that run in one
 * @param efficiency each server's efficiency with the attributes of its points ({@code server},
 *     {@code engine}: a server's value, never a model's)
 */
public record InferenceSnapshot(
    List<ServerEntry> servers,
    ServingOverview overview,
    List<Alert> alerts,
    DiscoverySection discovery,
    HealthStatus health,
    List<StatsPoint> points,
    Map<Attributes, Long> up,
    Map<Attributes, Long> info,
    Map<Attributes, Long> states,
    List<ExportedHistogram> histograms,
    List<ExportedCounter> counters,
    Map<Long, String> owners,
    Map<Long, dev.gputop.config.PodIdentity> pods,
    List<EfficiencyPoint> efficiency) {

  public InferenceSnapshot {
    servers = List.copyOf(servers);
    Objects.requireNonNull(overview, "overview");
    alerts = List.copyOf(alerts);
    Objects.requireNonNull(discovery, "discovery");
    Objects.requireNonNull(health, "health");
    points = List.copyOf(points);
    up = Map.copyOf(up);
    info = Map.copyOf(info);
    states = Map.copyOf(states);
    histograms = List.copyOf(histograms);
    counters = List.copyOf(counters);
    owners = Map.copyOf(owners);
    pods = Map.copyOf(pods);
    efficiency = efficiency == null ? List.of() : List.copyOf(efficiency);
  }

  /** Before the first refresh: nothing known, healthy. */
  public static InferenceSnapshot empty() {
    return new InferenceSnapshot(
        List.of(),
        ServingOverview.NONE,
        List.of(),
        new DiscoverySection(List.of(), List.of()),
        HealthStatus.healthy(),
        List.of(),
        Map.of(),
        Map.of(),
        Map.of(),
        List.of(),
        List.of(),
        Map.of(),
        Map.of(),
        List.of());
  }

  /** This snapshot with {@code health} instead of its own: the last values kept, the health new. */
  public InferenceSnapshot withHealth(HealthStatus health) {
    return new InferenceSnapshot(servers, overview, alerts, discovery, health, points, up, info,
        states, histograms, counters, owners, pods, efficiency);
  }

  /** The receiver's part of the JSON snapshot: its servers, alerts, overview and {@code discovery}. */
  public Contribution contribution() {
    return Contribution.ofServers(servers, alerts, overview, Map.of("discovery", discovery));
  }
}
