package dev.gputop.agent.cli;

import static dev.gputop.agent.cli.CliRuns.output;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** explain against a real HTTP server on loopback that serves an SGLang-style exposition. */
class ExplainCommandTest {

  /** Two tensor-parallel ranks of one batch, a TTFT histogram, a token counter, no queue histogram. */
  private static final String SGLANG =
      "# TYPE sglang:num_running_reqs gauge\n"
          + "sglang:num_running_reqs{model_name=\"m\",tp_rank=\"1\"} 3.0\n"
          + "sglang:num_running_reqs{model_name=\"m\",tp_rank=\"0\"} 3.0\n"
          + "# TYPE sglang:generation_tokens_total counter\n"
          + "sglang:generation_tokens_total{model_name=\"m\",tp_rank=\"0\"} 1200.0\n"
          + "# TYPE sglang:time_to_first_token_seconds histogram\n"
          + "sglang:time_to_first_token_seconds_bucket{le=\"0.1\",model_name=\"m\",tp_rank=\"0\"} 4.0\n"
          + "sglang:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"m\",tp_rank=\"0\"} 5.0\n"
          + "sglang:time_to_first_token_seconds_sum{model_name=\"m\",tp_rank=\"0\"} 0.9\n"
          + "sglang:time_to_first_token_seconds_count{model_name=\"m\",tp_rank=\"0\"} 5.0\n"
          + "# HELP sglang:queue_time_seconds Queue time.\n"
          + "# TYPE sglang:queue_time_seconds histogram\n"
          + "# TYPE sglang:e2e_request_latency_seconds gauge\n"
          + "sglang:e2e_request_latency_seconds{model_name=\"m\"} 2.0\n";

  /**
   * A hostile server's label value: an OSC title, BEL, a C1 CSI, a bidi override and an escaped
   * newline that would forge a line of the explanation.
   */
  private static final String HOSTILE =
      "# TYPE sglang:num_running_reqs gauge\n"
          + "sglang:num_running_reqs{model_name=\"m\u001b]0;pwned\u0007 \u009b31m \u202eevil\\nengine: forged\",tp_rank=\"0\"} 3.0\n";

  private MetricsServer server;
  private String url;

  /** Two data-parallel engines of vLLM: running is their sum, the KV cache the fuller one. */
  private static final String VLLM_DP2 =
      "# TYPE vllm:num_requests_running gauge\n"
          + "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 2.0\n"
          + "vllm:num_requests_running{engine=\"1\",model_name=\"m\"} 5.0\n"
          + "# TYPE vllm:kv_cache_usage_perc gauge\n"
          + "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.25\n"
          + "vllm:kv_cache_usage_perc{engine=\"1\",model_name=\"m\"} 0.75\n";

  private static final String TOKEN = "s3cret-token";

  @TempDir Path dir;

