package dev.gputop.inference.stats;

import dev.gputop.config.SloTargets;
import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.engine.ConceptValues;
import dev.gputop.inference.engine.Series;
import dev.gputop.inference.window.ConceptColumns;
import dev.gputop.inference.window.SeriesColumn;
import dev.gputop.inference.window.ServerWindow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Computes a server's {@link ServerStats} from its window, as docs/inference.md describes:
 *
 * <ul>
 *   <li>gauges (running, waiting, KV cache) from the newest scrape: running and waiting summed
 *       over series (data-parallel ranks, models), KV cache the maximum (the fullest rank);
 *   <li>rates: PromQL {@code rate()} of each counter series over the range {@code (start,
 *       newest]}, summed over series ({@link Rate});
 *   <li>percentiles: {@code histogram_quantile(q, sum by (le) (rate(x_bucket[…])))} ({@link
 *       HistogramQuantile});
 *   <li>request lengths (prompt and generation tokens per request) as the latencies, in tokens;
 *   <li>means, counts and the prefix hit ratio from raw increases (newest − oldest with
 *       counter-reset correction), so a count is a count of requests;
 *   <li>rates and latencies need two scrapes: until then rates are null and a latency the
 *       server exports has every field null; with no request in the window a latency has a
 *       count of 0 and null values; a latency the server does not export is null.
 * </ul>
 *
 * <p>It reads the window's columns in place ({@link ServerWindow}): one small context per call
 * holds the range's times and the scratch arrays, and each latency's buckets are summed once,
 * for its percentiles and its SLO alike.
 *
 * <p>Stateless; a window is read by its owner thread only.
 */
public final class WindowStatistics {


  private WindowStatistics() {}

  /**
   * The statistics of a server, or of one of its models, with its SLOs ({@link SloAttainment}).
   *
   * @param model the model to restrict to, or null for the whole server
   * @param slo the targets that apply (resolved from {@code inference.slo})
   */
  public static ServerStats compute(ServerWindow window, String model, SloTargets slo) {
    return compute(window, model, slo, Quantiles.DEFAULT);
  }

  /**
   * As {@link #compute(ServerWindow, String, SloTargets)}, each latency at these quantiles
   * ({@code inference.quantiles}).
   */
  public static ServerStats compute(
      ServerWindow window, String model, SloTargets slo, Quantiles quantiles) {
    if (window.size() == 0) {
      return ServerStats.EMPTY;
    }
    return compute(new Range(window, model, quantiles), slo);
  }

  /**
   * The statistics of a server, or of one of its models.
   *
   * @param model the model to restrict to, or null for the whole server
   */
  public static ServerStats compute(ServerWindow window, String model) {
    return window.size() == 0 ? ServerStats.EMPTY
        : compute(new Range(window, model, Quantiles.DEFAULT), null);
  }

  /** The statistics of {@code r}, with the SLOs of {@code slo} (null: none), built once. */
  private static ServerStats compute(Range r, SloTargets slo) {
    ServerWindow w = r.window;
    String model = r.model;
    Integer running = gaugeSum(w, Concept.RUNNING, model);
    Integer waiting = gaugeSum(w, Concept.WAITING, model);
    Double kv = gaugeMax(w, Concept.KV_CACHE, model);
    Double hitGauge = hitRateGauge(w, model);
    if (r.m < 2) {
      return ServerStats.builder().running(running).waiting(waiting).kvCacheUsage(kv).prefixHitRatio(hitGauge)
          .ttft(notYet(r, Concept.TTFT)).itl(notYet(r, Concept.ITL)).tpot(notYet(r, Concept.TPOT))
          .e2e(notYet(r, Concept.E2E)).queue(notYet(r, Concept.QUEUE))
          .prefill(notYet(r, Concept.PREFILL)).decode(notYet(r, Concept.DECODE))
          .requestLengths(new RequestLengths(notYet(r, Concept.PROMPT_LENGTH), notYet(r, Concept.GENERATION_LENGTH)))
          .slo(slo(r, slo, null))
          .build();
    }
    Double prefix = ratio(r, Concept.PREFIX_HITS, Concept.PREFIX_QUERIES);
    if (prefix == null && !w.has(Concept.PREFIX_HITS)) {
      prefix = hitGauge;
    }
    LatencyStats ttft = latency(r, Concept.TTFT);
    LatencyStats queue = latency(r, Concept.QUEUE);
    Double requests = rate(r, Concept.REQUESTS);
    return ServerStats.builder()
        .running(running)
        .waiting(waiting)
        .kvCacheUsage(kv)
        .prefixHitRatio(prefix)
        .requestsPerSecond(requests)
        .promptTokensPerSecond(rate(r, Concept.PROMPT_TOKENS))
        .generationTokensPerSecond(rate(r, Concept.GENERATION_TOKENS))
        .preemptionsPerSecond(rate(r, Concept.PREEMPTIONS))
        .ttft(ttft)
        .itl(latency(r, Concept.ITL))
        .tpot(latency(r, Concept.TPOT))
        .e2e(latency(r, Concept.E2E))
        .queue(queue)
        .ttftApproxMean(ttft == null ? ttftApprox(r, queue) : null)
        .failedRequestsPerSecond(rate(r, Concept.FAILED_REQUESTS))
        .abortedRequestsPerSecond(rate(r, Concept.ABORTED_REQUESTS))
        .specDecodeAcceptanceRate(ratio(r, Concept.SPEC_ACCEPTED_TOKENS, Concept.SPEC_DRAFT_TOKENS))
        .prefill(latency(r, Concept.PREFILL))
        .decode(latency(r, Concept.DECODE))
        .finishReasons(finishReasons(r))
        .requestLengths(new RequestLengths(latency(r, Concept.PROMPT_LENGTH), latency(r, Concept.GENERATION_LENGTH)))
        .slo(slo(r, slo, requests))
        .build();
  }

