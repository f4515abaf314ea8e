package dev.gputop.agent.top;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gputop.agent.history.History;
import dev.gputop.agent.runtime.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/**
 * What {@code top} shows, as lines of a given width: a header, the Overview serving line, the
 * alerts, the servers' table (the selected row in reverse video), the GPUs, and, when the detail
 * is open, the selected server's latency table, its load details (and request lengths) and sparklines of the last ten
 * minutes (TTFT p50 and p99, requests/s, generation tokens/s, KV cache). Columns that don't fit
 * the width are left out, least important first; a value that is not available shows its reason
 * from the snapshot's {@code unavailable} ({@code N/E} not exported, {@code IDLE} no requests,
 * {@code WAIT} starting, {@code DOWN}; {@code N/A} without one), explained by the key line under
 * the table; TGI's approximate mean TTFT shows as {@code ≈}. Pure: the same view gives the same
 * lines. Thread-safe (stateless).
 */
public final class TopScreen {

  static final String NA = "N/A";

  /** The key line under the servers' table: what each short N/A reason means. */
  public static final String KEY = Cells.KEY;

  /** Sparkline levels, lowest first. */
  private static final char[] LEVELS = {'▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'};

  /**
   * What to draw.
   *
   * @param snapshot the {@code /api/snapshot} document, or null before the first one
   * @param history the selected server's {@code /api/history} document, or null
   * @param selected index of the selected server in {@code inference[]}
   * @param detail whether the selected server's detail is open
   * @param source where the data comes from (the agent's URL, or "local receivers")
   * @param status the last error reading it, or null
   */
  public record View(JsonNode snapshot, JsonNode history, int selected, boolean detail, String source, String status) {}

  /** One column of the servers' table; lower priority numbers are dropped last. */
  private record Column(String title, int width, int priority, boolean left, Function<JsonNode, String> value) {}

  private static final List<Column> COLUMNS = List.of(
      new Column("SERVER", 16, 0, true, s -> s.path("name").asText(NA)),
      new Column("ENGINE", 8, 7, true, s -> text(s.get("engine"))),
      // Dropped first: the served model(s), for wide terminals (the server's name usually says).
      new Column("MODEL", 24, 8, true, s -> list(s.get("servedModels"))),
      new Column("STATE", 8, 1, true, s -> text(s.get("state"))),
      new Column("RUN", 5, 2, false, s -> why(s, "running", count(s.get("running")))),
      new Column("WAIT", 5, 1, false, s -> why(s, "waiting", count(s.get("waiting")))),
      new Column("KV", 5, 2, false, s -> why(s, "kvCacheUsage", percent(s.get("kvCacheUsage")))),
      new Column("TTFT p50", 9, 3, false, s -> ttft(s, seconds(s.path("ttft").get("p50")))),
      new Column("TTFT p99", 9, 1, false, s -> why(s, "ttft", seconds(s.path("ttft").get("p99")))),
      new Column("ITL p50", 8, 2, false, s -> why(s, "itl", seconds(s.path("itl").get("p50")))),
      new Column("E2E p50", 8, 6, false, s -> why(s, "e2e", seconds(s.path("e2e").get("p50")))),
      new Column("E2E p99", 8, 4, false, s -> why(s, "e2e", seconds(s.path("e2e").get("p99")))),
      new Column("REQ/S", 7, 3, false, s -> why(s, "requestsPerSecond", rate(s.get("requestsPerSecond"), 2))),
      new Column("PROMPT/S", 9, 5, false, s -> why(s, "promptTokensPerSecond", rate(s.get("promptTokensPerSecond"), 0))),
      new Column("GEN/S", 8, 3, false, s -> why(s, "generationTokensPerSecond", rate(s.get("generationTokensPerSecond"), 0))),
      new Column("GPUS", 7, 5, true, s -> s.path("gpus").size() == 0 ? NA : join(s.path("gpus")).replace(" ", "")),
      new Column("J/TOK", 7, 6, false, s -> joules(s.path("efficiency"), "joulesPerGeneratedToken")));

  /** {@code shown}, or where it is N/A the snapshot's reason for {@code field}, short. */
  static String why(JsonNode server, String field, String shown) {
    String code = NA.equals(shown) ? Cells.reasonCode(server, field) : null;
    return code == null ? shown : code;
  }

