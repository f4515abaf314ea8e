package dev.gputop.inference.export;

import dev.gputop.config.ExportedHistogram;
import dev.gputop.config.PodIdentity;
import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.window.ConceptColumns;
import dev.gputop.inference.window.SeriesColumn;
import dev.gputop.inference.window.ServerWindow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a server's own latency histograms (newest scrape) into cumulative {@link
 * ExportedHistogram}s with the server's bucket boundaries (docs/metrics.md, "the servers' own
 * histograms"). Series of one model are summed by bucket (data-parallel engines, ranks, finish
 * reasons); each model gets its own point with {@code gen_ai.request.model}, so that a backend
 * summing points never counts a request twice. A server in a Kubernetes pod adds the pod's {@code
 * k8s.*} attributes ({@link PodIdentity#attributes()}), as its gauges do. The start time is the first scrape since the
 * server (re)started as the window saw it, so it moves when the server restarts.
 *
 * <p>Stateless and thread-safe.
 */
public final class HistogramExports {

  /** Names and descriptions, copied from the GenAI semantic conventions where they exist. */
  private static final Map<Concept, String[]> NAMES = Map.of(
      Concept.TTFT, new String[] {"gen_ai.server.time_to_first_token",
          "Time to generate first token for successful responses."},
      Concept.ITL, new String[] {"gen_ai.server.time_per_output_token",
          "Time per output token generated after the first token for successful responses."},
      Concept.E2E, new String[] {"gen_ai.server.request.duration",
          "Generative AI server request duration such as time-to-last byte or last output token."},
      Concept.QUEUE, new String[] {"gputop.inference.queue.duration",
          "Time requests waited in the server's queue before being scheduled."});

  private static final List<Concept> ORDER = List.of(Concept.TTFT, Concept.ITL, Concept.E2E, Concept.QUEUE);

  private HistogramExports() {}

  /** The histograms of one server outside Kubernetes; see {@link #of(String, String, PodIdentity, ServerWindow)}. */
  public static List<ExportedHistogram> of(String server, String engine, ServerWindow window) {
    return of(server, engine, null, window);
  }

  /**
   * The histograms of one server from the newest scrape in its window; empty when none.
   *
   * @param pod the pod the server runs in, or null
   */
  public static List<ExportedHistogram> of(String server, String engine, PodIdentity pod, ServerWindow window) {
    if (window.size() == 0) {
      return List.of();
    }
    int slot = window.slot(window.size() - 1);
    List<ExportedHistogram> out = new ArrayList<>();
    for (Concept c : ORDER) {
      ConceptColumns cc = window.columns(c);
      if (cc == null || !cc.inNewest()) {
        continue;
      }
      Map<String, List<SeriesColumn>> byModel = new LinkedHashMap<>();
      for (int j = 0; j < cc.size(); j++) {
        SeriesColumn h = cc.get(j);
        if (h.present(slot)) {
          byModel.computeIfAbsent(h.model(), k -> new ArrayList<>()).add(h);
        }
      }
      for (Map.Entry<String, List<SeriesColumn>> e : byModel.entrySet()) {
        ExportedHistogram h = merge(c, server, engine, pod, e.getKey(), e.getValue(), slot,
            window.eraStartEpochNanos(), window.newestEpochNanos());
        if (h != null) {
          out.add(h);
        }
      }
    }
    return out;
  }

  /** Sums series with one layout; null when they have none usable or differ in layout. */
  private static ExportedHistogram merge(
      Concept c, String server, String engine, PodIdentity pod, String model, List<SeriesColumn> series,
      int slot, long start, long now) {
    SeriesColumn first = series.get(0);
    double[] bounds = first.bounds();
    int n = bounds.length;
    if (n == 0 || bounds[n - 1] != Double.POSITIVE_INFINITY) {
      return null;
    }
    double[] cumulative = new double[n];
    double sum = 0;
    for (SeriesColumn h : series) {
      if (!Arrays.equals(h.bounds(), bounds)) {
        return null; // cannot add buckets with different boundaries
      }
      for (int i = 0; i < n; i++) {
        cumulative[i] += h.bucket(slot, i);
      }
      double s = h.sum(slot);
      sum += Double.isNaN(s) ? 0 : s;
    }
    List<Double> boundaries = new ArrayList<>(n - 1);
    List<Long> counts = new ArrayList<>(n);
    double below = 0;
    long total = 0;
    for (int i = 0; i < n; i++) {
      double cum = Math.max(cumulative[i], below); // running maximum, as PromQL fixes them
      if (i < n - 1 && i > 0 && bounds[i] == bounds[i - 1]) {
        // "1" and "1.0": one boundary; fold this bucket into the previous one.
        long extra = Math.round(cum - below);
        counts.set(counts.size() - 1, counts.get(counts.size() - 1) + extra);
        total += extra;
        below = cum;
        continue;
      }
      long count = Math.round(cum - below);
      counts.add(count);
      total += count;
      below = cum;
      if (i < n - 1) {
        boundaries.add(bounds[i]);
      }
    }
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("server", server);
    attributes.put("engine", engine);
    attributes.put("gen_ai.provider.name", engine);
    if (!model.isEmpty()) {
      attributes.put("gen_ai.request.model", model);
    }
    if (pod != null) {
      attributes.putAll(pod.attributes());
    }
    String[] name = NAMES.get(c);
    if (counts.size() != boundaries.size() + 1) {
      return null; // e.g. two +Inf buckets: nothing a backend could read
    }
    return new ExportedHistogram(
        name[0], name[1], "s", attributes, start, now, boundaries, counts, sum, total);
  }
}