  /**
   * The SLOs of {@code targets} ({@link SloStats#NONE} without any) from the buckets the
   * latencies summed, with {@code requestsPerSecond} for their good requests per second.
   */
  private static SloStats slo(Range r, SloTargets targets, Double requestsPerSecond) {
    return targets == null || !targets.hasTargets() ? SloStats.NONE
        : SloAttainment.compute(r::buckets, targets).withRequestRate(requestsPerSecond);
  }

  /**
   * TGI's approximate TTFT: mean queue time + mean prefill batch time over the window (a
   * request waits in the queue, then its prefill batch runs). Null unless both are known.
   */
  private static Double ttftApprox(Range r, LatencyStats queue) {
    if (queue == null || queue.mean() == null) {
      return null;
    }
    LatencyStats prefill = latency(r, Concept.PREFILL_BATCH);
    if (prefill == null || prefill.mean() == null) {
      return null;
    }
    return queue.mean() + prefill.mean();
  }

  /**
   * One call's view of the window: the scrapes' slots, their times in seconds relative to the
   * range start, scratch arrays for one series' samples, and each latency's buckets once summed.
   */
  private static final class Range {
    final ServerWindow window;
    final String model;
    /** The quantiles every latency reports. */
    final Quantiles quantiles;
    final int m;
    final int[] slots;
    final double[] times;
    final double start;
    final double end;
    /** One series' samples: their slots, times and values. */
    final int[] at;
    final double[] t;
    final double[] v;
    private final Buckets[] buckets = new Buckets[Concept.values().length];
    private final boolean[] summed = new boolean[buckets.length];

    Range(ServerWindow window, String model, Quantiles quantiles) {
      this.window = window;
      this.model = model;
      this.quantiles = quantiles;
      this.m = window.size();
      this.slots = new int[m];
      this.times = new double[m];
      long rangeStartNanos = window.rangeStartNanos();
      for (int i = 0; i < m; i++) {
        slots[i] = window.slot(i);
        times[i] = (window.nanos(i) - rangeStartNanos) / 1e9;
      }
      this.start = 0;
      this.end = times[m - 1];
      this.at = new int[m];
      this.t = new double[m];
      this.v = new double[m];
    }

    /** The concept's buckets for this model, summed on the first call ({@link #buckets(ServerWindow, Concept, String)}). */
    Buckets buckets(Concept c) {
      int i = c.ordinal();
      if (!summed[i]) {
        buckets[i] = sum(this, c);
        summed[i] = true;
      }
      return buckets[i];
    }

    /** Gathers the samples of {@code col} in the window; returns how many. */
    int gather(SeriesColumn col) {
      int n = 0;
      for (int i = 0; i < m; i++) {
        int p = slots[i];
        if (col.present(p)) {
          at[n] = p;
          t[n++] = times[i];
        }
      }
      return n;
    }
  }

  /** A latency the server exports but the window can't compute yet: every field null. */
  /** With one scrape: nothing yet (every value null) when the scrape has the histogram, else null. */
  private static LatencyStats notYet(Range r, Concept c) {
    return hasSeries(r.window.columns(c), r.model) ? LatencyStats.none(r.quantiles, null) : null;
  }

  private static boolean hasSeries(ConceptColumns cc, String model) {
    if (cc == null) {
      return false;
    }
    for (int j = 0, n = cc.size(); j < n; j++) {
      if (matches(model, cc.get(j).model())) {
        return true;
      }
    }
    return false;
  }

  private static boolean matches(String model, String seriesModel) {
    return model == null || model.equals(seriesModel);
  }

