package dev.gputop.inference.export;

import dev.gputop.config.PodIdentity;
import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.window.ConceptColumns;
import dev.gputop.inference.window.SeriesColumn;
import dev.gputop.inference.window.ServerWindow;
import dev.gputop.receiver.ExportedHistogram;
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
 * k8s.*} attributes ({@link PodIdentity#addTo}), as its gauges do. The start time is the first
 * scrape since the server (re)started as the window saw it, so it moves when the server restarts.
 *
 * <p>Stateless. {@link #addTo} sums buckets in the scratch arrays of the {@link ExportCache} it is
 * given, so it runs on the thread that owns that cache (the receiver's refresh thread); {@link
 * #of} builds a cache of its own and is thread-safe.
 */
public final class HistogramExports {

  /** Names and descriptions, copied from the GenAI semantic conventions where they exist. */
  private static final Map<Concept, String[]> NAMES = Map.of(
      Concept.TTFT, new String[] {"gen_ai.server.time_to_first_token",
          "Time to generate first token for successful responses."},
      // The semantic convention's TPOT is one observation per request: only the per-request
      // histograms are it; the per-token ITL histograms go out under a name of their own.
      Concept.TPOT, new String[] {"gen_ai.server.time_per_output_token",
          "Time per output token generated after the first token for successful responses."},
      Concept.ITL, new String[] {"gputop.inference.inter_token_latency",
          "Time between two consecutive output tokens, one observation per token."},
      Concept.E2E, new String[] {"gen_ai.server.request.duration",
          "Generative AI server request duration such as time-to-last byte or last output token."},
      Concept.QUEUE, new String[] {"gputop.inference.request.queue.duration",
          "Time requests waited in the server's queue before being scheduled."});

  private static final List<Concept> ORDER =
      List.of(Concept.TTFT, Concept.ITL, Concept.TPOT, Concept.E2E, Concept.QUEUE);

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
    List<ExportedHistogram> out = new ArrayList<>();
    addTo(out, new ExportCache().server(server, engine, pod), window);
    return out;
  }

  /** Adds the server's histograms to {@code out}, with the attributes and boundaries it caches. */
  static void addTo(List<ExportedHistogram> out, ExportCache.Server server, ServerWindow window) {
    if (window.size() == 0) {
      return;
    }
    int slot = window.slot(window.size() - 1);
    for (Concept c : ORDER) {
      ConceptColumns cc = window.columns(c);
      if (cc == null || !cc.inNewest()) {
        continue;
      }
      // Usually every series of a concept is of one model (or none): no grouping needed.
      String model = null;
      boolean oneModel = true;
      List<SeriesColumn> present = new ArrayList<>(cc.size());
      for (int j = 0; j < cc.size(); j++) {
        SeriesColumn h = cc.get(j);
        if (h.present(slot)) {
          present.add(h);
          oneModel &= model == null || model.equals(h.model());
          model = h.model();
        }
      }
      if (present.isEmpty()) {
        continue;
      }
      if (oneModel) {
        add(out, merge(c, server, model, present, slot, window));
        continue;
      }
      Map<String, List<SeriesColumn>> byModel = new LinkedHashMap<>();
      for (SeriesColumn h : present) {
        byModel.computeIfAbsent(h.model(), k -> new ArrayList<>()).add(h);
      }
      for (Map.Entry<String, List<SeriesColumn>> e : byModel.entrySet()) {
        add(out, merge(c, server, e.getKey(), e.getValue(), slot, window));
      }
    }
  }

  private static void add(List<ExportedHistogram> out, ExportedHistogram h) {
    if (h != null) {
      out.add(h);
    }
  }

  /** Sums series with one layout; null when they have none usable or differ in layout. */
  private static ExportedHistogram merge(
      Concept c, ExportCache.Server server, String model, List<SeriesColumn> series, int slot,
      ServerWindow window) {
    SeriesColumn first = series.get(0);
    double[] bounds = first.bounds();
    int n = bounds.length;
    if (n == 0 || bounds[n - 1] != Double.POSITIVE_INFINITY) {
      return null;
    }
    ExportCache.Layout layout = server.layout(bounds);
    double[] cumulative = layout.cumulative;
    Arrays.fill(cumulative, 0);
    double sum = 0;
    for (SeriesColumn h : series) {
      if (h.bounds() != bounds && !Arrays.equals(h.bounds(), bounds)) {
        return null; // cannot add buckets with different boundaries
      }
      for (int i = 0; i < n; i++) {
        cumulative[i] += h.bucket(slot, i);
      }
      double s = h.sum(slot);
      sum += Double.isNaN(s) ? 0 : s;
    }
    double[] boundaries = layout.boundaries;
    long[] counts = layout.counts;
    Arrays.fill(counts, 0);
    int k = 0;
    double below = 0;
    for (int i = 0; i < n; i++) {
      double cum = Math.max(cumulative[i], below); // running maximum, as PromQL fixes them
      if (i < n - 1 && i > 0 && bounds[i] == bounds[i - 1]) {
        // "1" and "1.0": one boundary; fold this bucket into the previous one.
        counts[k - 1] += Math.round(cum - below);
        below = cum;
        continue;
      }
      if (k == counts.length) {
        return null; // e.g. two +Inf buckets: nothing a backend could read
      }
      counts[k++] = Math.round(cum - below);
      below = cum;
    }
    if (k != counts.length) {
      return null;
    }
    String[] name = NAMES.get(c);
    return new ExportedHistogram(name[0], name[1], "s", server.histogramAttributes(model),
        window.eraStartEpochNanos(), window.newestEpochNanos(), boundaries, counts, sum);
  }
}
