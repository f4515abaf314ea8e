package dev.gputop.receiver;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A receiver's part of the snapshot, typed: what {@link Receiver#contribution()} returns from its
 * latest published cycle. The agent writes {@code /api/snapshot} from the contributions of all
 * receivers, in start order (see {@code package-info}): {@code gpus}, {@code inference} and {@code
 * alerts} concatenated, {@code overview.serving} from the one receiver that computes it. Each
 * entry is written as Jackson writes its own type (the entry records carry their JSON shape); the
 * agent reads them only through {@link GpuReport} and {@link ServerReport}. Immutable.
 *
 * @param gpus the {@code gpus[]} entries (GPUs and MIG instances)
 * @param servers the {@code inference[]} entries
 * @param alerts the {@code alerts[]} entries
 * @param overview {@code overview.serving}, or null when this receiver computes none
 * @param furtherSections further top-level sections of the document (the inference receiver's
 *     {@code discovery}), by name, written after {@code health} as they are; the agent only
 *     writes them. A name of the fixed shape ({@link #FIXED_SECTIONS}) is not allowed; when two
 *     receivers publish one name, the later one's is written
 */
public record Contribution(
    List<GpuReport> gpus,
    List<ServerReport> servers,
    List<Alert> alerts,
    ServingOverview overview,
    Map<String, Object> furtherSections) {

  /** The document's own fields, which no further section may take. */
  public static final Set<String> FIXED_SECTIONS =
      Set.of("timestamp", "gpus", "inference", "overview", "alerts", "health");

  /** A receiver that contributes nothing (yet). */
  public static final Contribution NONE = new Contribution(List.of(), List.of(), List.of(), null, Map.of());

  public Contribution {
    gpus = List.copyOf(gpus);
    servers = List.copyOf(servers);
    alerts = List.copyOf(alerts);
    Map<String, Object> further = new LinkedHashMap<>();
    furtherSections.forEach((name, value) -> {
      Objects.requireNonNull(value, name);
      if (FIXED_SECTIONS.contains(name)) {
        throw new IllegalArgumentException("'" + name + "' is a field of the snapshot itself, not a further section");
      }
      further.put(name, value);
    });
    furtherSections = Collections.unmodifiableMap(further);
  }

  /** GPUs and their alerts, as the NVML receiver contributes them. */
  public static Contribution ofGpus(List<? extends GpuReport> gpus, List<Alert> alerts) {
    return new Contribution(List.copyOf(gpus), List.of(), alerts, null, Map.of());
  }

  /** Servers, their alerts and overview, and further sections, as the inference receiver contributes them. */
  public static Contribution ofServers(List<? extends ServerReport> servers, List<Alert> alerts,
      ServingOverview overview, Map<String, Object> furtherSections) {
    return new Contribution(List.of(), List.copyOf(servers), alerts, overview, furtherSections);
  }
}
