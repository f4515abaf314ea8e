package dev.gputop.agent.top;

import dev.gputop.agent.history.History;
import dev.gputop.agent.top.SnapshotView.Alert;
import dev.gputop.agent.top.SnapshotView.Efficiency;
import dev.gputop.agent.top.SnapshotView.EfficiencyGpu;
import dev.gputop.agent.top.SnapshotView.GpuProcess;
import dev.gputop.agent.top.SnapshotView.GpuRow;
import dev.gputop.agent.top.SnapshotView.Latency;
import dev.gputop.agent.top.SnapshotView.ServerRow;
import dev.gputop.agent.top.SnapshotView.Serving;
import dev.gputop.agent.top.SnapshotView.Unavailable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
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
  public record View(SnapshotView snapshot, HistoryView history, int selected, boolean detail, String source, String status) {}

  /** One column of the servers' table; lower priority numbers are dropped last. */
  private record Column(String title, int width, int priority, boolean left, Function<ServerRow, String> value) {}

  private static final List<Column> COLUMNS = List.of(
      new Column("SERVER", 16, 0, true, s -> s.name() == null ? NA : s.name()),
      new Column("ENGINE", 8, 7, true, s -> text(s.engine())),
      // Dropped first: the served model(s), for wide terminals (the server's name usually says).
      new Column("MODEL", 24, 8, true, s -> list(s.servedModels())),
      new Column("STATE", 8, 1, true, s -> text(s.state())),
      new Column("RUN", 5, 2, false, s -> why(s.unavailable().running(), count(s.running()))),
      new Column("WAIT", 5, 1, false, s -> why(s.unavailable().waiting(), count(s.waiting()))),
      new Column("KV", 5, 2, false, s -> why(s.unavailable().kvCacheUsage(), percent(s.kvCacheUsage()))),
      new Column("TTFT p50", 9, 3, false, s -> ttft(s, seconds(s.ttft().p50()))),
      new Column("TTFT p99", 9, 1, false, s -> why(s.unavailable().ttft(), seconds(s.ttft().p99()))),
      new Column("ITL p50", 8, 2, false, s -> why(s.unavailable().itl(), seconds(s.itl().p50()))),
      new Column("E2E p50", 8, 6, false, s -> why(s.unavailable().e2e(), seconds(s.e2e().p50()))),
      new Column("E2E p99", 8, 4, false, s -> why(s.unavailable().e2e(), seconds(s.e2e().p99()))),
      new Column("REQ/S", 7, 3, false, s -> why(s.unavailable().requestsPerSecond(), rate(s.requestsPerSecond(), 2))),
      new Column("PROMPT/S", 9, 5, false,
          s -> why(s.unavailable().promptTokensPerSecond(), rate(s.promptTokensPerSecond(), 0))),
      new Column("GEN/S", 8, 3, false,
          s -> why(s.unavailable().generationTokensPerSecond(), rate(s.generationTokensPerSecond(), 0))),
      new Column("GPUS", 7, 5, true, s -> s.gpus().isEmpty() ? NA : join(s.gpus()).replace(" ", "")),
      new Column("J/TOK", 7, 6, false, s -> joules(s.efficiency().joulesPerGeneratedToken())));

  /** {@code shown}, or where it is N/A the snapshot's {@code reason} for it ({@code unavailable}), short. */
  static String why(String reason, String shown) {
    return Cells.why(reason, shown, NA);
  }

  /** A TTFT value, or for an engine without a TTFT histogram (TGI) its approximate mean, marked ≈. */
  private static String ttft(ServerRow server, String shown) {
    if (NA.equals(shown) && !Cells.absent(server.ttftApproxMean())) {
      return "≈" + seconds(server.ttftApproxMean());
    }
    return why(server.unavailable().ttft(), shown);
  }

  /** The charts: label, series of /api/history, how to show a value, the snapshot's reason for its N/A. */
  private record Chart(String label, Function<HistoryView.Series, List<Double>> series, Function<Double, String> format,
      Function<Unavailable, String> reason) {}

  private static final List<Chart> CHARTS = List.of(
      new Chart("TTFT p50", HistoryView.Series::ttftP50, TopScreen::seconds, Unavailable::ttft),
      new Chart("TTFT p99", HistoryView.Series::ttftP99, TopScreen::seconds, Unavailable::ttft),
      new Chart("Req/s", HistoryView.Series::requestsPerSecond, v -> rate(v, 2), Unavailable::requestsPerSecond),
      new Chart("Gen tok/s", HistoryView.Series::generationTokensPerSecond, v -> rate(v, 0),
          Unavailable::generationTokensPerSecond),
      new Chart("KV cache", HistoryView.Series::kvCacheUsage, TopScreen::percent, Unavailable::kvCacheUsage));

  private TopScreen() {}

  /** The screen's lines, each at most {@code width} columns. */
  public static List<AttributedString> render(View view, int width) {
    width = Math.max(20, width);
    List<AttributedString> out = new ArrayList<>();
    SnapshotView snap = view.snapshot();
    String time = snap == null ? "" : " " + Objects.toString(snap.timestamp(), "");
    out.add(bold("gputop-agent top · " + view.source() + time));
    out.add(plain("↑/↓ or j/k select · Enter " + (view.detail() ? "closes" : "opens") + " the server's details · q quits"));
    if (view.status() != null) {
      out.add(new AttributedString(view.status(), AttributedStyle.DEFAULT.foreground(AttributedStyle.RED)));
    }
    if (snap == null) {
      out.add(plain("waiting for the first snapshot…"));
      return fit(out, width);
    }
    List<ServerRow> servers = snap.inference();
    Serving o = snap.overview().serving();
    int up = 0;
    for (ServerRow s : servers) {
      up += s.isUp() ? 1 : 0;
    }
    out.add(plain("Serving: " + up + "/" + servers.size() + " up · worst TTFT p99 " + seconds(o.worstTtftP99())
        + " · worst ITL p50 " + seconds(o.worstItlP50())
        + " · generation " + rate(o.generationTokensPerSecond(), 0) + " tok/s"
        + " · waiting " + count(o.waiting())
        + " · " + joules(o.generationTokensPerJoule()) + " tok/J"
        + " · good req/s " + goodRequests(o.goodRequestsPerSecond())));
    List<Alert> alerts = snap.alerts();
    if (alerts.isEmpty()) {
      out.add(plain("Alerts: none"));
    } else {
      for (Alert a : alerts) {
        String server = a.server() != null ? " " + a.server() : "";
        out.add(new AttributedString("Alert: " + Objects.toString(a.name(), "") + server + ": "
            + Objects.toString(a.message(), ""), AttributedStyle.DEFAULT.foreground(AttributedStyle.RED)));
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

  private static void gpus(List<AttributedString> out, SnapshotView snap) {
    List<GpuRow> gpus = snap.gpus();
    if (gpus.isEmpty()) {
      SnapshotView.Component nvml = snap.health().nvml();
      String why = nvml.reasons().isEmpty() ? ""
          : " (NVML " + Objects.toString(nvml.state(), "") + ": " + join(nvml.reasons()) + ")";
      out.add(plain("GPUs: none" + why));
      return;
    }
    for (GpuRow g : gpus) {
      List<String> procs = new ArrayList<>();
      List<String> servers = new ArrayList<>();
      for (GpuProcess p : g.processes()) {
        procs.add(Objects.toString(p.pid(), ""));
        if (p.server() != null && !servers.contains(p.server())) {
          servers.add(p.server());
        }
      }
      out.add(plain(String.format(Locale.ROOT, "GPU %s %s %s · util %s · mem %s / %s · %s W · %s °C · pids %s · servers %s",
          gpuKey(g), text(g.name()), text(g.state()), percent(g.utilization()),
          gib(g.memoryUsedBytes()), gib(g.memoryTotalBytes()), rate(g.powerWatts(), 0),
          rate(g.temperatureCelsius(), 0), procs.isEmpty() ? NA : String.join(",", procs),
          servers.isEmpty() ? NA : String.join(",", servers))));
    }
  }

  /**
   * The server's efficiency (docs/inference.md, "Efficiency"): power, energy per token, tokens/s
   * per GPU and cost, or why they are N/A, then each of its GPUs as NVML reads it.
   */
  private static void efficiency(List<AttributedString> out, Efficiency e) {
    String why = e.unavailable() != null ? " (" + e.unavailable() + ")" : "";
    out.add(plain("Efficiency" + why + ": " + rate(e.powerWatts(), 0) + " W · "
        + joules(e.joulesPerGeneratedToken()) + " J/gen tok · " + joules(e.joulesPerPromptToken())
        + " J/prompt tok" + (Boolean.TRUE.equals(e.estimated()) ? " (estimated)" : "")
        + " · " + rate(e.generationTokensPerSecondPerGpu(), 0) + " tok/s per GPU"
        + (e.costPerMillionGeneratedTokens() != null ? " · " + rate(e.costPerMillionGeneratedTokens(), 2)
            + " per 1M tok" : "")));
    for (EfficiencyGpu g : e.gpus()) {
      String index = Objects.toString(g.index(), "");
      out.add(plain(Boolean.TRUE.equals(g.lost()) ? "  GPU " + index + " not read (lost)"
          : String.format(Locale.ROOT, "  GPU %s · util %s · mem %s / %s · %s W", index,
              percent(g.utilization()), gib(g.memoryUsedBytes()), gib(g.memoryTotalBytes()),
              rate(g.powerWatts(), 0))));
    }
  }

  /** The fleet's good requests per second per SLO ({@code ttft 4.2, e2e 3.9}), or N/A without SLOs. */
  private static String goodRequests(Map<String, Double> perSlo) {
    List<String> parts = new ArrayList<>();
    perSlo.forEach((slo, rate) -> parts.add(slo + " " + rate(rate, 2)));
    return parts.isEmpty() ? NA : String.join(", ", parts);
  }

  /**
   * One request length of the snapshot's {@code requestLengths} ({@code prompt} or {@code
   * generation}): mean and quantiles in whole tokens, or the reason it is N/A.
   */
  static String length(Latency l, String reason) {
    if (l == null) {
      return why(reason, NA);
    }
    return "mean " + why(reason, count(l.mean())) + " p50 " + why(reason, count(l.p50()))
        + " p90 " + why(reason, count(l.p90())) + " p99 " + why(reason, count(l.p99()));
  }

  /** Joules with three significant digits, or N/A. */
  private static String joules(Double v) {
    return Cells.absent(v) ? NA : String.format(Locale.ROOT, "%.3g", v);
  }

  /**
   * A latency row of the detail: its label, its statistics, and the snapshot's reason they are
   * N/A. The first, TTFT, shows TGI's approximate mean where there is no histogram.
   */
  private record LatencyRow(String label, Function<ServerRow, Latency> latency, Function<Unavailable, String> reason) {}

  private static final List<LatencyRow> LATENCIES = List.of(
      new LatencyRow("TTFT", ServerRow::ttft, Unavailable::ttft),
      new LatencyRow("ITL", ServerRow::itl, Unavailable::itl),
      new LatencyRow("E2E", ServerRow::e2e, Unavailable::e2e),
      new LatencyRow("Queue", ServerRow::queue, Unavailable::queue));

  private static void detail(List<AttributedString> out, ServerRow s, HistoryView history, int width) {
    Unavailable u = s.unavailable();
    out.add(plain(""));
    out.add(bold(Objects.toString(s.name(), "") + " · " + text(s.engine()) + " · " + text(s.state())
        + " · " + text(s.url()) + " · " + text(s.source())));
    out.add(bold(String.format(Locale.ROOT, "%-6s %9s %9s %9s %9s %9s", "", "mean", "p50", "p90", "p99", "count")));
    for (LatencyRow l : LATENCIES) {
      Latency lat = l.latency().apply(s);
      String reason = l.reason().apply(u);
      String mean = seconds(lat.mean());
      out.add(plain(String.format(Locale.ROOT, "%-6s %9s %9s %9s %9s %9s", l.label(),
          l == LATENCIES.get(0) ? ttft(s, mean) : why(reason, mean), why(reason, seconds(lat.p50())),
          why(reason, seconds(lat.p90())), why(reason, seconds(lat.p99())), why(reason, count(lat.count())))));
    }
    out.add(plain("Running " + why(u.running(), count(s.running()))
        + " · waiting " + why(u.waiting(), count(s.waiting()))
        + " · KV cache " + why(u.kvCacheUsage(), percent(s.kvCacheUsage()))
        + " · prefix hit " + why(u.prefixHitRatio(), percent(s.prefixHitRatio()))
        + " · preemptions/s " + why(u.preemptionsPerSecond(), rate(s.preemptionsPerSecond(), 2))
        + " · prompt " + why(u.promptTokensPerSecond(), rate(s.promptTokensPerSecond(), 0)) + " tok/s"
        + " · generation " + why(u.generationTokensPerSecond(), rate(s.generationTokensPerSecond(), 0)) + " tok/s"));
    out.add(plain("Tokens per request: prompt " + length(s.requestLengths().prompt(), u.requestLengthsPrompt())
        + " · generation " + length(s.requestLengths().generation(), u.requestLengthsGeneration())));
    out.add(plain("GPUs " + list(s.gpus()) + " · PIDs " + list(s.pids())
        + " · error " + (s.error() != null ? s.error() : "none")));
    efficiency(out, s.efficiency());
    int points = history == null ? 0 : history.times().size();
    long spanMillis = 1000L * (history == null || history.spanSeconds() == null ? 600 : history.spanSeconds());
    // label, sparkline, then "latest (min–max)": the widest of these is about 40 columns
    int chartWidth = Math.max(10, width - 11 - 32);
    out.add(plain("Last " + minutes(spanMillis) + " (" + points + " points, "
        + String.format(Locale.ROOT, "%.0f", spanMillis / 1000.0 / chartWidth) + " s a column; each column its largest"
        + " value, scaled between the line's smallest and largest):"));
    for (Chart c : CHARTS) {
      List<Double> values = history == null ? List.of() : c.series().apply(history.series());
      List<Long> times = history == null ? List.of() : history.times();
      Double latest = null;
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      for (int i = values.size() - 1; i >= 0; i--) {
        Double v = values.get(i);
        if (!Cells.absent(v)) {
          latest = latest == null ? v : latest;
          min = Math.min(min, v);
          max = Math.max(max, v);
        }
      }
      String range = latest == null ? "" : " (" + c.format().apply(min) + "–" + c.format().apply(max) + ")";
      String last = latest == null ? why(c.reason().apply(u), NA) : c.format().apply(latest);
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
  static String sparkline(List<Long> times, List<Double> values, long spanMillis, int width) {
    double[] cells = new double[width];
    java.util.Arrays.fill(cells, Double.NaN);
    int n = Math.min(values.size(), times.size());
    if (n > 0) {
      long end = millis(times.get(n - 1));
      long start = end - spanMillis;
      for (int i = 0; i < n; i++) {
        Double v = values.get(i);
        long t = millis(times.get(i));
        if (Cells.absent(v) || t < start) {
          continue;
        }
        // Column k holds [start + k·span/width, start + (k+1)·span/width); the newest point the last.
        int cell = t >= end ? width - 1 : (int) ((t - start) * width / Math.max(1, spanMillis));
        cell = Math.max(0, Math.min(width - 1, cell));
        cells[cell] = Double.isNaN(cells[cell]) ? v : Math.max(cells[cell], v);
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

  private static String row(List<Column> cols, ServerRow server) {
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
  public static String gpuKey(GpuRow gpu) {
    return gpu.index() == null ? null : History.gpuKeyText(gpu.index(), gpu.migIndex());
  }

  /** A history point's time; one that is not a number counts as 0 (before any window). */
  private static long millis(Long t) {
    return t == null ? 0 : t;
  }

  private static String text(String v) {
    return v == null || v.isEmpty() ? NA : v;
  }

  private static String list(List<String> v) {
    return v.isEmpty() ? NA : join(v);
  }

  /** The values joined with ", "; a null element as JSON writes it. */
  private static String join(List<String> values) {
    List<String> parts = new ArrayList<>();
    values.forEach(x -> parts.add(String.valueOf(x)));
    return String.join(", ", parts);
  }

  static String seconds(Double v) {
    return Cells.seconds(v, NA);
  }

  static String percent(Double v) {
    return Cells.percent(v, NA);
  }

  static String count(Double v) {
    return Cells.count(v, NA);
  }

  static String rate(Double v, int decimals) {
    return Cells.rate(v, decimals, NA);
  }

  private static String gib(Double v) {
    return Cells.absent(v) ? NA : String.format(Locale.ROOT, "%.1f GiB", v / (1L << 30));
  }
}
