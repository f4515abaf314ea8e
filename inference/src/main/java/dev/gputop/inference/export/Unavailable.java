package dev.gputop.inference.export;

import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.stats.LatencyStats;
import dev.gputop.inference.stats.RequestLengths;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.window.ServerWindow;
import java.lang.reflect.RecordComponent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Why a statistic of a server entry is N/A: the {@code unavailable} object of the snapshot, one
 * reason per null field, from a closed set, so that the page, {@code top} and scripts can tell a
 * metric the engine lacks from one that has no data yet. The one place these reasons are decided,
 * from the server's state, its window and whether the engine's scrape carries the concept:
 *
 * <ul>
 *   <li>{@link #DOWN}: the last scrape failed; nothing is known;
 *   <li>{@link #NOT_EXPORTED}: the engine's scrape has no series of the concept (TGI's TTFT,
 *       llama.cpp's KV cache on new builds), so the value will never come;
 *   <li>{@link #STARTING}: fewer than two scrapes of it in the window, which rates and latencies need;
 *   <li>{@link #NO_REQUESTS}: exported, but no request completed in the window (a latency's count
 *       is 0, a ratio's denominator did not move).
 * </ul>
 *
 * Stateless.
 */
public final class Unavailable {

  public static final String DOWN = "down";
  public static final String NOT_EXPORTED = "not_exported";
  public static final String STARTING = "starting";
  public static final String NO_REQUESTS = "no_requests";

  /** Every reason, for the schema and the views' legends. */
  public static final List<String> REASONS = List.of(NOT_EXPORTED, NO_REQUESTS, STARTING, DOWN);

  /**
   * The concepts each {@link ServerStats} field is computed from: one list of alternatives, each
   * a list of concepts that must all be in the scrape. Every field but {@code slo} is here
   * ({@code UnavailableTest} checks), so a new statistic gets its reason too; {@code
   * requestLengths} has one per part ({@code requestLengths.prompt}, {@code
   * requestLengths.generation}).
   */
  static final Map<String, List<List<Concept>>> SOURCES = Map.ofEntries(
      Map.entry("running", List.of(List.of(Concept.RUNNING))),
      Map.entry("waiting", List.of(List.of(Concept.WAITING))),
      Map.entry("kvCacheUsage", List.of(List.of(Concept.KV_CACHE))),
      Map.entry("prefixHitRatio", List.of(List.of(Concept.PREFIX_HITS, Concept.PREFIX_QUERIES),
          List.of(Concept.PREFIX_HIT_RATE_GAUGE))),
      Map.entry("requestsPerSecond", List.of(List.of(Concept.REQUESTS))),
      Map.entry("promptTokensPerSecond", List.of(List.of(Concept.PROMPT_TOKENS))),
      Map.entry("generationTokensPerSecond", List.of(List.of(Concept.GENERATION_TOKENS))),
      Map.entry("preemptionsPerSecond", List.of(List.of(Concept.PREEMPTIONS))),
      Map.entry("ttft", List.of(List.of(Concept.TTFT))),
      Map.entry("itl", List.of(List.of(Concept.ITL))),
      Map.entry("tpot", List.of(List.of(Concept.TPOT))),
      Map.entry("e2e", List.of(List.of(Concept.E2E))),
      Map.entry("queue", List.of(List.of(Concept.QUEUE))),
      // Only for an engine without a TTFT histogram (TGI): its queue and prefill batch times.
      Map.entry("ttftApproxMean", List.of(List.of(Concept.QUEUE, Concept.PREFILL_BATCH))),
      Map.entry("failedRequestsPerSecond", List.of(List.of(Concept.FAILED_REQUESTS))),
      Map.entry("abortedRequestsPerSecond", List.of(List.of(Concept.ABORTED_REQUESTS))),
      Map.entry("specDecodeAcceptanceRate", List.of(List.of(Concept.SPEC_DRAFT_TOKENS, Concept.SPEC_ACCEPTED_TOKENS))),
      Map.entry("prefill", List.of(List.of(Concept.PREFILL))),
      Map.entry("decode", List.of(List.of(Concept.DECODE))),
      // The parts of a component that groups distributions (RequestLengths) have a reason
      // each, keyed component.part.
      Map.entry("requestLengths.prompt", List.of(List.of(Concept.PROMPT_LENGTH))),
      Map.entry("requestLengths.generation", List.of(List.of(Concept.GENERATION_LENGTH))));

  /** Fields computed from the window's change (rates, latencies, ratios), not its newest scrape. */
  private static final List<String> NEWEST_SCRAPE = List.of("running", "waiting", "kvCacheUsage");

  /**
   * Components that are breakdowns of other values, not statistics of their own: their absence is
   * said by the values they break down (the SLOs by their latencies, the finish reasons by the
   * request rate).
   */
  static final List<String> BREAKDOWNS = List.of("slo", "finishReasons");

  private static final RecordComponent[] FIELDS = ServerStats.class.getRecordComponents();
  private static final RecordComponent[] LENGTHS = RequestLengths.class.getRecordComponents();

  private Unavailable() {}

  /**
   * The reason for each N/A field of {@code stats}, in the fields' order.
   *
   * @param state the server's state
   * @param window the server's window, or null when it has none (never scraped)
   */
  public static Map<String, String> of(ServerState state, ServerStats stats, ServerWindow window) {
    Map<String, String> out = new LinkedHashMap<>();
    for (RecordComponent c : FIELDS) {
      if (BREAKDOWNS.contains(c.getName())) {
        continue;
      }
      Object value = value(c, stats);
      if (value instanceof RequestLengths lengths) {
        for (RecordComponent part : LENGTHS) {
          add(out, c.getName() + "." + part.getName(), value(part, lengths), state, window);
        }
      } else {
        add(out, c.getName(), value, state, window);
      }
    }
    return out;
  }

  /** Puts the reason of {@code field} when its value is N/A (a latency with no mean and no p50). */
  private static void add(
      Map<String, String> out, String field, Object value, ServerState state, ServerWindow window) {
    if (value != null && !(value instanceof LatencyStats l && l.p50() == null && l.mean() == null)) {
      return;
    }
    out.put(field, reason(field, value, state, window));
  }

  private static String reason(String field, Object value, ServerState state, ServerWindow window) {
    if (state == ServerState.DOWN) {
      return DOWN;
    }
    if (window == null || window.size() == 0 || !exported(field, window)) {
      return NOT_EXPORTED;
    }
    if (NEWEST_SCRAPE.contains(field)) {
      return STARTING; // exported but no finite sample yet
    }
    if (window.size() < 2 || state == ServerState.STARTING) {
      return STARTING;
    }
    if (value instanceof LatencyStats l) {
      return l.count() == null ? STARTING : NO_REQUESTS;
    }
    return field.endsWith("PerSecond") ? STARTING : NO_REQUESTS;
  }

  private static boolean exported(String field, ServerWindow window) {
    List<List<Concept>> alternatives = SOURCES.get(field);
    if (alternatives == null) {
      return false;
    }
    for (List<Concept> all : alternatives) {
      if (all.stream().allMatch(window::has)) {
        return !field.equals("ttftApproxMean") || !window.has(Concept.TTFT);
      }
    }
    return false;
  }

  private static Object value(RecordComponent c, Record of) {
    try {
      return c.getAccessor().invoke(of);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
