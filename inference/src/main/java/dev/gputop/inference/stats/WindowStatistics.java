package dev.gputop.inference.stats;

import dev.gputop.config.SloTargets;
import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.engine.ConceptValues;
import dev.gputop.inference.engine.HistogramSeries;
import dev.gputop.inference.engine.Series;
import dev.gputop.inference.engine.SeriesKey;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.window.ServerWindow;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

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
 *   <li>means, counts and the prefix hit ratio from raw increases (newest − oldest with
 *       counter-reset correction), so a count is a count of requests;
 *   <li>rates and latencies need two scrapes: until then rates are null and a latency the
 *       server exports has every field null; with no request in the window a latency has a
 *       count of 0 and null values; a latency the server does not export is null.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class WindowStatistics {

  private static final double[] QUANTILES = {0.5, 0.9, 0.99};

  private WindowStatistics() {}

  /**
   * The statistics of a server, or of one of its models, with its SLOs ({@link SloAttainment}).
   *
   * @param model the model to restrict to, or null for the whole server
   * @param slo the targets that apply (resolved from {@code inference.slo})
   */
  public static ServerStats compute(ServerWindow window, String model, SloTargets slo) {
    ServerStats stats = compute(window, model);
    return slo == null || !slo.hasTargets() ? stats : stats.withSlo(SloAttainment.compute(window, model, slo));
  }

  /**
   * The statistics of a server, or of one of its models.
   *
   * @param model the model to restrict to, or null for the whole server
   */
  public static ServerStats compute(ServerWindow window, String model) {
    List<ServerWindow.Entry> entries = window.entries();
    if (entries.isEmpty()) {
      return ServerStats.EMPTY;
    }
    ServerScrape newest = entries.get(entries.size() - 1).scrape();
    Integer running = gaugeSum(newest, Concept.RUNNING, model);
    Integer waiting = gaugeSum(newest, Concept.WAITING, model);
    Double kv = gaugeMax(newest, Concept.KV_CACHE, model);
    Double hitGauge = hitRateGauge(newest, model);
    if (entries.size() < 2) {
      return new ServerStats(running, waiting, kv, hitGauge, null, null, null, null,
          notYet(newest, Concept.TTFT, model), notYet(newest, Concept.ITL, model),
          notYet(newest, Concept.E2E, model), notYet(newest, Concept.QUEUE, model), null,
          null, null, notYet(newest, Concept.PREFILL, model), notYet(newest, Concept.DECODE, model),
          SloStats.NONE);
    }
    Range r = new Range(entries, window.rangeStartNanos());
    Double prefix = prefixHitRatio(r, model);
    if (prefix == null && newest.get(Concept.PREFIX_HITS) == null) {
      prefix = hitGauge;
    }
    LatencyStats ttft = latency(r, Concept.TTFT, model);
    LatencyStats queue = latency(r, Concept.QUEUE, model);
    return new ServerStats(
        running,
        waiting,
        kv,
        prefix,
        rate(r, Concept.REQUESTS, model),
        rate(r, Concept.PROMPT_TOKENS, model),
        rate(r, Concept.GENERATION_TOKENS, model),
        rate(r, Concept.PREEMPTIONS, model),
        ttft,
        latency(r, Concept.ITL, model),
        latency(r, Concept.E2E, model),
        queue,
        ttft == null ? ttftApprox(r, queue, model) : null,
        rate(r, Concept.FAILED_REQUESTS, model),
        ratio(r, Concept.SPEC_ACCEPTED_TOKENS, Concept.SPEC_DRAFT_TOKENS, model),
        latency(r, Concept.PREFILL, model),
        latency(r, Concept.DECODE, model),
        SloStats.NONE);
  }

  /**
   * TGI's approximate TTFT: mean queue time + mean prefill batch time over the window (a
   * request waits in the queue, then its prefill batch runs). Null unless both are known.
   */
  private static Double ttftApprox(Range r, LatencyStats queue, String model) {
    if (queue == null || queue.mean() == null) {
      return null;
    }
    LatencyStats prefill = latency(r, Concept.PREFILL_BATCH, model);
    if (prefill == null || prefill.mean() == null) {
      return null;
    }
    return queue.mean() + prefill.mean();
  }

  /** The entries with times in seconds relative to the range start. */
  private static final class Range {
    final List<ServerWindow.Entry> entries;
    final double[] times;
    final double start;
    final double end;
    final double[] scratch;
    final double[] scratchTimes;

    Range(List<ServerWindow.Entry> entries, long rangeStartNanos) {
      this.entries = entries;
      this.times = new double[entries.size()];
      for (int i = 0; i < times.length; i++) {
        times[i] = (entries.get(i).nanos() - rangeStartNanos) / 1e9;
      }
      this.start = 0;
      this.end = times[times.length - 1];
      this.scratch = new double[times.length];
      this.scratchTimes = new double[times.length];
    }
  }

  /** A latency the server exports but the window can't compute yet: every field null. */
  private static final LatencyStats NOT_YET = new LatencyStats(null, null, null, null, null);

  private static LatencyStats notYet(ServerScrape newest, Concept c, String model) {
    ConceptValues cv = newest.get(c);
    if (cv == null) {
      return null;
    }
    for (HistogramSeries h : cv.histograms().values()) {
      if (matches(model, h.model())) {
        return NOT_YET;
      }
    }
    return null;
  }

  private static boolean matches(String model, String seriesModel) {
    return model == null || model.equals(seriesModel);
  }

  private static Integer gaugeSum(ServerScrape s, Concept c, String model) {
    ConceptValues cv = s.get(c);
    if (cv == null) {
      return null;
    }
    double sum = 0;
    boolean any = false;
    for (Series x : cv.series().values()) {
      if (matches(model, x.model()) && Double.isFinite(x.value())) {
        sum += x.value();
        any = true;
      }
    }
    return any ? (int) Math.round(sum) : null;
  }

  private static Double gaugeMax(ServerScrape s, Concept c, String model) {
    ConceptValues cv = s.get(c);
    if (cv == null) {
      return null;
    }
    double max = Double.NEGATIVE_INFINITY;
    for (Series x : cv.series().values()) {
      if (matches(model, x.model()) && Double.isFinite(x.value())) {
        max = Math.max(max, x.value());
      }
    }
    return max == Double.NEGATIVE_INFINITY ? null : max;
  }

  /** vLLM V0's cumulative hit-rate gauge: the mean of the series that are not −1 (off). */
  private static Double hitRateGauge(ServerScrape s, String model) {
    ConceptValues cv = s.get(Concept.PREFIX_HIT_RATE_GAUGE);
    if (cv == null) {
      return null;
    }
    double sum = 0;
    int n = 0;
    for (Series x : cv.series().values()) {
      if (matches(model, x.model()) && x.value() >= 0 && x.value() <= 1) {
        sum += x.value();
        n++;
      }
    }
    return n == 0 ? null : sum / n;
  }

  private static Set<SeriesKey> counterKeys(Range r, Concept c, String model) {
    Set<SeriesKey> keys = new LinkedHashSet<>();
    for (ServerWindow.Entry e : r.entries) {
      ConceptValues cv = e.scrape().get(c);
      if (cv == null) {
        continue;
      }
      for (Series x : cv.series().values()) {
        if (matches(model, x.model())) {
          keys.add(x.key());
        }
      }
    }
    return keys;
  }

  /** Gathers one series' samples into the scratch arrays; returns how many. */
  private static int gather(Range r, Concept c, SeriesKey key) {
    int n = 0;
    for (int i = 0; i < r.entries.size(); i++) {
      ConceptValues cv = r.entries.get(i).scrape().get(c);
      if (cv == null) {
        continue;
      }
      Series x = cv.series().get(key);
      if (x != null) {
        r.scratchTimes[n] = r.times[i];
        r.scratch[n++] = x.value();
      }
    }
    return n;
  }

  /** Σ over series of PromQL rate(); null when no series has two samples. */
  private static Double rate(Range r, Concept c, String model) {
    return sumOverSeries(
        r, c, model, (g, n) -> Rate.rate(g.scratchTimes, g.scratch, n, g.start, g.end));
  }

  /** Σ over series of the raw increase; null when no series has two samples. */
  private static Double increase(Range r, Concept c, String model) {
    return sumOverSeries(r, c, model, (g, n) -> Rate.rawIncrease(g.scratch, n));
  }

  /** What one counter series adds, from its {@code n} samples gathered in the scratch arrays. */
  private interface PerSeries {
    double of(Range gathered, int n);
  }

  /** Σ over the concept's series with two samples or more of {@code perSeries}; null when none. */
  private static Double sumOverSeries(Range r, Concept c, String model, PerSeries perSeries) {
    double total = 0;
    boolean any = false;
    for (SeriesKey key : counterKeys(r, c, model)) {
      int n = gather(r, c, key);
      if (n >= 2) {
        total += perSeries.of(r, n);
        any = true;
      }
    }
    return any ? total : null;
  }

  private static Double prefixHitRatio(Range r, String model) {
    // Hits and queries are counted at slightly different moments (SGLang counts prompt tokens
    // when a request finishes), so a short window can see more hits than queries.
    return ratio(r, Concept.PREFIX_HITS, Concept.PREFIX_QUERIES, model);
  }

  /**
   * Δpart / Δwhole over the window (raw increases with reset correction), clamped to 0–1; null
   * while either is not exported or Δwhole is 0. The prefix hit ratio and the speculative-decoding
   * acceptance rate (Δaccepted / Δdraft tokens).
   */
  private static Double ratio(Range r, Concept part, Concept whole, String model) {
    Double p = increase(r, part, model);
    Double w = increase(r, whole, model);
    if (p == null || w == null || w <= 0) {
      return null;
    }
    return Math.max(0, Math.min(1, p / w));
  }

  private static LatencyStats latency(Range r, Concept c, String model) {
    Buckets g = buckets(r, c, model);
    if (g == null) {
      return null;
    }
    if (!g.any() || Double.isNaN(g.countIncrease())) {
      return NOT_YET; // exported, but no histogram has two scrapes in the window yet
    }
    double countInc = g.countIncrease();
    if (countInc <= 0) {
      return new LatencyStats(null, null, null, null, 0L);
    }
    Double[] q = new Double[QUANTILES.length];
    for (int i = 0; i < QUANTILES.length; i++) {
      double x = HistogramQuantile.quantile(QUANTILES[i], g.bounds(), g.rates());
      q[i] = Double.isFinite(x) ? x : null;
    }
    Double mean = Double.isFinite(g.sumIncrease()) ? g.sumIncrease() / countInc : null;
    return new LatencyStats(mean, q[0], q[1], q[2], Math.round(countInc));
  }

  /**
   * One latency histogram over the window, summed over its series (engines, ranks, models) the
   * way PromQL's {@code sum by (le)} sums them. Immutable by contract (the arrays are not shared).
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

  /**
   * The windowed buckets of a latency concept ({@code model} null for every model), or null when
   * the server does not export it. {@link Buckets#any()} is false while no series has two
   * scrapes in the window.
   */
  public static Buckets buckets(ServerWindow window, Concept c, String model) {
    List<ServerWindow.Entry> entries = window.entries();
    if (entries.isEmpty()) {
      return null;
    }
    if (entries.size() < 2) {
      return notYet(entries.get(0).scrape(), c, model) == null
          ? null : new Buckets(new double[0], new double[0], Double.NaN, Double.NaN, Double.NaN, false);
    }
    return buckets(new Range(entries, window.rangeStartNanos()), c, model);
  }

  private static Buckets buckets(Range r, Concept c, String model) {
    Set<SeriesKey> keys = new LinkedHashSet<>();
    for (ServerWindow.Entry e : r.entries) {
      ConceptValues cv = e.scrape().get(c);
      if (cv == null) {
        continue;
      }
      for (HistogramSeries h : cv.histograms().values()) {
        if (matches(model, h.model())) {
          keys.add(h.key());
        }
      }
    }
    if (keys.isEmpty()) {
      return null;
    }
    int m = r.entries.size();
    double[] boundsAll = new double[0];
    double[] ratesAll = new double[0];
    double countRate = 0;
    double countInc = 0;
    double sumInc = 0;
    boolean any = false;
    HistogramSeries[] found = new HistogramSeries[m];
    double[] t = new double[m];
    double[] v = new double[m];
    for (SeriesKey key : keys) {
      int n = 0;
      for (int i = m - 1; i >= 0; i--) {
        ConceptValues cv = r.entries.get(i).scrape().get(c);
        HistogramSeries h = cv == null ? null : cv.histograms().get(key);
        if (h == null) {
          continue;
        }
        if (n > 0 && !h.sameLayout(found[0])) {
          break; // an older layout (the window restarts on layout changes, so this is rare)
        }
        found[n] = h;
        t[n++] = r.times[i];
      }
      if (n < 2) {
        continue;
      }
      reverse(found, n);
      reverse(t, n);
      any = true;
      double[] bounds = found[n - 1].bounds();
      // sum by (le): series with the bounds already gathered add bucket by bucket (the usual
      // case: every engine or rank has the same layout); another layout is appended, and
      // HistogramQuantile sorts and merges equal bounds by addition, which is the same sum.
      boolean same = java.util.Arrays.equals(boundsAll, bounds);
      int base = same ? 0 : boundsAll.length;
      if (!same) {
        boundsAll = java.util.Arrays.copyOf(boundsAll, base + bounds.length);
        ratesAll = java.util.Arrays.copyOf(ratesAll, base + bounds.length);
        System.arraycopy(bounds, 0, boundsAll, base, bounds.length);
      }
      for (int b = 0; b < bounds.length; b++) {
        for (int i = 0; i < n; i++) {
          v[i] = found[i].cumulative()[b];
        }
        ratesAll[base + b] += Rate.rate(t, v, n, r.start, r.end);
      }
      for (int i = 0; i < n; i++) {
        v[i] = found[i].observations();
      }
      countInc += Rate.rawIncrease(v, n);
      countRate += Rate.rate(t, v, n, r.start, r.end);
      for (int i = 0; i < n; i++) {
        v[i] = found[i].sum();
      }
      sumInc += Rate.rawIncrease(v, n);
    }
    return new Buckets(boundsAll, ratesAll, countRate, countInc, sumInc, any);
  }

  private static void reverse(double[] a, int n) {
    for (int i = 0, j = n - 1; i < j; i++, j--) {
      double x = a[i];
      a[i] = a[j];
      a[j] = x;
    }
  }

  private static <T> void reverse(T[] a, int n) {
    for (int i = 0, j = n - 1; i < j; i++, j--) {
      T x = a[i];
      a[i] = a[j];
      a[j] = x;
    }
  }
}
