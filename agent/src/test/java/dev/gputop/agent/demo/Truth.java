package dev.gputop.agent.demo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link LoadModel} really did, for tests to compare with what the agent computes from the
 * exposition: every completed request with the latencies it drew, the exact totals that went into
 * each histogram and counter since the last restart, and the restart times. Times are readings of
 * the model's clock ({@code nanoTime}). An immutable snapshot; take a new one to see later events.
 *
 * <pre>{@code
 * Truth t = Truths.of(replica);
 * double[] ttft = t.values(Kind.TTFT, t.nowNanos() - 60_000_000_000L, t.nowNanos());
 * double p99 = Truth.quantile(ttft, 0.99);
 * Truth.Total itl = t.total(Kind.ITL); // equals the histogram's _count and _sum
 * }</pre>
 */
public final class Truth {

  /** Count and sum of the observations of one histogram since the last restart. */
  public record Total(long count, double sum) {
    static final Total ZERO = new Total(0, 0);

    Total plus(Total o) {
      return new Total(count + o.count, sum + o.sum);
    }
  }

  /**
   * Counter values since the last restart (for one engine, or summed).
   *
   * @param arrived requests received (including rejected ones)
   * @param rejected requests rejected at validation (never queued)
   * @param completed requests finished
   * @param promptTokens prompt tokens prefilled (counted when the first token is produced)
   * @param generationTokens tokens generated (counted as produced)
   * @param prefixQueries prompt tokens looked up in the prefix cache (at scheduling)
   * @param prefixHits of those, tokens found in the cache
   * @param preemptions requests evicted from the batch
   */
  public record Counters(
      long arrived,
      long rejected,
      long completed,
      long promptTokens,
      long generationTokens,
      long prefixQueries,
      long prefixHits,
      long preemptions) {

    static final Counters ZERO = new Counters(0, 0, 0, 0, 0, 0, 0, 0);

    Counters plus(Counters o) {
      return new Counters(
          arrived + o.arrived,
          rejected + o.rejected,
          completed + o.completed,
          promptTokens + o.promptTokens,
          generationTokens + o.generationTokens,
          prefixQueries + o.prefixQueries,
          prefixHits + o.prefixHits,
          preemptions + o.preemptions);
    }
  }

  private final long nowNanos;
  private final List<CompletedRequest> requests;
  private final List<long[]> ttfts;
  private final List<Long> restarts;
  private final List<Map<Kind, Total>> totals;
  private final List<Counters> counters;
  private final List<Integer> running;
  private final List<Integer> waiting;

  Truth(
      long nowNanos,
      List<CompletedRequest> requests,
      List<long[]> ttfts,
      List<Long> restarts,
      List<Map<Kind, Total>> totals,
      List<Counters> counters,
      List<Integer> running,
      List<Integer> waiting) {
    this.nowNanos = nowNanos;
    this.requests = List.copyOf(requests);
    this.ttfts = List.copyOf(ttfts);
    this.restarts = List.copyOf(restarts);
    List<Map<Kind, Total>> t = new ArrayList<>();
    for (Map<Kind, Total> m : totals) {
      t.add(Map.copyOf(m));
    }
    this.totals = List.copyOf(t);
    this.counters = List.copyOf(counters);
    this.running = List.copyOf(running);
    this.waiting = List.copyOf(waiting);
  }

  /** The model time this snapshot was taken at. */
  public long nowNanos() {
    return nowNanos;
  }

  /** Completed requests, oldest first (those of the retention window, across restarts). */
  public List<CompletedRequest> requests() {
    return requests;
  }

  /** When the server restarted (counters back to zero), oldest first. */
  public List<Long> restarts() {
    return restarts;
  }

  /** The number of data-parallel engines. */
  public int engines() {
    return counters.size();
  }

  /** Totals of one histogram kind since the last restart, summed over engines. */
  public Total total(Kind kind) {
    Total t = Total.ZERO;
    for (int e = 0; e < totals.size(); e++) {
      t = t.plus(total(kind, e));
    }
    return t;
  }

