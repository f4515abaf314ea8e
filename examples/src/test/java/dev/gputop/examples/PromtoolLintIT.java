package dev.gputop.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code promtool check metrics} on a live {@code /metrics}: the shaded agent's {@code demo} (four
 * engines, every inference gauge with data) linted by Prometheus's own tool. The only findings
 * allowed are the ones the product promises (docs/metrics.md): the latency and request length
 * gauges carry a {@code quantile} label although they are gauges, not summaries. Anything else (a {@code _count} gauge, a
 * missing HELP, a bad unit suffix) fails. Skipped where promtool is not installed; .ci/run
 * installs it.
 */
class PromtoolLintIT {

  private static final Pattern PROMISED =
      Pattern.compile("gputop_inference_([a-z0-9_]+_seconds|(model_)?(prompt|generation)_tokens_per_request)"
          + " non-summary metrics should not have \"quantile\" label");

  @TempDir Path dir;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void metrics_lintCleanButForTheQuantileLabelsOfTheLatencyGauges() throws Exception {
    Path promtool = Promtool.promtool();
    Path jar = Path.of(System.getProperty("gputop.agent.jar", "../agent/target/gputop-agent.jar"));
    assertThat(jar).as("the shaded agent jar (built by the agent module)").isRegularFile();
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path config = dir.resolve("demo.yaml");
    Files.writeString(config, "listen: 127.0.0.1:" + port + "\nrefresh:\n  normal: 500ms\n"
        + "nvml:\n  enabled: false\n");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process demo = new ProcessBuilder(java, "-jar", jar.toString(), "demo", "--config",
        config.toString(), "--for", "5m", "--plain")
        .redirectErrorStream(true).redirectOutput(dir.resolve("demo.out").toFile()).start();
    try {
      String body = awaitExposition(port, demo);
      Path exposition = dir.resolve("metrics.txt");
      Files.writeString(exposition, body);
      Process lint = new ProcessBuilder(promtool.toString(), "check", "metrics")
          .redirectInput(exposition.toFile()).redirectErrorStream(true).start();
      String out = new String(lint.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(lint.waitFor(60, TimeUnit.SECONDS)).isTrue();
      List<String> findings = out.lines().filter(l -> !l.isBlank()).toList();
      System.out.println("[PromtoolLintIT] " + findings.size() + " promised findings on "
          + body.lines().count() + " lines");
      assertThat(findings).as("promtool check metrics").isNotEmpty()
          .allSatisfy(l -> assertThat(l).matches(PROMISED));
    } finally {
      demo.destroy();
      if (!demo.waitFor(30, TimeUnit.SECONDS)) {
        demo.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * The exposition once every kind of inference gauge has data: latency quantiles, their means
   * and their observation counts, from all four demo engines. Waits for that event (the demo
   * needs two scrapes per server), not for a guessed time.
   */
  private static String awaitExposition(int port, Process demo) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
        .timeout(Duration.ofSeconds(20)).build();
    String last = "";
    while (demo.isAlive()) {
      try {
        last = http.send(get, HttpResponse.BodyHandlers.ofString()).body();
        if (last.contains("gputop_inference_ttft_seconds{") && last.contains("gputop_inference_itl_mean_seconds{")
            && last.contains("gputop_inference_e2e_observations{") && last.contains("engine=\"tgi\"")
            && last.contains("engine=\"llamacpp\"") && last.contains("engine=\"sglang\"")) {
          return last;
        }
      } catch (IOException notYet) {
        // the listener is not up yet
      }
      Thread.sleep(200);
    }
    throw new AssertionError("the demo exited before every gauge had data; last /metrics:\n" + last);
  }
}
