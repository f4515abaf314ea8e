package dev.gputop.inference.window;

import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.engine.ConceptValues;
import dev.gputop.inference.engine.Engine;
import dev.gputop.inference.engine.HistogramSeries;
import dev.gputop.inference.engine.Series;
import dev.gputop.inference.engine.SeriesKey;
import dev.gputop.inference.engine.ServerScrape;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

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
 * <p>Storage is columnar, because a server's window keeps twenty scrapes or more and the agent
 * may watch hundreds of servers: the scrapes are slots of a ring (grown as needed, up to {@code
 * maxScrapes}), and each counter or histogram series is one {@link SeriesColumn} holding its key
 * and model once and its values per slot in primitive arrays ({@link ConceptColumns} per
 * concept). Gauges are only read from the newest scrape, so only the newest scrape's gauges are
 * kept. The statistics read the columns in place: nothing is copied per refresh.
 *
 * <p>Logical indexes {@code 0 … size() − 1} go from the oldest scrape to the newest; {@link
 * #slot(int)} turns one into the physical slot the columns are indexed by.
 *
 * <p>Not thread-safe: owned by the receiver's refresh thread.
 */
public final class ServerWindow {

  private static final int INITIAL_CAPACITY = 4;
  /** In the order of an {@code EnumMap}, without its per-entry objects. */
  private static final Concept[] CONCEPTS = Concept.values();

  private final long windowNanos;
  private final int maxScrapes;
  private long[] nanos = new long[0];
  private long[] epochs = new long[0];
  private int head;
  private int size;
  private long eraStartNanos;
  private long eraStartEpochNanos;
  private int restarts;
  private Engine engine = Engine.UNKNOWN;
  private dev.gputop.inference.engine.Drift drift = dev.gputop.inference.engine.Drift.NONE;
  private List<String> models = List.of();
  /** Counter and histogram concepts with a series in the window. */
  private final Map<Concept, ConceptColumns> columns = new EnumMap<>(Concept.class);
  /** The newest scrape's gauge concepts. */
  private final Map<Concept, ConceptValues> gauges = new EnumMap<>(Concept.class);

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
   * not later than the newest one is ignored. The scrape itself is not kept: its values are.
   *
   * @return why the window started over, or null when it did not
   */
  public String add(long nanos, long epochNanos, ServerScrape scrape) {
    if (size > 0 && nanos <= newestNanos()) {
      return null;
    }
    String restart = size == 0 ? null : restartReason(scrape);
    if (size == 0 || restart != null) {
      columns.clear();
      head = 0;
      size = 0;
      eraStartNanos = nanos;
      eraStartEpochNanos = epochNanos;
      if (restart != null) {
        restarts++;
      }
    }
    long horizon = nanos - windowNanos;
    while (size > 0 && (this.nanos[head] <= horizon || size >= maxScrapes)) {
      dropOldest();
    }
    if (size == this.nanos.length) {
      grow();
    }
    int slot = (head + size) % this.nanos.length;
    size++;
    this.nanos[slot] = nanos;
    epochs[slot] = epochNanos;
    write(slot, scrape);
    return restart;
  }

  private void write(int slot, ServerScrape scrape) {
    engine = scrape.engine();
    drift = scrape.drift();
    models = scrape.models();
    gauges.clear();
    for (ConceptColumns cc : columns.values()) {
      cc.newest(null, false);
    }
    int capacity = nanos.length;
    for (Concept c : CONCEPTS) {
      ConceptValues cv = scrape.get(c);
      if (cv == null) {
        continue;
      }
      Concept.Kind kind = c.kind();
      if (kind == Concept.Kind.GAUGE) {
        gauges.put(c, cv);
        continue;
      }
      ConceptColumns cc = columns.computeIfAbsent(c, ConceptColumns::new);
      cc.newest(cv.source(), true);
      int hint = 0;
      if (kind == Concept.Kind.COUNTER) {
        for (int k = 0, n = cv.seriesCount(); k < n; k++) {
          Series s = cv.seriesAt(k);
          int i = cc.find(s.key(), hint);
          if (i < 0) {
            i = cc.add(new SeriesColumn(s.key(), s.model(), null, capacity));
          }
          cc.get(i).putCounter(slot, s.value());
          hint = i + 1;
        }
      } else {
        for (int k = 0, n = cv.histogramCount(); k < n; k++) {
          HistogramSeries h = cv.histogramAt(k);
          int i = cc.find(h.key(), hint);
          if (i < 0) {
            i = cc.add(new SeriesColumn(h.key(), h.model(), h.bounds(), capacity));
          } else if (!Arrays.equals(cc.get(i).bounds(), h.bounds())) {
            // Back with another layout after a gap: its older samples are not comparable.
            cc.replace(i, new SeriesColumn(cc.get(i).key(), h.model(), h.bounds(), capacity));
          }
          cc.get(i).putHistogram(slot, h.cumulative(), h.sum(), h.count());
          hint = i + 1;
        }
      }
    }
    for (Concept c : CONCEPTS) {
      ConceptColumns cc = columns.get(c);
      if (cc != null && cc.size() == 0 && !cc.inNewest()) {
        columns.remove(c);
      }
    }
  }

  private void dropOldest() {
    int slot = head;
    for (Iterator<ConceptColumns> it = columns.values().iterator(); it.hasNext(); ) {
      ConceptColumns cc = it.next();
      if (!cc.clear(slot) && !cc.inNewest()) {
        it.remove();
      }
    }
    head = (head + 1) % nanos.length;
    size--;
  }

  /** Grows the ring by a quarter (at least 2 slots), up to {@code maxScrapes}; oldest at slot 0. */
  private void grow() {
    int old = nanos.length;
    int capacity = old == 0 ? Math.min(INITIAL_CAPACITY, maxScrapes)
        : Math.min(maxScrapes, old + Math.max(2, old / 4));
    long[] n = new long[capacity];
    long[] e = new long[capacity];
    for (int i = 0; i < size; i++) {
      n[i] = nanos[(head + i) % old];
      e[i] = epochs[(head + i) % old];
    }
    for (ConceptColumns cc : columns.values()) {
      cc.relayout(head, capacity);
    }
    nanos = n;
    epochs = e;
    head = 0;
  }

  /** How many scrapes the window holds. */
  public int size() {
    return size;
  }

  /** The physical slot of the {@code i}-th scrape (0 the oldest), as {@link SeriesColumn} indexes. */
  public int slot(int i) {
    return (head + i) % nanos.length;
  }

  /** Monotonic time of the {@code i}-th scrape (0 the oldest). */
  public long nanos(int i) {
    return nanos[slot(i)];
  }

  /** Monotonic time of the newest scrape; the window must not be empty. */
  public long newestNanos() {
    return nanos(size - 1);
  }

  /** Wall-clock time of the newest scrape; the window must not be empty. */
  public long newestEpochNanos() {
    return epochs[slot(size - 1)];
  }

  /** What the newest scrape showed of the engine's drift ({@code NONE} while empty). */
  public dev.gputop.inference.engine.Drift drift() {
    return drift;
  }

  /** The engine of the newest scrape ({@link Engine#UNKNOWN} while empty). */
  public Engine engine() {
    return engine;
  }

  /** The served models the newest scrape names, sorted; empty while empty or unnamed. */
  public List<String> models() {
    return models;
  }

  /** Whether the newest scrape has the concept. */
  public boolean has(Concept concept) {
    if (concept.kind() == Concept.Kind.GAUGE) {
      return gauges.containsKey(concept);
    }
    ConceptColumns cc = columns.get(concept);
    return cc != null && cc.inNewest();
  }

  /** A gauge concept's series in the newest scrape, or null when absent. */
  public ConceptValues gauge(Concept concept) {
    return gauges.get(concept);
  }

  /**
   * A counter or histogram concept's series with a sample in the window (each {@link
   * SeriesColumn} says in which slots), or null when none.
   */
  public ConceptColumns columns(Concept concept) {
    return columns.get(concept);
  }

  /**
   * Where the rate range starts: {@code newest − window}, or the era's first scrape when that is
   * later (the agent has no data from before it, so the range does not pretend it has: see
   * docs/inference.md "Windows").
   */
  public long rangeStartNanos() {
    if (size == 0) {
      return 0;
    }
    return Math.max(newestNanos() - windowNanos, eraStartNanos);
  }

  /** Wall-clock time of the era's first scrape: the start time of re-exported cumulative data. */
  public long eraStartEpochNanos() {
    return eraStartEpochNanos;
  }

  /** How many times the window started over because of a reset or layout change. */
  public int restarts() {
    return restarts;
  }

  /** Compares the newest scrape with the next: a counter that went down, a changed layout, or null. */
  private String restartReason(ServerScrape current) {
    if (engine != current.engine()) {
      return "engine changed from " + engine + " to " + current.engine();
    }
    int last = slot(size - 1);
    for (Concept c : CONCEPTS) {
      ConceptValues now = current.get(c);
      Concept.Kind kind = c.kind();
      ConceptColumns before = now == null || kind == Concept.Kind.GAUGE ? null : columns.get(c);
      if (before == null || !before.inNewest() || !before.source().equals(now.source())) {
        continue;
      }
      int hint = 0;
      if (kind == Concept.Kind.COUNTER) {
        for (int k = 0, n = now.seriesCount(); k < n; k++) {
          Series s = now.seriesAt(k);
          int i = before.find(s.key(), hint);
          if (i < 0) {
            continue;
          }
          hint = i + 1;
          SeriesColumn b = before.get(i);
          if (b.present(last) && s.value() < b.value(last)) {
            return "counter " + describe(s.key()) + " went backwards (" + b.value(last) + " → "
                + s.value() + "): server restarted";
          }
        }
      } else {
        for (int k = 0, n = now.histogramCount(); k < n; k++) {
          HistogramSeries h = now.histogramAt(k);
          int i = before.find(h.key(), hint);
          if (i < 0) {
            continue;
          }
          hint = i + 1;
          SeriesColumn b = before.get(i);
          if (!b.present(last)) {
            continue;
          }
          if (!Arrays.equals(h.bounds(), b.bounds())) {
            return "bucket layout of " + describe(h.key()) + " changed";
          }
          if (h.count() < b.value(last)) {
            return "histogram " + describe(h.key()) + " count went backwards: server restarted";
          }
          double[] cumulative = h.cumulative();
          for (int x = 0; x < cumulative.length; x++) {
            if (cumulative[x] < b.bucket(last, x)) {
              return "histogram " + describe(h.key()) + " bucket went backwards: server restarted";
            }
          }
        }
      }
    }
    return null;
  }

  private static String describe(SeriesKey key) {
    return key.labels().size() == 0 ? key.source() : key.source() + key.labels();
  }
}
