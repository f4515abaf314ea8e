package dev.gputop.inference.export;

import dev.gputop.config.PodIdentity;
import dev.gputop.inference.stats.ServerStats;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a server's outputs repeat from one refresh to the next: the attribute sets of its gauge
 * points, {@code up} point and state set, its re-exported histograms' and counters' attributes
 * (handed to the agent as they are, so the agent builds none) and boundaries. A
 * server's attributes change only when its engine, pod or models do, so building them again every
 * refresh for every server was garbage for the collector; the receiver keeps one cache and hands
 * it to each refresh's {@link SnapshotBuilder}. Bounded: a server not added in a refresh is
 * forgotten at its {@link SnapshotBuilder#build build}.
 *
 * <p>Not thread-safe: used by the receiver's refresh thread only. The values it hands out are
 * immutable, but for a {@link Layout}'s scratch arrays.
 */
public final class ExportCache {

  private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");
  private static final AttributeKey<String> PROVIDER = AttributeKey.stringKey("gen_ai.provider.name");
  private static final AttributeKey<String> REQUEST_MODEL = AttributeKey.stringKey("gen_ai.request.model");

  private Map<String, Server> servers = new HashMap<>();
  private Map<String, Server> seen = new HashMap<>();

  /** The cached outputs of one server with this engine and pod (new ones when either changed). */
  Server server(String name, String engine, PodIdentity pod) {
    Server s = seen.get(name);
    if (s == null) {
      s = servers.get(name);
      if (s == null || !s.engine.equals(engine) || !Objects.equals(s.pod, pod)) {
        s = new Server(name, engine, pod);
      }
      seen.put(name, s);
    }
    return s;
  }

  /** Forgets the servers not asked for since the last call. */
  void endRefresh() {
    Map<String, Server> old = servers;
    servers = seen;
    old.clear();
    seen = old;
  }

  /** One server's cached outputs. */
  static final class Server {
    private static final int MAX_MODELS = 256;

    final String name;
    final String engine;
    final PodIdentity pod;
    /** Gauge point attributes by model ("" for the server's total). */
    private final Map<String, StatsPoint> points = new HashMap<>();
    private Attributes up;
    private List<Attributes> states;
    /** Info point attributes by served model ("" for a server that names none). */
    private final Map<String, Attributes> info = new HashMap<>();
    /** Counter attributes by model (null for the server's own), then by outcome. */
    private final Map<String, Attributes[]> counterAttributes = new HashMap<>();
    /** Histogram attributes by model ("" when the series name none). */
    private final Map<String, Attributes> histogramAttributes = new HashMap<>();
    /** The bucket layouts, by the window's (shared) bounds array. */
    private final Map<double[], Layout> layouts = new IdentityHashMap<>();

    Server(String name, String engine, PodIdentity pod) {
      this.name = name;
      this.engine = engine;
      this.pod = pod;
    }

    /** The point of the server's total ({@code model} null) or of one model, with {@code stats}. */
    StatsPoint point(String model, ServerStats stats) {
      String key = model == null ? "" : model;
      StatsPoint p = points.get(key);
      if (p == null) {
        if (points.size() >= MAX_MODELS) {
          points.clear();
        }
        p = StatsPoint.of(name, engine, model, pod, ServerStats.EMPTY);
        points.put(key, p);
      }
      return new StatsPoint(p.attributes(), p.quantiles(), p.slo(), stats, model);
    }

    Attributes up() {
      if (up == null) {
        up = StatsPoint.upAttributes(name, engine, pod);
      }
      return up;
    }

    /** The {@code gputop.inference.served_model} point of one served model ("" for none). */
    Attributes info(String model) {
      Attributes a = info.get(model);
      if (a == null) {
        if (info.size() >= MAX_MODELS) {
          info.clear();
        }
        a = StatsPoint.infoAttributes(name, engine, model, pod);
        info.put(model, a);
      }
      return a;
    }

    /** The state-set points, in the order of {@link ServerState}. */
    List<Attributes> states() {
      if (states == null) {
        states = StatsPoint.stateAttributes(name, engine, pod);
      }
      return states;
    }

    /**
     * The attributes of a counter point: the {@link #up} attributes (server, engine, pod), {@code
     * model} (null for the server's own point) and the {@code outcome} of {@link
     * CounterExports#OUTCOMES} at {@code outcome} (index 0: none).
     */
    Attributes counterAttributes(String model, int outcome) {
      Attributes[] byOutcome = counterAttributes.get(model);
      if (byOutcome == null) {
        if (counterAttributes.size() >= MAX_MODELS) {
          counterAttributes.clear();
        }
        byOutcome = new Attributes[CounterExports.OUTCOMES.size()];
        counterAttributes.put(model, byOutcome);
      }
      Attributes a = byOutcome[outcome];
      if (a == null) {
        AttributesBuilder b = up().toBuilder();
        if (model != null) {
          b.put(StatsPoint.MODEL, model);
        }
        String o = CounterExports.OUTCOMES.get(outcome);
        if (!o.isEmpty()) {
          b.put(OUTCOME, o);
        }
        a = b.build();
        byOutcome[outcome] = a;
      }
      return a;
    }

    /**
     * The attributes of a re-exported histogram: the {@link #up} attributes, {@code
     * gen_ai.provider.name} (the engine) and {@code gen_ai.request.model} ("" when the series
     * name none).
     */
    Attributes histogramAttributes(String model) {
      Attributes a = histogramAttributes.get(model);
      if (a == null) {
        if (histogramAttributes.size() >= MAX_MODELS) {
          histogramAttributes.clear();
        }
        AttributesBuilder b = up().toBuilder().put(PROVIDER, engine);
        if (!model.isEmpty()) {
          b.put(REQUEST_MODEL, model);
        }
        a = b.build();
        histogramAttributes.put(model, a);
      }
      return a;
    }

    /** The layout of a histogram whose buckets have the window's {@code bounds}. */
    Layout layout(double[] bounds) {
      Layout l = layouts.get(bounds);
      if (l == null) {
        if (layouts.size() >= 8) {
          layouts.clear(); // layouts changed (restarts): keep only the current ones
        }
        l = new Layout(bounds);
        layouts.put(bounds, l);
      }
      return l;
    }
  }

  /**
   * One bucket layout of a server's histograms: the exported boundaries, and the scratch arrays
   * a refresh sums its buckets in ({@link dev.gputop.receiver.ExportedHistogram} copies what it
   * keeps). Refresh thread
   * only.
   */
  static final class Layout {
    /**
     * The finite upper bounds as the exported boundaries: "1" and "1.0" (equal neighbours) are
     * one boundary, the {@code +Inf} bucket is implicit.
     */
    final double[] boundaries;
    /** Per bound of the window's layout: the series' cumulative counts, summed. */
    final double[] cumulative;
    /** Per exported bucket (one more than the boundaries): its count. */
    final long[] counts;

    Layout(double[] bounds) {
      double[] out = new double[Math.max(0, bounds.length - 1)];
      int n = 0;
      for (int i = 0; i < bounds.length - 1; i++) {
        if (i == 0 || bounds[i] != bounds[i - 1]) {
          out[n++] = bounds[i];
        }
      }
      this.boundaries = Arrays.copyOf(out, n);
      this.cumulative = new double[bounds.length];
      this.counts = new long[n + 1];
    }
  }
}