  /** Totals of one histogram kind since the last restart, for one engine. */
  public Total total(Kind kind, int engine) {
    return totals.get(engine).getOrDefault(Objects.requireNonNull(kind, "kind"), Total.ZERO);
  }

  /** Counters since the last restart, summed over engines. */
  public Counters counters() {
    Counters c = Counters.ZERO;
    for (Counters x : counters) {
      c = c.plus(x);
    }
    return c;
  }

  /** Counters since the last restart of one engine. */
  public Counters counters(int engine) {
    return counters.get(engine);
  }

  /** Requests in the batch now, summed over engines. */
  public int running() {
    return running.stream().mapToInt(Integer::intValue).sum();
  }

  /** Requests waiting now, summed over engines. */
  public int waiting() {
    return waiting.stream().mapToInt(Integer::intValue).sum();
  }

  /**
   * The true values of one latency or size kind observed in {@code (fromNanos, toNanos]}: TTFT
   * by first-token time (including requests still running, as the server's histogram counts
   * them), all others by finish time. ITL is expanded to one value per gap (steady gaps and
   * preemption stalls), attributed to the request's finish; the server's histogram counts them as
   * the tokens are produced, so over a window the two differ by the requests in flight.
   */
  public double[] values(Kind kind, long fromNanos, long toNanos) {
    double[] out = new double[16];
    int n = 0;
    if (kind == Kind.TTFT) {
      for (long[] t : ttfts) {
        if (t[0] > fromNanos && t[0] <= toNanos) {
          out = grow(out, n);
          out[n++] = Double.longBitsToDouble(t[1]);
        }
      }
      return Arrays.copyOf(out, n);
    }
    for (CompletedRequest r : requests) {
      long t = kind == Kind.TTFT ? r.firstTokenNanos() : r.finishNanos();
      if (t <= fromNanos || t > toNanos) {
        continue;
      }
      if (kind == Kind.ITL) {
        int steady = r.itlObservations() - r.stallGapsSeconds().size();
        for (int i = 0; i < steady; i++) {
          out = grow(out, n);
          out[n++] = r.itlSeconds();
        }
        for (double g : r.stallGapsSeconds()) {
          out = grow(out, n);
          out[n++] = g;
        }
        continue;
      }
      out = grow(out, n);
      out[n++] = value(kind, r);
    }
    return Arrays.copyOf(out, n);
  }

  /**
   * The exact empirical quantile (nearest rank) of {@code values}, or NaN when empty. Use it as
   * the reference for bucket-interpolated estimates, which are only as precise as the buckets.
   */
  public static double quantile(double[] values, double q) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static double[] grow(double[] a, int n) {
    return n < a.length ? a : Arrays.copyOf(a, a.length * 2);
  }

  private static double value(Kind kind, CompletedRequest r) {
    switch (kind) {
      case TTFT:
        return r.ttftSeconds();
      case E2E:
        return r.e2eSeconds();
      case QUEUE:
        return r.queueSeconds();
      case PREFILL:
        return r.prefillSeconds();
      case DECODE:
        return r.decodeSeconds();
      case INFERENCE:
        return r.inferenceSeconds();
      case TPOT:
        return r.tpotSeconds();
      case PROMPT_TOKENS:
        return r.promptTokens();
      case GENERATION_TOKENS:
        return r.generationTokens();
      case MAX_TOKENS:
        return r.maxTokens();
      case PARAMS_N:
        return 1;
      case PREFILL_COMPUTED_TOKENS:
        return r.promptTokens() - r.cachedTokens();
      case PREEMPTIONS_PER_REQUEST:
        return r.preemptions();
      default:
        throw new IllegalArgumentException("no per-request truth for " + kind);
    }
  }

  static Map<Kind, Total> emptyTotals() {
    return new EnumMap<>(Kind.class);
  }
}
