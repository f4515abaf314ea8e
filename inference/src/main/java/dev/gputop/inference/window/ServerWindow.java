package dev.gputop.inference.window;

import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.engine.ConceptValues;
import dev.gputop.inference.engine.HistogramSeries;
import dev.gputop.inference.engine.SeriesKey;
import dev.gputop.inference.engine.Series;
import dev.gputop.inference.engine.ServerScrape;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The scrapes of one server that fall inside the statistics window {@code (newest − window,
 * newest]}, the way a PromQL range selector sees them, plus the start of the current "era": the
 * first scrape since the agent started watching the server or since the server restarted.
 *
 * <p>The window starts over (keeping only the new scrape) when a counter or histogram bucket the
 * statistics use goes backwards (the server restarted), when a histogram's bucket layout changes,
 * or when the engine changes; otherwise rates across a restart would be negative or mix
 * incompatible buckets. Times are the injected clock's monotonic nanoseconds. Capacity is
 * bounded: at most {@code maxScrapes} scrapes are kept, whatever the window.
 *
 * <p>Not thread-safe: owned by the receiver's refresh thread.
 */
public final class ServerWindow {

  /** One scrape in the window. Immutable. */
  public record Entry(long nanos, long epochNanos, ServerScrape scrape) {
    public Entry {
      Objects.requireNonNull(scrape, "scrape");
    }
  }

  private final long windowNanos;
  private final int maxScrapes;
  private final ArrayDeque<Entry> entries = new ArrayDeque<>();
  private long eraStartNanos;
  private long eraStartEpochNanos;
  private int restarts;