  @BeforeEach
  void start() throws Exception {
    server = new MetricsServer()
        .serve("/metrics", "text/plain; version=0.0.4", SGLANG)
        .serve("/vllm", "text/plain; version=0.0.4", VLLM_DP2)
        .serve("/secured", "text/plain; version=0.0.4", () -> VLLM_DP2, TOKEN)
        .serve("/", "text/html; charset=utf-8", "<!DOCTYPE html>\n<html><body>Grafana</body></html>\n")
        .serve("/hostile", "text/plain; version=0.0.4", HOSTILE);
    url = server.url("/metrics");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void explain_saysWhichSeriesFedEachConceptAndWhyOthersDidNot() {
    String out = output(ExitCodes.OK, "explain", "--url", url);
    assertThat(out).contains("engine: sglang (SGLang, engines/sglang.yaml (built in))");
    assertThat(out).contains("running: from gauge sglang:num_running_reqs\n");
    assertThat(out).contains("    + sglang:num_running_reqs{model_name=\"m\",tp_rank=\"0\"} 3  read: one rank");
    assertThat(out).contains("    - sglang:num_running_reqs{model_name=\"m\",tp_rank=\"1\"} 3  skipped: another rank of the same batch is read");
    assertThat(out).contains("generationTokens: from counter sglang:generation_tokens\n");
    assertThat(out).contains("ttft: from histogram sglang:time_to_first_token_seconds\n");
    assertThat(out).contains("    + sglang:time_to_first_token_seconds{model_name=\"m\",tp_rank=\"0\"} 5  read: one rank");
    assertThat(out).contains("  histogram sglang:queue_time_seconds: not observed yet (sglang:queue_time_seconds is declared without samples)");
    assertThat(out).contains("  histogram sglang:e2e_request_latency_seconds: wrong type: sglang:e2e_request_latency_seconds is a gauge, not a histogram");
    assertThat(out).contains("  counter sglang:num_requests: not exported");
    assertThat(out).contains("prefillBatch: N/A — the sglang profile maps no metric to it");
  }

  @Test
  void explain_hostileLabelValues_areEscapedVisibly_andForgeNoLine() throws Exception {
    String hostile = url.replace("/metrics", "/hostile");
    String out = output(ExitCodes.OK, "explain", "--url", hostile);
    assertThat(out).contains("m\\x1b]0;pwned\\x07 \\x9b31m \\u202eevil\\x0aengine: forged");
    assertThat(out.chars().filter(c -> c != '\n' && dev.gputop.config.internal.TerminalText.unsafe(c))).isEmpty();
    assertThat(out.lines()).noneMatch(l -> l.startsWith("engine: forged"));

    // The JSON form keeps the value (a parser reads it back whole) and prints no control either.
    String json = output(ExitCodes.OK, "explain", "--json", "--url", hostile);
    assertThat(json.chars().filter(c -> c != '\n' && dev.gputop.config.internal.TerminalText.unsafe(c))).isEmpty();
    assertThat(json).contains("\\u009b").contains("\\u202e");
    assertThat(new ObjectMapper().readTree(json).get("concepts").get(0).get("sources").get(0).get("series").get(0)
        .get("labels").get("model_name").asText()).isEqualTo("m\u001b]0;pwned\u0007 \u009b31m \u202eevil\nengine: forged");
  }

  @Test
  void explain_json() throws Exception {
    JsonNode tree = new ObjectMapper().readTree(output(ExitCodes.OK, "explain", "--json", "--url", url));
    assertThat(tree.get("engine").asText()).isEqualTo("sglang");
    JsonNode running = tree.get("concepts").get(0);
    assertThat(running.get("concept").asText()).isEqualTo("running");
    JsonNode series = running.get("sources").get(0).get("series");
    assertThat(series).hasSize(2);
    assertThat(series.get(0).get("labels").get("tp_rank").asText()).isEqualTo("1");
    assertThat(series.get(0).get("read").asBoolean()).isFalse();
    assertThat(series.get(1).get("value").asDouble()).isEqualTo(3.0);
  }

  @Test
  void explain_unreachableAndNotFound_inTheScrapersWords() {
    String nope = url.replace("/metrics", "/nope");
    String host = "127.0.0.1:" + server.port();
    assertThat(output(ExitCodes.IO, "explain", "--url", nope)).isEqualTo("explain: can't scrape " + nope + ": HTTP 404 Not Found from " + host + "\n");
    server.close();
    assertThat(output(ExitCodes.IO, "explain", "--url", url, "--timeout", "2s"))
        .isEqualTo("explain: can't scrape " + url + ": connect to " + host + " refused\n");
  }

  @Test
  void explain_anHtmlPageIsReportedAsSuch() {
    String page = url.replace("/metrics", "/");
    String host = "127.0.0.1:" + server.port();
    // The scraper's own verdict (outcome malformed, as run reports it), not the parser's view of
    // "<!doctype".
    assertThat(output(ExitCodes.IO, "explain", "--url", page)).startsWith("explain: can't scrape " + page
        + ": the body is an HTML or XML page (Content-Type text/html), not a metrics exposition from "
        + host + ": ").doesNotContain("invalid metric name");
  }

  @Test
  void explain_usesTheConfiguredEndpointsBearerToken() throws Exception {
    String secured = url.replace("/metrics", "/secured");
    assertThat(output(ExitCodes.IO, "explain", "--url", secured)).contains("HTTP 401");
    Path token = Files.writeString(dir.resolve("token"), TOKEN + "\n");
    Path cfg = Files.writeString(dir.resolve("agent.yaml"), "inference:\n  endpoints:\n    - name: chat\n"
        + "      url: " + secured + "\n      bearerTokenFile: " + token + "\n");
    String out = output(ExitCodes.OK, "explain", "--url", secured, "--config", cfg.toString());
    assertThat(out).startsWith("scraped " + secured + " (as endpoint chat): ").doesNotContain(TOKEN);
  }

  @Test
  void explain_saysHowEachConceptWasCombinedAndTheValueTheAgentReports() {
    String out = output(ExitCodes.OK, "explain", "--url", url.replace("/metrics", "/vllm"));
    assertThat(out).contains("\nas the agent reports them (this scrape):\n");
    assertThat(out).containsPattern("\n  running +sum of 2 series; 7\n");
    assertThat(out).containsPattern("\n  kvCache +max of 2 series \\(the fullest rank or engine\\); 0\\.7500 \\(75\\.0% in use\\)\n");
    assertThat(out).containsPattern("\n  waiting +no series read; N/A \\(not in this scrape\\)\n");
    assertThat(out).doesNotContain("summed with the other series read");
    String sglang = output(ExitCodes.OK, "explain", "--url", url);
    assertThat(sglang).containsPattern("\n  running +sum of 1 series; 3\n");
    assertThat(sglang).containsPattern("\n  generationTokens +sum of 1 series; 1200 in total now; reported as a rate per second");
    assertThat(sglang).containsPattern("\n  ttft +buckets summed by le over 1 series; 5 observations now");
  }
}
