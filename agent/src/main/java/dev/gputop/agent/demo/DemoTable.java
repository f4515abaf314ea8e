package dev.gputop.agent.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.inference.export.Unavailable;
import java.util.Locale;
import java.util.Map;

/**
 * Renders the agent's JSON snapshot (the document of {@code GET /api/snapshot}) as the fixed-width
 * text table the {@code demo} command refreshes: one row per inference server with state,
 * running/waiting, KV cache, prefix hit, TTFT p50/p99, ITL p50, E2E p99, requests/s and generated
 * tokens/s, then the Overview serving line and the alerts. Values that are null or missing print
 * as {@code -}; latencies print in ms below one second and in s above; ratios as percentages.
 * Stateless and thread-safe.
 *
 * <pre>{@code
 * String text = DemoTable.render(snapshotJson);
 * }</pre>
 */
public final class DemoTable {

  private static final String ROW = "%-14s %-8s %-8s %9s %5s %6s %8s %8s %7s %7s %6s %9s";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** What the short N/A reasons mean; {@code top} prints the same key under its table. */
  public static final String KEY = "N/E not exported by the engine · IDLE no requests in the window"
      + " · WAIT under two scrapes yet · DOWN scrape failed · ≈ approximate mean TTFT";

  private DemoTable() {}

  /**
   * The short reason the snapshot gives for {@code field} of {@code server} being N/A ({@code
   * inference[].unavailable}): N/E, IDLE, WAIT or DOWN; null when it gives none.
   */
  public static String reasonCode(JsonNode server, String field) {
    switch (server.path("unavailable").path(field).asText("")) {
      case Unavailable.NOT_EXPORTED:
        return "N/E";
      case Unavailable.NO_REQUESTS:
        return "IDLE";
      case Unavailable.STARTING:
        return "WAIT";
      case Unavailable.DOWN:
        return "DOWN";
      default:
        return null;
    }
  }

  /** {@code shown}, or where it is N/A ({@code -}) the snapshot's short reason for it. */
  private static String why(JsonNode server, String field, String shown) {
    String code = "-".equals(shown) ? reasonCode(server, field) : null;
    return code == null ? shown : code;
  }

  /** The table for a snapshot given as a map (as Jackson would read the JSON). */
  public static String render(Map<String, ?> snapshot) {
    JsonNode tree = MAPPER.valueToTree(snapshot);
    return render(tree);
  }

  /** The table for a snapshot document; lines end with {@code \n}. */
  public static String render(JsonNode snapshot) {
    StringBuilder b = new StringBuilder();
    line(b, String.format(Locale.ROOT, ROW, "SERVER", "ENGINE", "STATE", "RUN/WAIT", "KV", "PREFIX",
        "TTFT p50", "TTFT p99", "ITL p50", "E2E p99", "REQ/S", "GEN TOK/S"));
    JsonNode servers = snapshot.path("inference");
    if (!servers.isArray() || servers.size() == 0) {
      line(b, "(no inference servers)");
    } else {
      for (JsonNode s : servers) {
        line(b, String.format(Locale.ROOT, ROW,
            cut(text(s, "name"), 14),
            cut(text(s, "engine"), 8),
            cut(text(s, "state"), 8),
            why(s, "running", count(s.get("running"))) + "/" + why(s, "waiting", count(s.get("waiting"))),
            why(s, "kvCacheUsage", percent(s.get("kvCacheUsage"))),
            why(s, "prefixHitRatio", percent(s.get("prefixHitRatio"))),
            s.path("ttftApproxMean").isNumber() && !s.path("ttft").path("p50").isNumber()
                ? "≈" + seconds(s.get("ttftApproxMean")) : why(s, "ttft", seconds(s.path("ttft").get("p50"))),
            why(s, "ttft", seconds(s.path("ttft").get("p99"))),
            why(s, "itl", seconds(s.path("itl").get("p50"))),
            why(s, "e2e", seconds(s.path("e2e").get("p99"))),
            why(s, "requestsPerSecond", rate(s.get("requestsPerSecond"), 1)),
            why(s, "generationTokensPerSecond", rate(s.get("generationTokensPerSecond"), 0))).stripTrailing());
        JsonNode error = s.get("error");
        if (error != null && !error.isNull() && !error.asText().isEmpty()) {
          line(b, "  " + text(s, "name") + ": " + error.asText());
        }
      }
    }
    if (servers.isArray() && servers.size() > 0) {
      line(b, KEY);
    }
    JsonNode o = snapshot.path("overview").path("serving");
    line(b, "Overview: worst TTFT p99 " + seconds(o.get("worstTtftP99"))
        + ", worst ITL p50 " + seconds(o.get("worstItlP50"))
        + ", generation " + rate(o.get("generationTokensPerSecond"), 0) + " tok/s"
        + ", waiting " + count(o.get("waiting"))
        + (o.hasNonNull("worstSloAttainment")
            ? String.format(Locale.ROOT, ", worst SLO attainment %.1f%%", o.get("worstSloAttainment").asDouble() * 100)
            : ""));
    JsonNode alerts = snapshot.path("alerts");
    if (!alerts.isArray() || alerts.size() == 0) {
      line(b, "Alerts: none");
    } else {
      line(b, "Alerts:");
      for (JsonNode a : alerts) {
        String server = a.hasNonNull("server") ? " " + a.get("server").asText() : "";
        String message = a.hasNonNull("message") ? ": " + a.get("message").asText() : "";
        line(b, "  " + text(a, "name") + server + message);
      }
    }
    return b.toString();
  }

  private static void line(StringBuilder b, String s) {
    b.append(s).append('\n');
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? "-" : v.asText();
  }

  private static String cut(String s, int width) {
    return s.length() <= width ? s : s.substring(0, width - 1) + "~";
  }

  private static boolean absent(JsonNode v) {
    return v == null || v.isNull() || !v.isNumber() || !Double.isFinite(v.asDouble());
  }

  static String count(JsonNode v) {
    return count(v, "-");
  }

  static String percent(JsonNode v) {
    return percent(v, "-");
  }

  static String rate(JsonNode v, int decimals) {
    return rate(v, decimals, "-");
  }

  static String seconds(JsonNode v) {
    return seconds(v, "-");
  }

  /** A count rounded to a whole number, or {@code na} when the value is not available. */
  public static String count(JsonNode v, String na) {
    return absent(v) ? na : Long.toString(Math.round(v.asDouble()));
  }

  /** A 0–1 ratio as a whole percentage ({@code 97%}), or {@code na}. */
  public static String percent(JsonNode v, String na) {
    return absent(v) ? na : String.format(Locale.ROOT, "%.0f%%", v.asDouble() * 100);
  }

  /** A rate with {@code decimals} decimals, or {@code na}. */
  public static String rate(JsonNode v, int decimals, String na) {
    return absent(v) ? na : String.format(Locale.ROOT, "%." + decimals + "f", v.asDouble());
  }

  /** Seconds as {@code 0.4ms}, {@code 312ms}, {@code 1.84s}, {@code 125s}, or {@code na}. */
  public static String seconds(JsonNode v, String na) {
    if (absent(v)) {
      return na;
    }
    double s = v.asDouble();
    if (s < 0.01) {
      return String.format(Locale.ROOT, "%.1fms", s * 1000);
    }
    if (s < 0.9995) {
      return String.format(Locale.ROOT, "%.0fms", s * 1000);
    }
    if (s < 99.995) {
      return String.format(Locale.ROOT, "%.2fs", s);
    }
    return String.format(Locale.ROOT, "%.0fs", s);
  }
}