  /**
   * @param window how far back statistics look ({@code inference.window})
   * @param maxScrapes the most scrapes kept, at least 2
   */
  public ServerWindow(Duration window, int maxScrapes) {
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("window must be positive");
    }
    if (maxScrapes < 2) {
      throw new IllegalArgumentException("maxScrapes must be at least 2");
    }
    this.windowNanos = window.toNanos();
    this.maxScrapes = maxScrapes;
  }

  /**
   * Adds a scrape taken at {@code nanos} (monotonic) / {@code epochNanos} (wall clock). A scrape
   * not later than the newest one is ignored.
   *
   * @return why the window started over, or null when it did not
   */
  public String add(long nanos, long epochNanos, ServerScrape scrape) {
    Entry newest = entries.peekLast();
    if (newest != null && nanos <= newest.nanos()) {
      return null;
    }
    String restart = newest == null ? null : restartReason(newest.scrape(), scrape);
    if (newest != null && restart == null) {
      scrape = shareWith(newest.scrape(), scrape);
    }
    if (newest == null || restart != null) {
      entries.clear();
      eraStartNanos = nanos;
      eraStartEpochNanos = epochNanos;
      if (restart != null) {
        restarts++;
      }
    }
    entries.addLast(new Entry(nanos, epochNanos, scrape));
    long horizon = nanos - windowNanos;
    while (entries.size() > 1 && (entries.peekFirst().nanos() <= horizon || entries.size() > maxScrapes)) {
      entries.removeFirst();
    }
    return restart;
  }

  /** The scrapes in the window, oldest first. */
  public List<Entry> entries() {
    return List.copyOf(entries);
  }

  public int size() {
    return entries.size();
  }

  /** The newest scrape, or null when none. */
  public Entry newest() {
    return entries.peekLast();
  }

  /**
   * Where the rate range starts: {@code newest − window}, or the era's first scrape when that is
   * later (the agent has no data from before it, so the range does not pretend it has: see
   * docs/inference.md "Windows").
   */
  public long rangeStartNanos() {
    Entry n = entries.peekLast();
    if (n == null) {
      return 0;
    }
    return Math.max(n.nanos() - windowNanos, eraStartNanos);
  }

  /** Wall-clock time of the era's first scrape: the start time of re-exported cumulative data. */
  public long eraStartEpochNanos() {
    return eraStartEpochNanos;
  }

  /** How many times the window started over because of a reset or layout change. */
  public int restarts() {
    return restarts;
  }

  /** Compares two consecutive scrapes: a counter that went down, a changed layout, or null. */
  static String restartReason(ServerScrape previous, ServerScrape current) {
    if (previous.engine() != current.engine()) {
      return "engine changed from " + previous.engine() + " to " + current.engine();
    }
    for (Map.Entry<Concept, ConceptValues> e : current.concepts().entrySet()) {
      ConceptValues before = previous.get(e.getKey());
      if (before == null || !before.source().equals(e.getValue().source())) {
        continue;
      }
      Concept.Kind kind = e.getKey().kind();
      if (kind == Concept.Kind.COUNTER) {
        for (Series s : e.getValue().series().values()) {
          Series b = before.series().get(s.key());
          if (b != null && s.value() < b.value()) {
            return "counter " + describe(s.key()) + " went backwards (" + b.value() + " → "
                + s.value() + "): server restarted";
          }
        }
      } else if (kind == Concept.Kind.HISTOGRAM) {
        for (HistogramSeries h : e.getValue().histograms().values()) {
          HistogramSeries b = before.histograms().get(h.key());
          if (b == null) {
            continue;
          }
          if (!h.sameLayout(b)) {
            return "bucket layout of " + describe(h.key()) + " changed";
          }
          if (h.count() < b.count()) {
            return "histogram " + describe(h.key()) + " count went backwards: server restarted";
          }
          double[] now = h.cumulative();
          double[] then = b.cumulative();
          for (int i = 0; i < now.length; i++) {
            if (now[i] < then[i]) {
              return "histogram " + describe(h.key()) + " bucket went backwards: server restarted";
            }
          }
        }
      }
    }
    return null;
  }

  /**
   * {@code current} with the series keys and bucket bounds of {@code previous} wherever they are
   * equal, so that the scrapes of a window hold one copy of each key and layout rather than one
   * per scrape (the window keeps twenty scrapes or more of every server). Values are untouched.
   */
  static ServerScrape shareWith(ServerScrape previous, ServerScrape current) {
    Map<Concept, ConceptValues> concepts = null;
    for (Map.Entry<Concept, ConceptValues> e : current.concepts().entrySet()) {
      ConceptValues now = e.getValue();
      ConceptValues before = previous.get(e.getKey());
      if (before == null || !before.source().equals(now.source())) {
        continue;
      }
      ConceptValues shared = share(before, now);
      if (shared != now) {
        if (concepts == null) {
          concepts = new EnumMap<>(current.concepts());
        }
        concepts.put(e.getKey(), shared);
      }
    }
    return concepts == null ? current
        : new ServerScrape(current.engine(), concepts, current.models());
  }

  private static ConceptValues share(ConceptValues before, ConceptValues now) {
    boolean changed = false;
    Map<SeriesKey, Series> series = now.series();
    if (!series.isEmpty()) {
      Map<SeriesKey, Series> out = new LinkedHashMap<>();
      for (Series s : series.values()) {
        Series b = before.series().get(s.key());
        if (b != null && b.key() != s.key()) {
          s = new Series(b.key(), b.model().equals(s.model()) ? b.model() : s.model(), s.value());
          changed = true;
        }
        out.put(s.key(), s);
      }
      series = out;
    }
    Map<SeriesKey, HistogramSeries> histograms = now.histograms();
    if (!histograms.isEmpty()) {
      Map<SeriesKey, HistogramSeries> out = new LinkedHashMap<>();
      for (HistogramSeries h : histograms.values()) {
        HistogramSeries b = before.histograms().get(h.key());
        if (b != null && (b.key() != h.key() || b.bounds() != h.bounds())) {
          h = new HistogramSeries(b.key(), b.model().equals(h.model()) ? b.model() : h.model(),
              h.sameLayout(b) ? b.bounds() : h.bounds(), h.cumulative(), h.sum(), h.count());
          changed = true;
        }
        out.put(h.key(), h);
      }
      histograms = out;
    }
    return changed ? new ConceptValues(now.concept(), now.source(), series, histograms) : now;
  }

  private static String describe(SeriesKey key) {
    return key.labels().size() == 0 ? key.source() : key.source() + key.labels();
  }
}