  /** A TTFT value, or for an engine without a TTFT histogram (TGI) its approximate mean, marked ≈. */
  private static String ttft(JsonNode server, String shown) {
    if (NA.equals(shown) && server.path("ttftApproxMean").isNumber()) {
      return "≈" + seconds(server.get("ttftApproxMean"));
    }
    return why(server, "ttft", shown);
  }

  /** The charts: label, series of /api/history, how to show a value, the snapshot field of its N/A reason. */
  private record Chart(String label, String series, Function<JsonNode, String> format, String reasonField) {}

  private static final List<Chart> CHARTS = List.of(
      new Chart("TTFT p50", "ttftP50", TopScreen::seconds, "ttft"),
      new Chart("TTFT p99", "ttftP99", TopScreen::seconds, "ttft"),
      new Chart("Req/s", "requestsPerSecond", v -> rate(v, 2), "requestsPerSecond"),
      new Chart("Gen tok/s", "generationTokensPerSecond", v -> rate(v, 0), "generationTokensPerSecond"),
      new Chart("KV cache", "kvCacheUsage", TopScreen::percent, "kvCacheUsage"));

  private TopScreen() {}

  /** The screen's lines, each at most {@code width} columns. */
  public static List<AttributedString> render(View view, int width) {
    width = Math.max(20, width);
    List<AttributedString> out = new ArrayList<>();
    JsonNode snap = view.snapshot();
    String time = snap == null ? "" : " " + snap.path("timestamp").asText("");
    out.add(bold("gputop-agent top · " + view.source() + time));
    out.add(plain("↑/↓ or j/k select · Enter " + (view.detail() ? "closes" : "opens") + " the server's details · q quits"));
    if (view.status() != null) {
      out.add(new AttributedString(view.status(), AttributedStyle.DEFAULT.foreground(AttributedStyle.RED)));
    }
    if (snap == null) {
      out.add(plain("waiting for the first snapshot…"));
      return fit(out, width);
    }
    JsonNode servers = snap.path("inference");
    JsonNode o = snap.path("overview").path("serving");
    int up = 0;
    for (JsonNode s : servers) {
      up += "up".equals(s.path("state").asText()) ? 1 : 0;
    }
    out.add(plain("Serving: " + up + "/" + servers.size() + " up · worst TTFT p99 " + seconds(o.get("worstTtftP99"))
        + " · worst ITL p50 " + seconds(o.get("worstItlP50"))
        + " · generation " + rate(o.get("generationTokensPerSecond"), 0) + " tok/s"
        + " · waiting " + count(o.get("waiting"))
        + " · " + joules(o, "generationTokensPerJoule") + " tok/J"
        + " · good req/s " + goodRequests(o.path("goodRequestsPerSecond"))));
    JsonNode alerts = snap.path("alerts");
    if (alerts.size() == 0) {
      out.add(plain("Alerts: none"));
    } else {
      for (JsonNode a : alerts) {
        String server = a.hasNonNull("server") ? " " + a.get("server").asText() : "";
        out.add(new AttributedString("Alert: " + a.path("name").asText() + server + ": " + a.path("message").asText(""),
            AttributedStyle.DEFAULT.foreground(AttributedStyle.RED)));
      }
    }
    out.add(plain(""));
    List<Column> columns = columnsFor(width);
    out.add(bold(row(columns, null)));
    if (servers.size() == 0) {
      out.add(plain("(no inference servers)"));
    }
    int selected = Math.min(Math.max(0, view.selected()), Math.max(0, servers.size() - 1));
    for (int i = 0; i < servers.size(); i++) {
      String line = row(columns, servers.get(i));
      out.add(i == selected ? new AttributedString(pad(line, width, true), AttributedStyle.INVERSE) : plain(line));
    }
    if (servers.size() > 0) {
      out.add(plain(KEY));
    }
    gpus(out, snap);
    if (view.detail() && servers.size() > 0) {
      detail(out, servers.get(selected), view.history(), width);
    }
    return fit(out, width);
  }