  private static Integer gaugeSum(ServerWindow w, Concept c, String model) {
    ConceptValues cv = w.gauge(c);
    if (cv == null) {
      return null;
    }
    double sum = 0;
    boolean any = false;
    for (int i = 0, n = cv.seriesCount(); i < n; i++) {
      Series x = cv.seriesAt(i);
      if (matches(model, x.model()) && Double.isFinite(x.value())) {
        sum += x.value();
        any = true;
      }
    }
    return any ? (int) Math.round(sum) : null;
  }

  private static Double gaugeMax(ServerWindow w, Concept c, String model) {
    ConceptValues cv = w.gauge(c);
    if (cv == null) {
      return null;
    }
    double max = Double.NEGATIVE_INFINITY;
    for (int i = 0, n = cv.seriesCount(); i < n; i++) {
      Series x = cv.seriesAt(i);
      if (matches(model, x.model()) && Double.isFinite(x.value())) {
        max = Math.max(max, x.value());
      }
    }
    return max == Double.NEGATIVE_INFINITY ? null : max;
  }

  /** vLLM V0's cumulative hit-rate gauge: the mean of the series that are not −1 (off). */
  private static Double hitRateGauge(ServerWindow w, String model) {
    ConceptValues cv = w.gauge(Concept.PREFIX_HIT_RATE_GAUGE);
    if (cv == null) {
      return null;
    }
    double sum = 0;
    int used = 0;
    for (int i = 0, n = cv.seriesCount(); i < n; i++) {
      Series x = cv.seriesAt(i);
      if (matches(model, x.model()) && x.value() >= 0 && x.value() <= 1) {
        sum += x.value();
        used++;
      }
    }
    return used == 0 ? null : sum / used;
  }

  /** The label of the requests counter that names why a request finished (vLLM, LMDeploy). */
  static final String FINISH_REASON = "finished_reason";

  /**
   * Requests per second by finish reason: PromQL {@code sum by (finished_reason) (rate(...))} of
   * the requests counter; null when no series of it with two samples carries the label.
   */
  private static java.util.Map<String, Double> finishReasons(Range r) {
    ConceptColumns cc = r.window.columns(Concept.REQUESTS);
    if (cc == null) {
      return null;
    }
    java.util.Map<String, Double> out = null;
    for (int j = 0, cn = cc.size(); j < cn; j++) {
      SeriesColumn col = cc.get(j);
      String reason = col.key().labels().get(FINISH_REASON);
      if (reason == null || !matches(r.model, col.model())) {
        continue;
      }
      int n = r.gather(col);
      if (n < 2) {
        continue;
      }
      for (int k = 0; k < n; k++) {
        r.v[k] = col.value(r.at[k]);
      }
      if (out == null) {
        out = new java.util.TreeMap<>();
      }
      out.merge(reason, Rate.rate(r.t, r.v, n, r.start, r.end), Double::sum);
    }
    return out;
  }

  /** Σ over series of PromQL rate(); null when no series has two samples. */
  private static Double rate(Range r, Concept c) {
    return sumOverSeries(r, c, true);
  }

  /** Σ over series of the raw increase; null when no series has two samples. */
  private static Double increase(Range r, Concept c) {
    return sumOverSeries(r, c, false);
  }

  /**
   * Σ over the counter concept's series with two samples or more of their rate (or raw
   * increase); null when none.
   */
  private static Double sumOverSeries(Range r, Concept c, boolean rate) {
    ConceptColumns cc = r.window.columns(c);
    if (cc == null) {
      return null;
    }
    double total = 0;
    boolean any = false;
    for (int j = 0, cn = cc.size(); j < cn; j++) {
      SeriesColumn col = cc.get(j);
      if (!matches(r.model, col.model())) {
        continue;
      }
      int n = r.gather(col);
      if (n < 2) {
        continue;
      }
      for (int k = 0; k < n; k++) {
        r.v[k] = col.value(r.at[k]);
      }
      total += rate ? Rate.rate(r.t, r.v, n, r.start, r.end) : Rate.rawIncrease(r.v, n);
      any = true;
    }
    return any ? total : null;
  }

  /**
   * Δpart / Δwhole over the window (raw increases with reset correction), clamped to 0–1; null
   * while either is not exported or Δwhole is 0. The prefix hit ratio and the speculative-decoding
   * acceptance rate (Δaccepted / Δdraft tokens). Hits and queries are counted at slightly
   * different moments (SGLang counts prompt tokens when a request finishes), so a short window
   * can see more hits than queries.
   */
  private static Double ratio(Range r, Concept part, Concept whole) {
    Double p = increase(r, part);
    Double w = increase(r, whole);
    if (p == null || w == null || w <= 0) {
      return null;
    }
    return Math.max(0, Math.min(1, p / w));
  }

