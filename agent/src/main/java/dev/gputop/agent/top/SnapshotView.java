package dev.gputop.agent.top;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.gputop.inference.export.ServerState;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code /api/snapshot} document as {@code top} reads it: exactly the fields it shows, each
 * named as the document names it (a component's name is its JSON field). Read leniently ({@code
 * Lenient}): a field that is missing, null or of the wrong type is null (N/A on the screen), a
 * list is never null, and an object that is missing is its {@code EMPTY} value, so the screen
 * asks no question twice. Immutable.
 *
 * @param timestamp when the agent made it
 * @param inference the servers, in the document's order
 * @param gpus the GPUs NVML reads
 * @param alerts the alerts firing
 * @param overview the fleet's overview
 * @param health the receivers' health
 */
public record SnapshotView(String timestamp, List<ServerRow> inference, List<GpuRow> gpus, List<Alert> alerts,
    Overview overview, Health health) {

  /** A document without servers, GPUs or alerts (what {@code null} or {@code []} read as). */
  public static final SnapshotView EMPTY = new SnapshotView(null, null, null, null, null, null);

  public SnapshotView {
    inference = Lenient.rows(inference, ServerRow.EMPTY);
    gpus = Lenient.rows(gpus, GpuRow.EMPTY);
    alerts = Lenient.rows(alerts, Alert.EMPTY);
    overview = Lenient.orEmpty(overview, Overview.EMPTY);
    health = Lenient.orEmpty(health, Health.EMPTY);
  }

  /** The document as the agent serves it. @throws IOException when it is not JSON */
  public static SnapshotView parse(byte[] json) throws IOException {
    return Lenient.orEmpty(Lenient.read(json, SnapshotView.class), EMPTY);
  }

  /** The document as the local receivers make it (a tree, not yet written). */
  public static SnapshotView of(JsonNode document) {
    return Lenient.orEmpty(Lenient.read(document, SnapshotView.class), EMPTY);
  }

  /**
   * One entry of {@code inference[]}.
   *
   * @param unavailable why the N/A values are N/A, by field
   */
  public record ServerRow(String name, String engine, List<String> servedModels, String state, String url,
      String source, String error, Double running, Double waiting, Double kvCacheUsage, Double prefixHitRatio,
      Double preemptionsPerSecond, Double requestsPerSecond, Double promptTokensPerSecond,
      Double generationTokensPerSecond, Latency ttft, Double ttftApproxMean, Latency itl, Latency e2e,
      Latency queue, List<String> gpus, List<String> pids, Efficiency efficiency, Unavailable unavailable,
      RequestLengths requestLengths) {

    static final ServerRow EMPTY = new ServerRow(null, null, null, null, null, null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, null, null, null, null, null, null);

    public ServerRow {
      servedModels = Lenient.values(servedModels);
      ttft = Lenient.orEmpty(ttft, Latency.EMPTY);
      itl = Lenient.orEmpty(itl, Latency.EMPTY);
      e2e = Lenient.orEmpty(e2e, Latency.EMPTY);
      queue = Lenient.orEmpty(queue, Latency.EMPTY);
      gpus = Lenient.values(gpus);
      pids = Lenient.values(pids);
      efficiency = Lenient.orEmpty(efficiency, Efficiency.EMPTY);
      unavailable = Lenient.orEmpty(unavailable, Unavailable.EMPTY);
      requestLengths = Lenient.orEmpty(requestLengths, RequestLengths.EMPTY);
    }

    /**
     * Whether the server is up. The state stays the document's text, so that a state this build
     * does not know (from a newer agent) is still shown as it is.
     */
    public boolean isUp() {
      return ServerState.UP.jsonName().equals(state);
    }
  }

  /** A server's request lengths over the window, in tokens; a part is null when the engine has none. */
  public record RequestLengths(Latency prompt, Latency generation) {
    static final RequestLengths EMPTY = new RequestLengths(null, null);
  }

  /** A latency's statistics over the window, in seconds (count in requests). */
  public record Latency(Double mean, Double p50, Double p90, Double p99, Double count) {
    static final Latency EMPTY = new Latency(null, null, null, null, null);
  }

  /**
   * A server's {@code unavailable}: for each field top shows, the snapshot's reason it is N/A
   * ({@code not_exported}, {@code no_requests}, {@code starting}, {@code down}), or null.
   */
  public record Unavailable(String running, String waiting, String kvCacheUsage, String prefixHitRatio,
      String preemptionsPerSecond, String requestsPerSecond, String promptTokensPerSecond,
      String generationTokensPerSecond, String ttft, String itl, String e2e, String queue,
      @JsonProperty("requestLengths.prompt") String requestLengthsPrompt,
      @JsonProperty("requestLengths.generation") String requestLengthsGeneration) {
    static final Unavailable EMPTY = new Unavailable(null, null, null, null, null, null, null, null, null, null,
        null, null, null, null);
  }

  /**
   * A server's efficiency (docs/inference.md, "Efficiency").
   *
   * @param unavailable why all its values are N/A, or null
   * @param estimated whether the energy is integrated from power samples
   * @param costPerMillionGeneratedTokens null when no cost is configured (the document leaves it out)
   */
  public record Efficiency(String unavailable, Double powerWatts, Double joulesPerGeneratedToken,
      Double joulesPerPromptToken, Boolean estimated, Double generationTokensPerSecondPerGpu,
      Double costPerMillionGeneratedTokens, List<EfficiencyGpu> gpus) {
    static final Efficiency EMPTY = new Efficiency(null, null, null, null, null, null, null, null);

    public Efficiency {
      gpus = Lenient.rows(gpus, EfficiencyGpu.EMPTY);
    }
  }

  /** One of a server's GPUs as its efficiency reads it; {@code lost} when NVML no longer reads it. */
  public record EfficiencyGpu(String index, Boolean lost, Double utilization, Double memoryUsedBytes,
      Double memoryTotalBytes, Double powerWatts) {
    static final EfficiencyGpu EMPTY = new EfficiencyGpu(null, null, null, null, null, null);
  }

  /** One entry of {@code gpus[]}; {@code migIndex} for a MIG instance. */
  public record GpuRow(Integer index, Integer migIndex, String name, String state, Double utilization,
      Double memoryUsedBytes, Double memoryTotalBytes, Double powerWatts, Double temperatureCelsius,
      List<GpuProcess> processes) {
    static final GpuRow EMPTY = new GpuRow(null, null, null, null, null, null, null, null, null, null);

    public GpuRow {
      processes = Lenient.rows(processes, GpuProcess.EMPTY);
    }
  }

  /** A process on a GPU, and the server it belongs to (null when none). */
  public record GpuProcess(String pid, String server) {
    static final GpuProcess EMPTY = new GpuProcess(null, null);
  }

  /** An alert firing; {@code server} null for a fleet-wide one. */
  public record Alert(String name, String server, String message) {
    static final Alert EMPTY = new Alert(null, null, null);
  }

  /** The document's {@code overview}: top shows its serving line. */
  public record Overview(Serving serving) {
    static final Overview EMPTY = new Overview(null);

    public Overview {
      serving = Lenient.orEmpty(serving, Serving.EMPTY);
    }
  }

  /**
   * The fleet's serving overview.
   *
   * @param goodRequestsPerSecond per SLO, in the document's order; empty without SLOs
   */
  public record Serving(Double worstTtftP99, Double worstItlP50, Double generationTokensPerSecond, Double waiting,
      Double worstSloAttainment, Double generationTokensPerJoule, Map<String, Double> goodRequestsPerSecond) {
    static final Serving EMPTY = new Serving(null, null, null, null, null, null, null);

    public Serving {
      goodRequestsPerSecond = goodRequestsPerSecond == null ? Map.of()
          : Collections.unmodifiableMap(new LinkedHashMap<>(goodRequestsPerSecond));
    }
  }

  /** The document's {@code health}: top says why there are no GPUs. */
  public record Health(Component nvml) {
    static final Health EMPTY = new Health(null);

    public Health {
      nvml = Lenient.orEmpty(nvml, Component.EMPTY);
    }
  }

  /** A receiver's health: its state and the reasons for it. */
  public record Component(String state, List<String> reasons) {
    static final Component EMPTY = new Component(null, null);

    public Component {
      reasons = Lenient.values(reasons);
    }
  }
}
