package dev.gputop.inference.export;

import dev.gputop.inference.stats.Quantiles;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.stats.SloKind;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import java.util.Arrays;
import java.util.List;

/**
 * The statistics of one server (or one model on it) with the attributes of its data points,
 * built once per refresh so that metric callbacks allocate nothing but what the SDK asks for.
 * Immutable.
 *
 * @param attributes {@code server}, {@code engine} (and {@code model} for a model's point)
 * @param quantiles the attributes plus {@code quantile} for each of the default quantiles
 *     (0.5, 0.9, 0.99; see {@link #quantile})
 * @param slo the attributes plus {@code slo}, in the order of {@link SloKind}
 * @param stats the values
 * @param model the model of a per-model point (its values go to the {@code
 *     gputop.inference.model.*} families), or null for the server's own point
 */
public record StatsPoint(
    Attributes attributes, List<Attributes> quantiles, List<Attributes> slo,
    ServerStats stats, String model) {

  static final AttributeKey<String> SERVER = AttributeKey.stringKey("server");
  static final AttributeKey<String> ENGINE = AttributeKey.stringKey("engine");
  static final AttributeKey<String> MODEL = AttributeKey.stringKey("model");
  static final AttributeKey<String> QUANTILE = AttributeKey.stringKey("quantile");
  static final AttributeKey<String> STATE = AttributeKey.stringKey("state");

  static final AttributeKey<String> SLO = AttributeKey.stringKey("slo");

  public StatsPoint {
    quantiles = List.copyOf(quantiles);
    slo = List.copyOf(slo);
  }

  /**
   * The attributes plus {@code quantile} for the i-th of {@code levels}: built once per server
   * for the default quantiles, built per call for others ({@code inference.quantiles}).
   */
  public Attributes quantile(Quantiles levels, int i) {
    return levels.equals(Quantiles.DEFAULT) ? quantiles.get(i)
        : attributes.toBuilder().put(QUANTILE, Quantiles.label(levels.level(i))).build();
  }

  /** A point for a server total ({@code model} null) or for one of its models. */
  public static StatsPoint of(String server, String engine, String model, ServerStats stats) {
    return of(server, engine, model, null, stats);
  }

  /**
   * A point with the server's Kubernetes pod ({@code k8s.namespace.name}, {@code k8s.pod.name},
   * {@code k8s.container.name}, {@code k8s.pod.uid}) when it runs in one.
   */
  public static StatsPoint of(
      String server, String engine, String model, dev.gputop.config.PodIdentity pod, ServerStats stats) {
    var b = Attributes.builder().put(SERVER, server).put(ENGINE, engine);
    if (model != null) {
      b.put(MODEL, model);
    }
    if (pod != null) {
      pod.addTo(b);
    }
    Attributes a = b.build();
    return new StatsPoint(
        a,
        Quantiles.DEFAULT.levels().stream()
            .map(q -> a.toBuilder().put(QUANTILE, Quantiles.label(q)).build()).toList(),
        SloKind.ALL.stream().map(k -> a.toBuilder().put(SLO, k.jsonName()).build()).toList(),
        stats, model);
  }

  /** Whether this is a model's point (model families) rather than the server's own. */
  public boolean perModel() {
    return model != null;
  }

  /**
   * The {@code gputop.inference.up} point of a server: {@code server}, {@code engine} and nothing
   * that changes with its state, so that a server is one series for as long as it is watched.
   */
  public static Attributes upAttributes(String server, String engine) {
    return upAttributes(server, engine, null);
  }

  /** The up point of a server in a pod: with its {@code k8s.*} attributes. */
  public static Attributes upAttributes(String server, String engine, dev.gputop.config.PodIdentity pod) {
    var b = Attributes.builder().put(SERVER, server).put(ENGINE, engine);
    if (pod != null) {
      pod.addTo(b);
    }
    return b.build();
  }

  /**
   * The {@code gputop.inference.served_model} point of one served model: the up attributes plus
   * {@code model} (none for a server whose engine names no model).
   */
  public static Attributes infoAttributes(String server, String engine, String model, dev.gputop.config.PodIdentity pod) {
    Attributes up = upAttributes(server, engine, pod);
    return model == null || model.isEmpty() ? up : up.toBuilder().put(MODEL, model).build();
  }

  /**
   * The {@code gputop.inference.server.state} points of a server, in the order of {@link
   * ServerState}: every state always exported (an OpenMetrics state set), 1 for the server's
   * state, 0 for the others.
   */
  public static List<Attributes> stateAttributes(String server, String engine, dev.gputop.config.PodIdentity pod) {
    Attributes up = upAttributes(server, engine, pod);
    return Arrays.stream(ServerState.values()).map(s -> up.toBuilder().put(STATE, s.jsonName()).build()).toList();
  }
}
