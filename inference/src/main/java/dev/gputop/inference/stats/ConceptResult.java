package dev.gputop.inference.stats;

import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.engine.ConceptValues;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.window.ServerWindow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How the agent combines one concept's series into the value it reports, and the value one
 * scrape gives it, for {@code explain}. Gauges are computed by {@link WindowStatistics} itself
 * on a window of this one scrape, so the value is the agent's; counters and histograms are
 * reported as rates and percentiles over the window, which one scrape can't give, so their
 * current total is shown with what the agent makes of it.
 *
 * @param concept the concept
 * @param combined how the series were combined, e.g. {@code max of 2 series (the fullest rank)}
 * @param value the value, as the snapshot would carry it, or {@code N/A (...)} with the reason
 */
public record ConceptResult(Concept concept, String combined, String value) {

  /** One result per concept, in {@link Concept} order. */
  public static List<ConceptResult> of(ServerScrape scrape) {
    ServerWindow window = new ServerWindow(Duration.ofMinutes(1), 2);
    window.add(0, 0, scrape);
    ServerStats stats = WindowStatistics.compute(window, null);
    List<ConceptResult> out = new ArrayList<>();
    for (Concept c : Concept.values()) {
      ConceptValues cv = scrape.get(c);
      int n = cv == null ? 0 : c.kind() == Concept.Kind.HISTOGRAM ? cv.histogramCount() : cv.seriesCount();
      if (n == 0) {
        out.add(new ConceptResult(c, "no series read", "N/A (not in this scrape)"));
        continue;
      }
      String series = n == 1 ? "1 series" : n + " series";
      switch (c.kind()) {
        case GAUGE:
          out.add(gauge(c, series, stats, cv));
          break;
        case COUNTER:
          double total = 0;
          for (int i = 0; i < cv.seriesCount(); i++) {
            total += cv.seriesAt(i).value();
          }
          out.add(new ConceptResult(c, "sum of " + series,
              number(total) + " in total now; reported as a rate per second over inference.window"
                  + " (from the second scrape on)"));
          break;
        default:
          double count = 0;
          for (int i = 0; i < cv.histogramCount(); i++) {
            count += cv.histogramAt(i).observations();
          }
          out.add(new ConceptResult(c, "buckets summed by le over " + series,
              number(count) + " observations now; reported as p50, p90, p99 and mean over"
                  + " inference.window (from the second scrape on)"));
      }
    }
    return out;
  }

  /** The gauges as {@link WindowStatistics} combines them: sums, but the fullest KV cache. */
  private static ConceptResult gauge(Concept c, String series, ServerStats stats, ConceptValues cv) {
    switch (c) {
      case RUNNING:
        return new ConceptResult(c, "sum of " + series, String.valueOf(stats.running()));
      case WAITING:
        return new ConceptResult(c, "sum of " + series, String.valueOf(stats.waiting()));
      case KV_CACHE:
        return new ConceptResult(c, "max of " + series + " (the fullest rank or engine)",
            stats.kvCacheUsage() == null ? "N/A (no finite value)"
                : number(stats.kvCacheUsage()) + String.format(Locale.ROOT, " (%.1f%% in use)", 100 * stats.kvCacheUsage()));
      case PREFIX_HIT_RATE_GAUGE:
        return new ConceptResult(c, "mean of the " + series + " that are not -1 (prefix caching off)",
            stats.prefixHitRatio() == null ? "N/A (prefix caching off)" : number(stats.prefixHitRatio()));
      default:
        double sum = 0;
        for (int i = 0; i < cv.seriesCount(); i++) {
          sum += cv.seriesAt(i).value();
        }
        return new ConceptResult(c, "sum of " + series, number(sum));
    }
  }

  private static String number(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return String.format(Locale.ROOT, "%.4g", v);
  }
}
