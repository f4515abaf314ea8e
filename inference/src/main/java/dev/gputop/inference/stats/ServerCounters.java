package dev.gputop.inference.stats;

import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.engine.ConceptValues;
import dev.gputop.inference.engine.Series;
import dev.gputop.inference.engine.SeriesKey;
import dev.gputop.inference.engine.ServerScrape;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A server's monotonic totals since the agent's first scrape of it (docs/metrics.md,
 * "Counters"): requests by outcome, prompt, generation and cached prompt tokens, preemptions.
 * Each starts at 0 at the first scrape and grows by every increase of the server's counters
 * after it, series by series as Prometheus' {@code increase()} counts them: a value lower than
 * the last one is a reset (the server restarted) and counts in full, a series the server adds
 * later counts from its first value. So a total never goes backwards, and its increase over a
 * server restart is what the server completed.
 *
 * <p>Bounded: the last value of each series seen recently, a total per model (at most {@value
 * #MAX_MODELS}). Not thread-safe: owned by the receiver's refresh thread.
 */
public final class ServerCounters {

  /** What is exported, in this order. */
  public enum Total {
    /** Requests that finished without an error ({@code outcome="success"}). */
    SUCCESS_REQUESTS,
    /** Requests that ended in a server-side error ({@code outcome="error"}). */
    ERROR_REQUESTS,
    /** Requests the client aborted or cancelled ({@code outcome="aborted"}). */
    ABORTED_REQUESTS,
    PROMPT_TOKENS,
    GENERATION_TOKENS,
    /** Prompt tokens served from the prefix cache. */
    CACHED_PROMPT_TOKENS,
    PREEMPTIONS
  }

  static final int MAX_MODELS = 256;
  /** Series kept beyond those of the newest scrape, for series that skip a scrape. */
  private static final int SLACK = 64;

  /** The concepts read, by raw index. */
  private static final Concept[] RAW = {
    Concept.REQUESTS, Concept.FAILED_REQUESTS, Concept.ABORTED_REQUESTS, Concept.PROMPT_TOKENS,
    Concept.GENERATION_TOKENS, Concept.PREFIX_HITS, Concept.PREEMPTIONS
  };
  private static final int REQUESTS = 0;
  private static final int FAILED = 1;
  private static final int ABORTED = 2;

  private static final class Last {
    double value;
    long seen;

    Last(double value, long seen) {
      this.value = value;
      this.seen = seen;
    }
  }

  /** One total per raw concept (Δ summed since the start), and whether it was ever seen. */
  private static final class Raw {
    final double[] sum = new double[RAW.length];
    final boolean[] present = new boolean[RAW.length];
    /** The last success total handed out: never lower next time. */
    double success;
  }

  @SuppressWarnings("unchecked")
  private final Map<SeriesKey, Last>[] last = new Map[RAW.length];
  private final Raw server = new Raw();
  private final Map<String, Raw> models = new LinkedHashMap<>();
  private long scrapes;
  private long startEpochNanos;
  private long epochNanos;
  /** Whether the failed requests are series of the requests' own family (vLLM's finished_reason). */
  private boolean failedWithinRequests;
  /** Whether the aborted requests are series of the requests' own family. */
  private boolean abortedWithinRequests;

  public ServerCounters() {
    for (int i = 0; i < RAW.length; i++) {
      last[i] = new HashMap<>();
    }
  }

  /** Adds one readable scrape, taken at {@code epochNanos} (wall clock). */
  public void add(long epochNanos, ServerScrape scrape) {
    if (scrapes == 0) {
      startEpochNanos = epochNanos;
    }
    this.epochNanos = epochNanos;
    scrapes++;
    for (int k = 0; k < RAW.length; k++) {
      ConceptValues cv = scrape.get(RAW[k]);
      if (cv == null) {
        continue;
      }
      server.present[k] = true;
      Map<SeriesKey, Last> byKey = last[k];
      for (int i = 0, n = cv.seriesCount(); i < n; i++) {
        Series s = cv.seriesAt(i);
        double v = s.value();
        if (!Double.isFinite(v)) {
          continue;
        }
        Last l = byKey.get(s.key());
        Raw m = model(s.model());
        if (m != null) {
          m.present[k] = true;
        }
        if (l == null) {
          byKey.put(s.key(), new Last(v, scrapes));
          continue;
        }
        double delta = v >= l.value ? v - l.value : v; // lower: a reset, counted as Prometheus does
        l.value = v;
        l.seen = scrapes;
        server.sum[k] += delta;
        if (m != null) {
          m.sum[k] += delta;
        }
      }
      if (byKey.size() > cv.seriesCount() + SLACK) {
        for (Iterator<Last> it = byKey.values().iterator(); it.hasNext(); ) {
          if (it.next().seen != scrapes) {
            it.remove();
          }
        }
      }
    }
    ConceptValues requests = scrape.get(Concept.REQUESTS);
    ConceptValues failed = scrape.get(Concept.FAILED_REQUESTS);
    if (requests != null && failed != null) {
      failedWithinRequests = requests.source().name().equals(failed.source().name());
    }
    ConceptValues aborted = scrape.get(Concept.ABORTED_REQUESTS);
    if (requests != null && aborted != null) {
      abortedWithinRequests = requests.source().name().equals(aborted.source().name());
    }
  }

  private Raw model(String model) {
    Raw m = models.get(model);
    if (m == null && models.size() < MAX_MODELS) {
      m = new Raw();
      models.put(model, m);
    }
    return m;
  }

  /** Whether a scrape was added yet. */
  public boolean started() {
    return scrapes > 0;
  }

  /** The agent's first scrape of the server (wall clock): the totals' start time. */
  public long startEpochNanos() {
    return startEpochNanos;
  }

  /** The newest scrape added (wall clock). */
  public long epochNanos() {
    return epochNanos;
  }

  /** The server's total, or NaN while the server has never exported it. */
  public double total(Total t) {
    return total(server, t);
  }

  /** One model's total ({@code ""}: series that name none), or NaN when not known. */
  public double total(String model, Total t) {
    Raw m = models.get(model);
    return m == null ? Double.NaN : total(m, t);
  }

  private double total(Raw r, Total t) {
    switch (t) {
      case SUCCESS_REQUESTS:
        if (!r.present[REQUESTS]) {
          return Double.NaN;
        }
        // Where the failures or aborts are series of the requests' family they are part of its sum.
        double success = r.sum[REQUESTS] - (failedWithinRequests ? r.sum[FAILED] : 0)
            - (abortedWithinRequests ? r.sum[ABORTED] : 0);
        r.success = Math.max(r.success, success);
        return r.success;
      case ERROR_REQUESTS:
        return r.present[FAILED] ? r.sum[FAILED] : Double.NaN;
      case ABORTED_REQUESTS:
        return r.present[ABORTED] ? r.sum[ABORTED] : Double.NaN;
      default:
        int k = t.ordinal(); // the token and preemption totals are RAW's concepts, at their ordinals
        return r.present[k] ? r.sum[k] : Double.NaN;
    }
  }
}