  private static void gpus(List<AttributedString> out, JsonNode snap) {
    JsonNode gpus = snap.path("gpus");
    if (gpus.size() == 0) {
      JsonNode nvml = snap.path("health").path("nvml");
      String why = nvml.path("reasons").size() > 0 ? " (NVML " + nvml.path("state").asText() + ": " + join(nvml.path("reasons")) + ")" : "";
      out.add(plain("GPUs: none" + why));
      return;
    }
    for (JsonNode g : gpus) {
      List<String> procs = new ArrayList<>();
      List<String> servers = new ArrayList<>();
      for (JsonNode p : g.path("processes")) {
        procs.add(p.path("pid").asText());
        if (p.hasNonNull("server") && !servers.contains(p.get("server").asText())) {
          servers.add(p.get("server").asText());
        }
      }
      out.add(plain(String.format(Locale.ROOT, "GPU %s %s %s · util %s · mem %s / %s · %s W · %s °C · pids %s · servers %s",
          gpuKey(g), text(g.get("name")), text(g.get("state")), percent(g.get("utilization")),
          gib(g.get("memoryUsedBytes")), gib(g.get("memoryTotalBytes")), rate(g.get("powerWatts"), 0),
          rate(g.get("temperatureCelsius"), 0), procs.isEmpty() ? NA : String.join(",", procs),
          servers.isEmpty() ? NA : String.join(",", servers))));
    }
  }

  /**
   * The server's efficiency (docs/inference.md, "Efficiency"): power, energy per token, tokens/s
   * per GPU and cost, or why they are N/A, then each of its GPUs as NVML reads it.
   */
  private static void efficiency(List<AttributedString> out, JsonNode e) {
    String why = e.hasNonNull("unavailable") ? " (" + e.get("unavailable").asText() + ")" : "";
    out.add(plain("Efficiency" + why + ": " + rate(e.get("powerWatts"), 0) + " W · "
        + joules(e, "joulesPerGeneratedToken") + " J/gen tok · " + joules(e, "joulesPerPromptToken")
        + " J/prompt tok" + (e.path("estimated").asBoolean() ? " (estimated)" : "")
        + " · " + rate(e.get("generationTokensPerSecondPerGpu"), 0) + " tok/s per GPU"
        + (e.has("costPerMillionGeneratedTokens") ? " · " + rate(e.get("costPerMillionGeneratedTokens"), 2)
            + " per 1M tok" : "")));
    for (JsonNode g : e.path("gpus")) {
      out.add(plain(g.path("lost").asBoolean() ? "  GPU " + g.path("index").asText() + " not read (lost)"
          : String.format(Locale.ROOT, "  GPU %s · util %s · mem %s / %s · %s W", g.path("index").asText(),
              percent(g.get("utilization")), gib(g.get("memoryUsedBytes")), gib(g.get("memoryTotalBytes")),
              rate(g.get("powerWatts"), 0))));
    }
  }

  /** The fleet's good requests per second per SLO ({@code ttft 4.2, e2e 3.9}), or N/A without SLOs. */
  private static String goodRequests(JsonNode perSlo) {
    List<String> parts = new ArrayList<>();
    perSlo.fields().forEachRemaining(e -> parts.add(e.getKey() + " " + rate(e.getValue(), 2)));
    return parts.isEmpty() ? NA : String.join(", ", parts);
  }

  /**
   * One request length of the snapshot's {@code requestLengths} ({@code prompt} or {@code
   * generation}): mean and quantiles in whole tokens, or the reason it is N/A.
   */
  static String length(JsonNode s, String part) {
    JsonNode l = s.path("requestLengths").get(part);
    String field = "requestLengths." + part;
    if (l == null || !l.isObject()) {
      return why(s, field, NA);
    }
    return "mean " + why(s, field, count(l.get("mean"))) + " p50 " + why(s, field, count(l.get("p50")))
        + " p90 " + why(s, field, count(l.get("p90"))) + " p99 " + why(s, field, count(l.get("p99")));
  }

  /** Joules with three significant digits, or N/A. */
  private static String joules(JsonNode e, String field) {
    JsonNode v = e.get(field);
    return v == null || !v.isNumber() ? NA : String.format(Locale.ROOT, "%.3g", v.asDouble());
  }

