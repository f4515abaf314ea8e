package dev.gputop.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.agent.cli.DemoCommand;
import dev.gputop.agent.demo.DemoReplicas;
import dev.gputop.agent.demo.Replica;
import dev.gputop.agent.top.TopScreen;
import java.io.File;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The live view as a user sees it: the shaded jar runs the agent on the demo replicas (started
 * here, with the demo's load), Debian's Chromium (headless, through Selenium and chromedriver)
 * opens the web page, and {@code top} runs in a real pseudo-terminal (tmux) against the same
 * agent. Screenshots of the page and captures of the terminal are left in {@code
 * target/live-view/}. Without Chromium or tmux the browser or terminal tests are skipped with a
 * reason, except under CI (env {@code CI=true}), where a missing one fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LiveViewIT {

  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Path OUT = Path.of("target", "live-view");

  /**
   * A library path as long as a real one can get, so that NVML's reason for no GPUs is a long
   * message without a space in it: the page must wrap it, not widen.
   */
  private static final String LONG_NVML_LIBRARY = "/opt/nvidia/drivers/" + "x86_64-linux-gnu-".repeat(6)
      + "535.183.01/lib/libnvidia-ml.so.1";

  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  /** The agent's working directory for the class: its config and logs; JUnit removes it after. */
  @TempDir static Path dir;
  private DemoReplicas replicas;
  private AgentProcess agent;
  private String url;
  private WebDriver browser;

  @BeforeAll
  void startAgent() throws Exception {
    Files.createDirectories(OUT);
    replicas = DemoCommand.replicas(42).start();
    StringBuilder yaml = new StringBuilder(
        "listen: 127.0.0.1:0\nrefresh:\n  normal: 1s\nnvml:\n  library: " + LONG_NVML_LIBRARY + "\n"
            + "inference:\n  window: 30s\n  discovery:\n    enabled: false\n  endpoints:\n");
    for (Replica r : replicas.replicas()) {
      yaml.append("    - name: ").append(r.name()).append("\n      url: ").append(r.url()).append('\n');
    }
    Path config = dir.resolve("agent.yaml");
    Files.writeString(config, yaml);
    agent = AgentProcess.start(dir, Map.of(), "run", "--config", config.toString());
    url = agent.awaitListener(Duration.ofSeconds(60));
    // Until every server is up with latencies and the history has a few points of them.
    await(Duration.ofSeconds(90), "four servers up with TTFT and history", () -> {
      JsonNode snap = snapshot();
      int withTtft = 0;
      for (JsonNode s : snap.get("inference")) {
        withTtft += "up".equals(s.get("state").asText()) && s.path("ttft").path("p99").isNumber() ? 1 : 0;
      }
      return snap.get("inference").size() == DemoReplicas.NAMES.size() && withTtft >= 2 && history("vllm-dp2").get("times").size() >= 5;
    });
  }

  @AfterAll
  void stopEverything() {
    if (browser != null) {
      browser.quit();
    }
    if (agent != null) {
      agent.close();
    }
    if (replicas != null) {
      replicas.close();
    }
  }

  // ---------------------------------------------------------------- the web page in Chromium

  @Test
  void page_showsEveryServerTheOverviewTheAlertsAndTheGpus() throws Exception {
    WebDriver b = browser();
    b.get(url + "/");
    await(Duration.ofSeconds(20), "the servers' table", () -> rows(b).size() == DemoReplicas.NAMES.size());
    Set<String> names = new HashSet<>();
    for (JsonNode s : snapshot().get("inference")) {
      names.add(s.get("name").asText());
    }
    Set<String> shown = new HashSet<>(rows(b));
    assertThat(shown).isEqualTo(names).containsExactlyInAnyOrderElementsOf(DemoReplicas.NAMES);
    assertThat(text(b, "overview")).contains("Servers up").contains("worst TTFT p99")
        .contains("worst ITL p50").contains("generation").contains("waiting");
    // TGI exports no TTFT and llama.cpp no latency histograms: N/A, never 0, and why. TGI's
    // approximate mean TTFT stands in its p50 column, marked as such.
    await(Duration.ofSeconds(20), "TGI's approximate TTFT", () -> cellText(b, "tgi", "ttftP50").startsWith("≈"));
    assertThat(cellText(b, "tgi", "ttftP50")).matches("≈ [0-9.]+ m?s mean");
    assertThat(cellAttr(b, "tgi", "ttftP50", "title")).startsWith("approximate mean TTFT");
    assertThat(cellText(b, "tgi", "ttftP99")).isEqualTo("N/A");
    assertThat(cellAttr(b, "tgi", "ttftP99", "data-reason")).isEqualTo("not_exported");
    assertThat(cellAttr(b, "tgi", "ttftP99", "title")).isEqualTo("not exported: the engine has no such metric");
    assertThat(cellText(b, "llamacpp", "e2eP99")).isEqualTo("N/A");
    assertThat(cellAttr(b, "llamacpp", "e2eP99", "data-reason")).isEqualTo("not_exported");
    assertThat(cellText(b, "llamacpp", "kvCacheUsage")).isEqualTo("N/A");
    assertThat(cellAttr(b, "llamacpp", "kvCacheUsage", "title")).isNotEmpty();
    // NVML is off here: no server's GPUs are known, and the page says so (docs/inference.md, Efficiency).
    assertThat(cellText(b, "vllm-dp2", "joulesPerGeneratedToken")).isEqualTo("N/A (no_gpus)");
    assertThat(cellText(b, "vllm-dp2", "gpus")).isEqualTo("N/A");
    assertThat(text(b, "overview")).contains("tokens per joule N/A").contains("good req/s N/A");
    assertThat(cellText(b, "vllm-dp2", "ttftP99")).isNotEqualTo("N/A").matches("[0-9.]+ m?s");
    assertThat(cellAttr(b, "vllm-dp2", "ttftP99", "title")).isNull();
    assertThat(text(b, "legend")).contains("not exported").contains("no requests").contains("starting").contains("down");
    // The snapshot says the same: one reason per N/A field, from the closed set.
    JsonNode tgi = server(snapshot(), "tgi");
    assertThat(tgi.get("unavailable").get("ttft").asText()).isEqualTo("not_exported");
    assertThat(tgi.get("ttftApproxMean").isNumber()).isTrue();
    assertThat((String) js(b, "return document.querySelector('#gpus tbody').textContent;")).contains("No GPUs")
        .contains(LONG_NVML_LIBRARY);
    // The demo's load fills a KV cache within its first 30 s: the page shows the alert.
    await(Duration.ofSeconds(60), "a kv_cache_full alert on the page",
        () -> !b.findElements(By.cssSelector("#alerts li[data-alert=kv_cache_full]")).isEmpty());
    screenshot(b, "page-overview.png");
  }

  @Test
  void selectingAServer_showsTheSnapshotsLatenciesItsLoadAndChartsWithPoints() throws Exception {
    WebDriver b = browser();
    b.get(url + "/");
    await(Duration.ofSeconds(20), "the servers' table", () -> rows(b).size() == DemoReplicas.NAMES.size());
    js(b, "document.querySelector(\"#servers tr[data-server='vllm-dp2']\").click();");
    await(Duration.ofSeconds(10), "the link to change", () -> b.getCurrentUrl().endsWith("/?server=vllm-dp2"));
    await(Duration.ofSeconds(20), "the detail", () -> "vllm-dp2".equals(text(b, "detail-title")));
    assertThat(rowClass(b, "vllm-dp2")).contains("selected");

    // The page's latency table equals /api/snapshot's: the test reads the snapshot every 100 ms
    // (values change only on a refresh, every second), so every state the page can have fetched
    // since the test started is among those it saw.
    List<Map<String, Double>> seen = new java.util.ArrayList<>();
    int renders = renders(b);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (renders(b) < renders + 2 && System.nanoTime() < deadline) {
      seen.add(latencies(server(snapshot(), "vllm-dp2")));
      Thread.sleep(100);
    }
    Map<String, Double> page = latencyValues(b);
    for (int k = 0; k < 5; k++) {
      seen.add(latencies(server(snapshot(), "vllm-dp2")));
      Thread.sleep(100);
    }
    assertThat(page.get("ttft.p99")).isNotNull();
    assertThat(seen).contains(page);
    assertThat(text(b, "lat-ttft-p99")).matches("[0-9.]+ m?s");
    assertThat(text(b, "lat-ttft-count")).matches("[0-9]+");
    for (String field : List.of("running", "waiting", "kvCacheUsage", "prefixHitRatio", "preemptionsPerSecond",
        "promptTokensPerSecond", "generationTokensPerSecond", "engine", "url", "source", "gpus", "pids", "error")) {
      assertThat(b.findElements(By.id("load-" + field))).as(field).hasSize(1);
    }
    // vLLM's request lengths, in whole tokens (the demo's prompts are tens to thousands long).
    assertThat(text(b, "len-prompt-p50")).matches("[0-9]+");
    assertThat(text(b, "len-generation-mean")).matches("[0-9]+");
    assertThat(text(b, "load-engine")).isEqualTo("vllm");
    assertThat(text(b, "load-url")).isEqualTo(String.valueOf(replicas.replica("vllm-dp2").url()));
    assertThat(text(b, "load-source")).isEqualTo("configured");
    assertThat(text(b, "load-error")).isEqualTo("none");
    assertThat(text(b, "load-gpus")).isEqualTo("N/A"); // a configured endpoint

    // Four uPlot charts, each drawn with points of the last minutes.
    int historyPoints = history("vllm-dp2").get("times").size();
    for (String chart : List.of("ttft", "requests", "generation", "kv")) {
      WebElement box = b.findElement(By.id("chart-" + chart));
      await(Duration.ofSeconds(10), chart + " chart points", () -> Integer.parseInt(box.getAttribute("data-values")) >= 3);
      assertThat(Integer.parseInt(box.getAttribute("data-points"))).as(chart).isBetween(3, historyPoints + 5);
      assertThat(box.findElements(By.cssSelector(".uplot canvas"))).as(chart).isNotEmpty();
    }
    screenshot(b, "page-selected.png");
  }

  /**
   * The listener's Content-Security-Policy ({@code default-src 'self'}, no inline script) lets
   * the whole page run, charts included: not one violation is reported while it loads and
   * refreshes; and the policy is in force: an inline script added to it is refused.
   */
  @Test
  void page_runsUnderTheContentSecurityPolicy_withoutOneViolation() throws Exception {
    org.openqa.selenium.chrome.ChromeDriver b = (org.openqa.selenium.chrome.ChromeDriver) browser();
    b.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source",
        "window.__csp = []; document.addEventListener('securitypolicyviolation', e => window.__csp.push("
            + "e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));"));
    b.get(url + "/?server=vllm-dp2");
    await(Duration.ofSeconds(20), "the detail", () -> "vllm-dp2".equals(text(b, "detail-title")));
    WebElement box = b.findElement(By.id("chart-ttft"));
    await(Duration.ofSeconds(20), "chart points", () -> Integer.parseInt(box.getAttribute("data-values")) >= 3);
    int renders = renders(b);
    await(Duration.ofSeconds(20), "two more refreshes", () -> renders(b) >= renders + 2);
    assertThat((List<?>) js(b, "return window.__csp;")).as("violations").isEmpty();

    js(b, "var s = document.createElement('script'); s.textContent = 'window.__inline = 1;'; document.body.appendChild(s);");
    await(Duration.ofSeconds(5), "the inline script's violation", () -> !((List<?>) js(b, "return window.__csp;")).isEmpty());
    assertThat(js(b, "return window.__inline === undefined;")).isEqualTo(true);
    assertThat(String.valueOf(((List<?>) js(b, "return window.__csp;")).get(0))).startsWith("script-src");
  }

  @Test
  void deepLink_selectsTheServerAndShowsNaForWhatItLacks() throws Exception {
    WebDriver b = browser();
    b.get(url + "/?server=tgi");
    await(Duration.ofSeconds(20), "the detail of tgi", () -> "tgi".equals(text(b, "detail-title")));
    assertThat(rowClass(b, "tgi")).contains("selected");
    assertThat(text(b, "lat-ttft-p50")).isEqualTo("N/A");
    assertThat(attr(b, "lat-ttft-p50", "data-reason")).isEqualTo("not_exported");
    assertThat(text(b, "lat-ttft-mean")).matches("≈ [0-9.]+ m?s mean");
    assertThat(text(b, "lat-ttft-count")).isEqualTo("N/A");
    assertThat(text(b, "lat-e2e-p99")).matches("[0-9.]+ m?s");
    // TGI has both length histograms: values; its KV cache it lacks.
    assertThat(text(b, "len-prompt-p99")).matches("[0-9]+");
    assertThat(text(b, "load-kvCacheUsage")).isEqualTo("N/A");
    assertThat(text(b, "load-engine")).isEqualTo("tgi");
    b.get(url + "/?server=llamacpp");
    await(Duration.ofSeconds(20), "the detail of llamacpp", () -> "llamacpp".equals(text(b, "detail-title")));
    // An empty chart says why it is empty; one with lines shows its latest value, not N/A.
    await(Duration.ofSeconds(20), "the empty TTFT chart's note", () -> chartNote(b, "ttft") != null);
    assertThat(chartNote(b, "ttft")).isEqualTo("TTFT: no data — not exported: the engine has no such metric");
    assertThat(chartNote(b, "requests")).isEqualTo("Requests/s: no data — not exported: the engine has no such metric");
    assertThat(chartNote(b, "generation")).isNull();
    await(Duration.ofSeconds(20), "the generation chart's legend", () -> legendValues(b, "generation").get(0).endsWith("(latest)"));
    assertThat(legendValues(b, "generation").get(0)).matches("[0-9.]+ tok/s \\(latest\\)");
    // llama.cpp has no request length histograms: N/A, and why.
    assertThat(text(b, "len-prompt-p50")).isEqualTo("N/A");
    assertThat(attr(b, "len-prompt-p50", "data-reason")).isEqualTo("not_exported");
    assertThat(attr(b, "len-generation-mean", "data-reason")).isEqualTo("not_exported");
    screenshot(b, "page-llamacpp.png");
    b.get(url + "/?server=no-such-server");
    await(Duration.ofSeconds(20), "the unknown server's message",
        () -> text(b, "detail-title").contains("not in the snapshot"));
  }

  /**
   * The page at a phone's width, a small laptop's and a 2560 px monitor's (Chromium's device
   * emulation: the viewport, not the window): no horizontal page scrollbar at any; the servers'
   * table scrolls inside its own box where it doesn't fit; NVML's long message wraps. The
   * screenshots are left in target/live-view/page-WIDTH.png.
   */
  @Test
  void page_fitsItsWidthFromAPhoneToA2560PixelMonitor() throws Exception {
    ChromeDriver b = (ChromeDriver) browser();
    try {
      for (int width : List.of(390, 1024, 1100, 1400, 2560)) {
        boolean phone = width < 600;
        b.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of(
            "width", width, "height", phone ? 844 : 1200, "deviceScaleFactor", 1, "mobile", phone));
        b.get(url + "/?server=vllm-dp2");
        await(Duration.ofSeconds(20), "the page at " + width + " px", () -> rows(b).size() == DemoReplicas.NAMES.size()
            && "vllm-dp2".equals(text(b, "detail-title")) && renders(b) >= 2);
        // The window's width, and what is left of it beside a vertical scrollbar.
        long window = ((Number) js(b, "return window.innerWidth;")).longValue();
        long viewport = ((Number) js(b, "return document.documentElement.clientWidth;")).longValue();
        long page = ((Number) js(b, "return document.documentElement.scrollWidth;")).longValue();
        screenshot(b, "page-" + width + ".png");
        assertThat(window).as("viewport at %d px", width).isEqualTo(width);
        assertThat(page).as("the page's width at %d px (a horizontal scrollbar when wider)", width).isLessThanOrEqualTo(viewport);
        // The table keeps its columns; where they don't fit it scrolls in its own box.
        long tableBox = ((Number) js(b, "return document.querySelector('#servers').parentElement.clientWidth;")).longValue();
        long table = ((Number) js(b, "return document.querySelector('#servers').scrollWidth;")).longValue();
        assertThat(tableBox).isLessThanOrEqualTo(viewport);
        if (table > tableBox) {
          assertThat((String) js(b, "return getComputedStyle(document.querySelector('#servers').parentElement).overflowX;"))
              .isEqualTo("auto");
        }
        if (width == 390) {
          assertThat(table).as("at a phone's width the table is wider than its box, so it scrolls").isGreaterThan(tableBox);
        }
      }
    } finally {
      b.executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
    }
  }

  // ---------------------------------------------------------------- top in tmux

  @Test
  void top_inAPseudoTerminalSelectsOpensDetailsRedrawsAndQuits() throws Exception {
    requireTool("tmux", Path.of("/usr/bin/tmux"));
    String session = "gputop-it-" + ProcessHandle.current().pid();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cmd = java + " -jar " + AgentProcess.jar().toAbsolutePath() + " top --url " + url;
    run("tmux", "new-session", "-d", "-s", session, "-x", "150", "-y", "50", cmd);
    try {
      await(Duration.ofSeconds(30), "top's table", () -> screen(session).contains("llamacpp"));
      String first = screen(session);
      assertThat(first).contains("SERVER").contains("vllm-dp2").contains("sglang-tp2").contains("tgi")
          .contains("Serving:").contains("TTFT p99").contains("GEN/S");
      assertThat(first.lines().allMatch(l -> l.length() <= 150)).isTrue();
      // It redraws every refresh: the snapshot time in the header moves.
      String header = first.lines().findFirst().orElseThrow();
      await(Duration.ofSeconds(15), "a redraw", () -> !screen(session).lines().findFirst().orElse("").equals(header));

      // j j selects the third server (tgi); Enter opens its details with sparklines.
      run("tmux", "send-keys", "-t", session, "j");
      run("tmux", "send-keys", "-t", session, "j");
      run("tmux", "send-keys", "-t", session, "Enter");
      await(Duration.ofSeconds(15), "tgi's details", () -> screen(session).contains("tgi · tgi · up"));
      String detail = screen(session);
      assertThat(detail).contains("mean").contains("p90").contains("count").contains("Queue")
          .contains("TTFT p50").contains("Req/s").contains("Gen tok/s").contains("KV cache").contains("Last 10 minutes");
      assertThat(detail).containsPattern("Gen tok/s +[▁▂▃▄▅▆▇█ ]*[▁▂▃▄▅▆▇█][▁▂▃▄▅▆▇█ ]* [0-9]+");
      Files.writeString(OUT.resolve("top-tgi.txt"), detail);
      // N/A says why (the key line explains the codes); TGI's approximate mean TTFT is marked ≈.
      assertThat(detail).contains(TopScreen.KEY);
      String tgiRow = detail.lines().filter(l -> l.startsWith("tgi ")).findFirst().orElseThrow();
      assertThat(tgiRow).contains("≈").contains("N/E");
      // The sparklines span the ten minutes by time: the history so far fills its share of the
      // columns, at the right, not one column per point.
      JsonNode h = history("tgi");
      long recorded = h.get("times").get(h.get("times").size() - 1).asLong() - h.get("times").get(0).asLong();
      int columns = 150 - 11 - 32;
      long expected = (recorded * columns + 599_999) / 600_000 + 1;
      String spark = detail.lines().filter(l -> l.startsWith("Gen tok/s ")).findFirst().orElseThrow().substring(11, 11 + columns);
      long filled = spark.chars().filter(c -> c != ' ').count();
      assertThat(filled).as("columns drawn for %d ms of history in %d columns of 10 minutes: %s", recorded, columns, spark)
          .isBetween(Math.max(1, expected - 2), expected + 2);
      assertThat(spark.substring(0, (int) (columns - expected - 2))).isBlank();
      assertThat(detail).containsPattern("Last 10 minutes \\([0-9]+ points, [0-9]+ s a column");
      // The up arrow moves back to sglang-tp2, whose details follow the selection.
      run("tmux", "send-keys", "-t", session, "Up");
      await(Duration.ofSeconds(15), "sglang-tp2's details", () -> screen(session).contains("sglang-tp2 · sglang · up"));
      Files.writeString(OUT.resolve("top-sglang.txt"), screen(session));

      run("tmux", "send-keys", "-t", session, "q");
      await(Duration.ofSeconds(15), "top to quit", () -> !hasSession(session));
    } finally {
      if (hasSession(session)) {
        run("tmux", "kill-session", "-t", session);
      }
    }
  }

  @Test
  void top_printsPlainTextWhenStdoutIsNotATerminal() throws Exception {
    try (AgentProcess top = AgentProcess.start(dir, Map.of(), "top", "--url", url, "--for", "2500ms", "--server", "vllm-dp2")) {
      assertThat(top.waitFor(Duration.ofSeconds(60))).isEqualTo(0);
      String out = top.out();
      assertThat(out).doesNotContain("\033").contains("SERVER").contains("llamacpp").contains("vllm-dp2 · vllm · up")
          .contains("TTFT p99");
      // one screen per refresh (1 s) during 2.5 s
      assertThat(out.split("gputop-agent top ·", -1).length - 1).isBetween(2, 4);
    }
  }

  // ---------------------------------------------------------------- helpers

  private WebDriver browser() {
    if (browser != null) {
      return browser;
    }
    requireTool("chromium", CHROMIUM);
    requireTool("chromium-driver", CHROMEDRIVER);
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort()
        .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + dir.resolve("chromium-profile").toAbsolutePath());
    browser = new ChromeDriver(service, options);
    browser.manage().window().setSize(new Dimension(1400, 1500));
    return browser;
  }

  /** Skips (locally) or fails (in CI) when a tool the test drives is missing. */
  private static void requireTool(String name, Path path) {
    if (Files.isExecutable(path)) {
      return;
    }
    String why = name + " is not installed (" + path + "); apt-get install " + name;
    if ("true".equals(System.getenv("CI"))) {
      fail(why + " (.ci/run installs it)");
    }
    System.out.println("[LiveViewIT] skipped: " + why);
    Assumptions.abort(why);
  }

  /** The page redraws its tables every refresh, so elements are read in one script, atomically. */
  private static Object js(WebDriver b, String script, Object... args) {
    return ((JavascriptExecutor) b).executeScript(script, args);
  }

  @SuppressWarnings("unchecked")
  private static List<String> rows(WebDriver b) {
    return (List<String>) js(b, "return Array.from(document.querySelectorAll('#servers tbody tr[data-server]'))"
        + ".map(function (r) { return r.getAttribute('data-server'); });");
  }

  private static String cellText(WebDriver b, String server, String field) {
    return (String) js(b, "var c = document.querySelector(\"#servers tr[data-server='\" + arguments[0] + \"'] td[data-field='\""
        + " + arguments[1] + \"']\"); return c ? c.textContent : null;", server, field);
  }

  private static String cellAttr(WebDriver b, String server, String field, String attribute) {
    return (String) js(b, "var c = document.querySelector(\"#servers tr[data-server='\" + arguments[0] + \"'] td[data-field='\""
        + " + arguments[1] + \"']\"); return c ? c.getAttribute(arguments[2]) : null;", server, field, attribute);
  }

  private static String attr(WebDriver b, String id, String attribute) {
    return (String) js(b, "var e = document.getElementById(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;", id, attribute);
  }

  /** The note of an empty chart, or null when the chart has values (or no note). */
  private static String chartNote(WebDriver b, String chart) {
    return (String) js(b, "var n = document.querySelector('#chart-' + arguments[0] + ' .chart-empty');"
        + " return n && !n.hidden ? n.textContent : null;", chart);
  }

  /** The values a chart's legend shows, one per series. */
  @SuppressWarnings("unchecked")
  private static List<String> legendValues(WebDriver b, String chart) {
    return (List<String>) js(b, "return Array.from(document.querySelectorAll('#chart-' + arguments[0]"
        + " + ' .u-legend .u-series:not(:first-child) .u-value')).map(function (e) { return e.textContent; });", chart);
  }

  private static String text(WebDriver b, String id) {
    return (String) js(b, "var e = document.getElementById(arguments[0]); return e ? e.textContent : null;", id);
  }

  private static String rowClass(WebDriver b, String server) {
    return (String) js(b, "var r = document.querySelector(\"#servers tr[data-server='\" + arguments[0] + \"']\");"
        + " return r ? r.className : null;", server);
  }

  private static int renders(WebDriver b) {
    Object r = js(b, "return document.body.getAttribute('data-renders');");
    return r == null ? 0 : Integer.parseInt((String) r);
  }

  /** The latency table's raw values (data-value: the JSON number, or null) by "ttft.p50", read at once. */
  @SuppressWarnings("unchecked")
  private static Map<String, Double> latencyValues(WebDriver b) {
    Map<String, Object> raw = (Map<String, Object>) js(b, "var out = {};"
        + "['ttft','itl','e2e','queue'].forEach(function (l) { ['mean','p50','p90','p99','count'].forEach(function (f) {"
        + "  var e = document.getElementById('lat-' + l + '-' + f); out[l + '.' + f] = e ? e.getAttribute('data-value') : 'missing'; }); });"
        + "return out;");
    Map<String, Double> out = new java.util.TreeMap<>();
    raw.forEach((k, v) -> out.put(k, v == null || "null".equals(v) ? null : Double.valueOf((String) v)));
    return out;
  }

  /** The same from a snapshot entry. */
  private static Map<String, Double> latencies(JsonNode server) {
    Map<String, Double> out = new java.util.TreeMap<>();
    for (String l : List.of("ttft", "itl", "e2e", "queue")) {
      for (String f : List.of("mean", "p50", "p90", "p99", "count")) {
        JsonNode v = server.path(l).get(f);
        out.put(l + "." + f, v == null || v.isNull() ? null : v.asDouble());
      }
    }
    return out;
  }

  private static JsonNode server(JsonNode snapshot, String name) {
    for (JsonNode s : snapshot.get("inference")) {
      if (name.equals(s.get("name").asText())) {
        return s;
      }
    }
    throw new AssertionError("no server " + name + " in " + snapshot);
  }

  private JsonNode snapshot() throws Exception {
    return json.readTree(AgentProcess.get(http, url + "/api/snapshot").body());
  }

  private JsonNode history(String server) throws Exception {
    JsonNode doc = json.readTree(AgentProcess.get(http, url + "/api/history?server=" + server).body());
    assertThat(SnapshotSchema.historyErrors(doc)).isEmpty();
    return doc;
  }

  private static void screenshot(WebDriver b, String name) throws IOException {
    File f = ((TakesScreenshot) b).getScreenshotAs(OutputType.FILE);
    Files.copy(f.toPath(), OUT.resolve(name), StandardCopyOption.REPLACE_EXISTING);
  }

  private static String screen(String session) {
    try {
      return run("tmux", "capture-pane", "-p", "-t", session);
    } catch (Exception e) {
      return "";
    }
  }

  private static boolean hasSession(String session) {
    try {
      Process p = new ProcessBuilder("tmux", "has-session", "-t", session).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static String run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out);
    }
    return out;
  }

  private interface Check {
    boolean ok() throws Exception;
  }

  private static void await(Duration timeout, String what, Check check) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (check.ok()) {
          return;
        }
      } catch (Exception | AssertionError e) {
        last = e instanceof Exception ? (Exception) e : new Exception(e);
      }
      Thread.sleep(200);
    }
    throw new AssertionError("timed out after " + timeout + " waiting for " + what, last);
  }
}
