package dev.gputop.agent.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.agent.top.Cells;
import dev.gputop.agent.top.SnapshotView;
import dev.gputop.agent.top.SnapshotView.Alert;
import dev.gputop.agent.top.SnapshotView.ServerRow;
import dev.gputop.agent.top.SnapshotView.Serving;
import dev.gputop.agent.top.SnapshotView.Unavailable;
import java.util.List;
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
  private static final String NA = "-";

  /** What the short N/A reasons mean, as {@code top} prints them under its table too. */
  public static final String KEY = Cells.KEY;

  private DemoTable() {}

  /** {@code shown}, or where it is N/A ({@code -}) the snapshot's short reason for it. */
  private static String why(String reason, String shown) {
    return Cells.why(reason, shown, NA);
  }

  /** The table for a snapshot given as a map (as Jackson would read the JSON). */
  public static String render(Map<String, ?> snapshot) {
    JsonNode tree = MAPPER.valueToTree(snapshot);
    return render(tree);
  }

  /**
   * The table for a snapshot document; lines end with {@code \n}. Read as {@code top} reads it
   * ({@link SnapshotView}), so both terminal views show a value the same way.
   */
  public static String render(JsonNode snapshot) {
    return render(SnapshotView.of(snapshot));
  }

  private static String render(SnapshotView snapshot) {
    StringBuilder b = new StringBuilder();
    line(b, String.format(Locale.ROOT, ROW, "SERVER", "ENGINE", "STATE", "RUN/WAIT", "KV", "PREFIX",
        "TTFT p50", "TTFT p99", "ITL p50", "E2E p99", "REQ/S", "GEN TOK/S"));
    List<ServerRow> servers = snapshot.inference();
    if (servers.isEmpty()) {
      line(b, "(no inference servers)");
    } else {
      for (ServerRow s : servers) {
        Unavailable u = s.unavailable();
        line(b, String.format(Locale.ROOT, ROW,
            cut(text(s.name()), 14),
            cut(text(s.engine()), 8),
            cut(text(s.state()), 8),
            why(u.running(), count(s.running())) + "/" + why(u.waiting(), count(s.waiting())),
            why(u.kvCacheUsage(), percent(s.kvCacheUsage())),
            why(u.prefixHitRatio(), percent(s.prefixHitRatio())),
            s.ttftApproxMean() != null && s.ttft().p50() == null
                ? "≈" + seconds(s.ttftApproxMean()) : why(u.ttft(), seconds(s.ttft().p50())),
            why(u.ttft(), seconds(s.ttft().p99())),
            why(u.itl(), seconds(s.itl().p50())),
            why(u.e2e(), seconds(s.e2e().p99())),
            why(u.requestsPerSecond(), rate(s.requestsPerSecond(), 1)),
            why(u.generationTokensPerSecond(), rate(s.generationTokensPerSecond(), 0))).stripTrailing());
        if (s.error() != null && !s.error().isEmpty()) {
          line(b, "  " + text(s.name()) + ": " + s.error());
        }
      }
      line(b, KEY);
    }
    Serving o = snapshot.overview().serving();
    line(b, "Overview: worst TTFT p99 " + seconds(o.worstTtftP99())
        + ", worst ITL p50 " + seconds(o.worstItlP50())
        + ", generation " + rate(o.generationTokensPerSecond(), 0) + " tok/s"
        + ", waiting " + count(o.waiting())
        + (o.worstSloAttainment() != null
            ? String.format(Locale.ROOT, ", worst SLO attainment %.1f%%", o.worstSloAttainment() * 100)
            : ""));
    List<Alert> alerts = snapshot.alerts();
    if (alerts.isEmpty()) {
      line(b, "Alerts: none");
    } else {
      line(b, "Alerts:");
      for (Alert a : alerts) {
        String server = a.server() != null ? " " + a.server() : "";
        String message = a.message() != null ? ": " + a.message() : "";
        line(b, "  " + text(a.name()) + server + message);
      }
    }
    return b.toString();
  }

  private static void line(StringBuilder b, String s) {
    b.append(s).append('\n');
  }

  private static String text(String v) {
    return v == null ? NA : v;
  }

  private static String cut(String s, int width) {
    return s.length() <= width ? s : s.substring(0, width - 1) + "~";
  }

  private static String count(Double v) {
    return Cells.count(v, NA);
  }

  private static String percent(Double v) {
    return Cells.percent(v, NA);
  }

  private static String rate(Double v, int decimals) {
    return Cells.rate(v, decimals, NA);
  }

  private static String seconds(Double v) {
    return Cells.seconds(v, NA);
  }
}