  private static void detail(List<AttributedString> out, JsonNode s, JsonNode history, int width) {
    out.add(plain(""));
    out.add(bold(s.path("name").asText() + " · " + text(s.get("engine")) + " · " + text(s.get("state"))
        + " · " + text(s.get("url")) + " · " + text(s.get("source"))));
    out.add(bold(String.format(Locale.ROOT, "%-6s %9s %9s %9s %9s %9s", "", "mean", "p50", "p90", "p99", "count")));
    for (String[] l : new String[][] {{"TTFT", "ttft"}, {"ITL", "itl"}, {"E2E", "e2e"}, {"Queue", "queue"}}) {
      JsonNode lat = s.get(l[1]);
      String mean = seconds(lat == null ? null : lat.get("mean"));
      out.add(plain(String.format(Locale.ROOT, "%-6s %9s %9s %9s %9s %9s", l[0],
          l[1].equals("ttft") ? ttft(s, mean) : why(s, l[1], mean), why(s, l[1], seconds(lat == null ? null : lat.get("p50"))),
          why(s, l[1], seconds(lat == null ? null : lat.get("p90"))), why(s, l[1], seconds(lat == null ? null : lat.get("p99"))),
          why(s, l[1], count(lat == null ? null : lat.get("count"))))));
    }
    out.add(plain("Running " + why(s, "running", count(s.get("running")))
        + " · waiting " + why(s, "waiting", count(s.get("waiting")))
        + " · KV cache " + why(s, "kvCacheUsage", percent(s.get("kvCacheUsage")))
        + " · prefix hit " + why(s, "prefixHitRatio", percent(s.get("prefixHitRatio")))
        + " · preemptions/s " + why(s, "preemptionsPerSecond", rate(s.get("preemptionsPerSecond"), 2))
        + " · prompt " + why(s, "promptTokensPerSecond", rate(s.get("promptTokensPerSecond"), 0)) + " tok/s"
        + " · generation " + why(s, "generationTokensPerSecond", rate(s.get("generationTokensPerSecond"), 0)) + " tok/s"));
    out.add(plain("Tokens per request: prompt " + length(s, "prompt") + " · generation " + length(s, "generation")));
    out.add(plain("GPUs " + list(s.get("gpus")) + " · PIDs " + list(s.get("pids"))
        + " · error " + (s.hasNonNull("error") ? s.get("error").asText() : "none")));
    efficiency(out, s.path("efficiency"));
    int points = history == null ? 0 : history.path("times").size();
    long spanMillis = 1000L * (history == null ? 600 : history.path("spanSeconds").asLong(600));
    // label, sparkline, then "latest (min–max)": the widest of these is about 40 columns
    int chartWidth = Math.max(10, width - 11 - 32);
    out.add(plain("Last " + minutes(spanMillis) + " (" + points + " points, "
        + String.format(Locale.ROOT, "%.0f", spanMillis / 1000.0 / chartWidth) + " s a column; each column its largest"
        + " value, scaled between the line's smallest and largest):"));
    for (Chart c : CHARTS) {
      JsonNode values = history == null ? null : history.path("series").get(c.series());
      JsonNode times = history == null ? null : history.path("times");
      JsonNode latest = null;
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      if (values != null) {
        for (int i = values.size() - 1; i >= 0; i--) {
          if (values.get(i).isNumber()) {
            latest = latest == null ? values.get(i) : latest;
            min = Math.min(min, values.get(i).asDouble());
            max = Math.max(max, values.get(i).asDouble());
          }
        }
      }
      String range = latest == null ? "" : " (" + c.format().apply(Json.MAPPER.getNodeFactory().numberNode(min))
          + "–" + c.format().apply(Json.MAPPER.getNodeFactory().numberNode(max)) + ")";
      String last = latest == null ? why(s, c.reasonField(), NA) : c.format().apply(latest);
      out.add(plain(String.format(Locale.ROOT, "%-10s %s %s%s", c.label(),
          sparkline(times, values, spanMillis, chartWidth), last, range)));
    }
  }

  private static String minutes(long millis) {
    return millis % 60_000 == 0 ? millis / 60_000 + " minutes" : millis / 1000 + " s";
  }