  private static LatencyStats latency(Range r, Concept c) {
    Buckets g = r.buckets(c);
    if (g == null) {
      return null;
    }
    if (!g.any() || Double.isNaN(g.countIncrease())) {
      // exported, but no histogram has two scrapes in the window yet
      return LatencyStats.none(r.quantiles, null);
    }
    double countInc = g.countIncrease();
    if (countInc <= 0) {
      return LatencyStats.none(r.quantiles, 0L);
    }
    double[] q = new double[r.quantiles.size()];
    HistogramQuantile.quantiles(r.quantiles.toArray(), g.bounds(), g.rates(), q);
    List<Double> values = new ArrayList<>(q.length);
    for (double v : q) {
      values.add(finite(v));
    }
    Double mean = Double.isFinite(g.sumIncrease()) ? g.sumIncrease() / countInc : null;
    return new LatencyStats(mean, r.quantiles, values, Math.round(countInc));
  }

  private static Double finite(double x) {
    return Double.isFinite(x) ? x : null;
  }

  /**
   * One latency histogram over the window, summed over its series (engines, ranks, models) the
   * way PromQL's {@code sum by (le)} sums them. Immutable by contract: {@code bounds} may be the
   * window's own layout array, so neither array may be modified.
   *
   * @param bounds the bucket bounds of every layout seen, appended layout after layout (equal
   *     bounds are summed by whoever reads them, as {@code sum by (le)} would)
   * @param rates {@code rate(x_bucket[window])} of each bound, summed over series
   * @param countRate {@code sum(rate(x_count[window]))} ({@code +Inf} bucket when {@code _count}
   *     is absent); NaN when unknown
   * @param countIncrease Δ{@code _count}, raw increase with reset correction
   * @param sumIncrease Δ{@code _sum}, likewise
   * @param any whether some series had two scrapes in the window
   */
  public record Buckets(
      double[] bounds, double[] rates, double countRate, double countIncrease, double sumIncrease,
      boolean any) {}

  private static final double[] NONE = new double[0];

  /**
   * The windowed buckets of a latency concept ({@code model} null for every model), or null when
   * the server does not export it. {@link Buckets#any()} is false while no series has two
   * scrapes in the window.
   */
  public static Buckets buckets(ServerWindow window, Concept c, String model) {
    return window.size() == 0 ? null : new Range(window, model, Quantiles.DEFAULT).buckets(c);
  }

  private static Buckets sum(Range r, Concept c) {
    ConceptColumns cc = r.window.columns(c);
    if (!hasSeries(cc, r.model)) {
      return null;
    }
    if (r.m < 2) {
      return new Buckets(NONE, NONE, Double.NaN, Double.NaN, Double.NaN, false);
    }
    double[] boundsAll = NONE;
    double[] ratesAll = NONE;
    double countRate = 0;
    double countInc = 0;
    double sumInc = 0;
    boolean any = false;
    double[] v = r.v;
    int[] at = r.at;
    for (int j = 0, cn = cc.size(); j < cn; j++) {
      SeriesColumn col = cc.get(j);
      if (!matches(r.model, col.model())) {
        continue;
      }
      int n = r.gather(col);
      if (n < 2) {
        continue;
      }
      any = true;
      double[] bounds = col.bounds();
      // sum by (le): series with the bounds already gathered add bucket by bucket (the usual
      // case: every engine or rank has the same layout, one shared array); another layout is
      // appended, and HistogramQuantile sorts and merges equal bounds by addition, which is the
      // same sum.
      boolean same = boundsAll == bounds || Arrays.equals(boundsAll, bounds);
      int base = same ? 0 : boundsAll.length;
      if (!same) {
        if (base == 0) {
          boundsAll = bounds;
          ratesAll = new double[bounds.length];
        } else {
          double[] joined = Arrays.copyOf(boundsAll, base + bounds.length);
          System.arraycopy(bounds, 0, joined, base, bounds.length);
          boundsAll = joined;
          ratesAll = Arrays.copyOf(ratesAll, base + bounds.length);
        }
      }
      for (int b = 0; b < bounds.length; b++) {
        for (int k = 0; k < n; k++) {
          v[k] = col.bucket(at[k], b);
        }
        ratesAll[base + b] += Rate.rate(r.t, v, n, r.start, r.end);
      }
      for (int k = 0; k < n; k++) {
        v[k] = col.observations(at[k]);
      }
      countInc += Rate.rawIncrease(v, n);
      countRate += Rate.rate(r.t, v, n, r.start, r.end);
      for (int k = 0; k < n; k++) {
        v[k] = col.sum(at[k]);
      }
      sumInc += Rate.rawIncrease(v, n);
    }
    return new Buckets(boundsAll, ratesAll, countRate, countInc, sumInc, any);
  }
}