  /**
   * The {@code spanMillis} up to the newest of {@code times} drawn in {@code width} columns, each
   * column the same share of time: its character is the largest value recorded in it (so a burst
   * shorter than a column still shows), a space where nothing was recorded (before the history
   * began, or N/A). The levels run from the smallest to the largest value drawn, on a logarithmic
   * scale when they span ten times or more (a 6 s TTFT burst and a 100 ms baseline both show
   * their shape), else linearly; a flat line sits on the lowest level.
   */
  static String sparkline(JsonNode times, JsonNode values, long spanMillis, int width) {
    double[] cells = new double[width];
    java.util.Arrays.fill(cells, Double.NaN);
    int n = values == null || times == null ? 0 : Math.min(values.size(), times.size());
    if (n > 0) {
      long end = times.get(n - 1).asLong();
      long start = end - spanMillis;
      for (int i = 0; i < n; i++) {
        JsonNode v = values.get(i);
        long t = times.get(i).asLong();
        if (!v.isNumber() || t < start) {
          continue;
        }
        // Column k holds [start + k·span/width, start + (k+1)·span/width); the newest point the last.
        int cell = t >= end ? width - 1 : (int) ((t - start) * width / Math.max(1, spanMillis));
        cell = Math.max(0, Math.min(width - 1, cell));
        cells[cell] = Double.isNaN(cells[cell]) ? v.asDouble() : Math.max(cells[cell], v.asDouble());
      }
    }
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (double c : cells) {
      if (!Double.isNaN(c)) {
        lo = Math.min(lo, c);
        hi = Math.max(hi, c);
      }
    }
    boolean log = lo > 0 && hi / lo >= 10;
    StringBuilder b = new StringBuilder(width);
    for (double c : cells) {
      if (Double.isNaN(c)) {
        b.append(' ');
        continue;
      }
      double f = hi <= lo ? 0 : log ? Math.log(c / lo) / Math.log(hi / lo) : (c - lo) / (hi - lo);
      int level = (int) Math.round(f * (LEVELS.length - 1));
      b.append(LEVELS[Math.max(0, Math.min(LEVELS.length - 1, level))]);
    }
    return b.toString();
  }

  /** The columns that fit {@code width}: the least important go first, then the name narrows. */
  private static List<Column> columnsFor(int width) {
    List<Column> cols = new ArrayList<>(COLUMNS);
    while (total(cols) > width && cols.size() > 2) {
      Column least = cols.get(1);
      for (Column c : cols) {
        if (c.priority() > least.priority()) {
          least = c;
        }
      }
      if (least.priority() == 0) {
        break;
      }
      cols.remove(least);
    }
    return cols;
  }

  private static int total(List<Column> cols) {
    int w = 0;
    for (Column c : cols) {
      w += c.width() + 1;
    }
    return w;
  }

  private static String row(List<Column> cols, JsonNode server) {
    StringBuilder b = new StringBuilder();
    for (Column c : cols) {
      String v = server == null ? c.title() : c.value().apply(server);
      if (v.length() > c.width()) {
        v = v.substring(0, c.width() - 1) + "~";
      }
      b.append(pad(v, c.width(), c.left())).append(' ');
    }
    return b.toString().stripTrailing();
  }

  private static String pad(String s, int width, boolean left) {
    if (s.length() >= width) {
      return s;
    }
    String spaces = " ".repeat(width - s.length());
    return left ? s + spaces : spaces + s;
  }

  private static List<AttributedString> fit(List<AttributedString> lines, int width) {
    List<AttributedString> out = new ArrayList<>(lines.size());
    for (AttributedString l : lines) {
      out.add(l.columnLength() > width ? l.columnSubSequence(0, width) : l);
    }
    return out;
  }

  private static AttributedString plain(String s) {
    return new AttributedString(s);
  }

  private static AttributedString bold(String s) {
    return new AttributedStringBuilder().style(AttributedStyle.BOLD).append(s).toAttributedString();
  }

  /** A GPU entry's key as {@code /api/history} names it ({@code 0}, {@code 0:1} for a MIG instance); null without an index. */
  public static String gpuKey(JsonNode gpu) {
    JsonNode index = gpu.get("index");
    if (index == null || !index.canConvertToInt()) {
      return null;
    }
    JsonNode mig = gpu.get("migIndex");
    return History.gpuKeyText(index.asInt(), mig != null && mig.canConvertToInt() ? mig.asInt() : null);
  }

  private static String text(JsonNode v) {
    return v == null || v.isNull() || v.asText().isEmpty() ? NA : v.asText();
  }

  private static String list(JsonNode v) {
    return v == null || !v.isArray() || v.size() == 0 ? NA : join(v);
  }

  private static String join(JsonNode array) {
    List<String> parts = new ArrayList<>();
    array.forEach(x -> parts.add(x.asText()));
    return String.join(", ", parts);
  }

  static String seconds(JsonNode v) {
    return Cells.seconds(v, NA);
  }

  static String percent(JsonNode v) {
    return Cells.percent(v, NA);
  }

  static String count(JsonNode v) {
    return Cells.count(v, NA);
  }

  static String rate(JsonNode v, int decimals) {
    return Cells.rate(v, decimals, NA);
  }

  private static String gib(JsonNode v) {
    return v == null || !v.isNumber() ? NA : String.format(Locale.ROOT, "%.1f GiB", v.asDouble() / (1L << 30));
  }
}
