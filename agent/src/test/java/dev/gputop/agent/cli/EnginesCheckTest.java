package dev.gputop.agent.cli;

import static dev.gputop.agent.cli.CliRuns.output;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code engines --check --url} against a real HTTP server on loopback: a trtllm-serve 2026
 * exposition (tensorrt_llm/metrics/collector.py at 050f80de) as it is, and after an upgrade that
 * renamed its generation-token counter.
 */
class EnginesCheckTest {

  private static final String TRTLLM =
      "# HELP trtllm_request_success_total Count of successfully processed requests.\n"
          + "# TYPE trtllm_request_success_total counter\n"
          + "trtllm_request_success_total{engine_type=\"trtllm\",finished_reason=\"stop\",model_name=\"m\"} 20.0\n"
          + "# HELP trtllm_prompt_tokens_total Cumulative number of prompt (input) tokens processed.\n"
          + "# TYPE trtllm_prompt_tokens_total counter\n"
          + "trtllm_prompt_tokens_total{engine_type=\"trtllm\",model_name=\"m\"} 13000.0\n"
          + "# HELP trtllm_generation_tokens_total Cumulative number of generation (output) tokens produced.\n"
          + "# TYPE trtllm_generation_tokens_total counter\n"
          + "trtllm_generation_tokens_total{engine_type=\"trtllm\",model_name=\"m\"} 5500.0\n"
          + "# HELP trtllm_prompt_cached_tokens_total Process-lifetime total prompt tokens served from KV cache.\n"
          + "# TYPE trtllm_prompt_cached_tokens_total counter\n"
          + "trtllm_prompt_cached_tokens_total{engine_type=\"trtllm\",model_name=\"m\"} 4500.0\n"
          + "# HELP trtllm_time_to_first_token_seconds Histogram of time to first token in seconds.\n"
          + "# TYPE trtllm_time_to_first_token_seconds histogram\n"
          + "trtllm_time_to_first_token_seconds_sum{engine_type=\"trtllm\",model_name=\"m\"} 3.0\n"
          + "trtllm_time_to_first_token_seconds_bucket{engine_type=\"trtllm\",le=\"0.1\",model_name=\"m\"} 10.0\n"
          + "trtllm_time_to_first_token_seconds_bucket{engine_type=\"trtllm\",le=\"+Inf\",model_name=\"m\"} 20.0\n"
          + "trtllm_time_to_first_token_seconds_count{engine_type=\"trtllm\",model_name=\"m\"} 20.0\n"
          + "# HELP trtllm_request_prefill_time_seconds Histogram of prefill (context) phase duration in seconds.\n"
          + "# TYPE trtllm_request_prefill_time_seconds histogram\n"
          + "trtllm_request_prefill_time_seconds_sum{engine_type=\"trtllm\",model_name=\"m\"} 4.0\n"
          + "trtllm_request_prefill_time_seconds_bucket{engine_type=\"trtllm\",le=\"+Inf\",model_name=\"m\"} 20.0\n"
          + "trtllm_request_prefill_time_seconds_count{engine_type=\"trtllm\",model_name=\"m\"} 20.0\n"
          + histogram("trtllm_request_decode_time_seconds", 40.0)
          + histogram("trtllm_e2e_request_latency_seconds", 44.0)
          + histogram("trtllm_time_per_output_token_seconds", 0.6)
          + histogram("trtllm_request_queue_time_seconds", 2.0);

  /** A histogram of 20 observations, the multiprocess collector's way (_sum first). */
  private static String histogram(String name, double sum) {
    String l = "engine_type=\"trtllm\",model_name=\"m\"";
    return "# HELP " + name + " Histogram.\n# TYPE " + name + " histogram\n"
        + name + "_sum{" + l + "} " + sum + "\n"
        + name + "_bucket{engine_type=\"trtllm\",le=\"+Inf\",model_name=\"m\"} 20.0\n"
        + name + "_count{" + l + "} 20.0\n";
  }

  private MetricsServer server;
  private final AtomicReference<String> body = new AtomicReference<>(TRTLLM);
  private String url;

  @BeforeEach
  void start() throws Exception {
    server = new MetricsServer().serve("/prometheus/metrics", "text/plain; version=0.0.4", body::get, null);
    url = server.url("/prometheus/metrics");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void check_aCurrentServerFitsItsProfile() {
    String out = output(ExitCodes.OK, "engines", "--check", "--url", url);
    assertThat(out).startsWith("gputop-agent engines --check " + url + "\n");
    assertThat(out).contains("engine: trtllm (TensorRT-LLM, engines/trtllm.yaml (built in))\n");
    assertThat(out).contains("unread families (the engine's, no rule reads them): 0\n");
    assertThat(out).contains("missing (expected from this version, not exported): 0\n");
    assertThat(out).contains("verdict: the profile fits this server\n");
    // Read: what the scrape has; N/A: the conditional names (iteration stats, a draft model).
    assertThat(out).contains("read: 11 of 18 concepts the profile maps: prefixHits, prefixQueries, requests,"
        + " promptTokens, generationTokens, ttft, tpot, e2e, queue, prefill, decode\n");
    // N/A: the names behind a condition (iteration stats, the first error, a draft model).
    assertThat(out).contains("N/A: running, waiting, kvCache, failedRequests, abortedRequests, specDraftTokens,"
        + " specAcceptedTokens\n");
  }

  @Test
  void check_aRenamedFamilyIsDriftWithTheNameExpected() {
    body.set(TRTLLM.replace("trtllm_generation_tokens_total", "trtllm_output_tokens_total"));
    String out = output(ExitCodes.OK, "engines", "--check", "--url", url);
    assertThat(out).contains("unread families (the engine's, no rule reads them): 1\n  trtllm_output_tokens_total\n");
    assertThat(out).contains("missing (expected from this version, not exported): 1\n"
        + "  generationTokens: counter trtllm_generation_tokens (added 2026 (050f80de))\n");
    assertThat(out).contains("verdict: the engine has moved on from its profile");
    // One screen: a report a user can paste.
    assertThat(out.split("\n", -1).length).isLessThanOrEqualTo(25);
  }

  @Test
  void explain_listsTheDriftInABlockOfItsOwn() throws Exception {
    body.set(TRTLLM.replace("trtllm_generation_tokens_total", "trtllm_output_tokens_total"));
    String out = output(ExitCodes.OK, "explain", "--url", url);
    assertThat(out).contains("\ndrift:\n"
        + "  unread families (the engine's, no rule reads them): 1\n"
        + "    trtllm_output_tokens_total\n"
        + "  missing generationTokens: expected counter trtllm_generation_tokens (added 2026 (050f80de)), not exported\n");
    com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(output(ExitCodes.OK, "explain", "--json", "--url", url));
    assertThat(json.get("drift").get("unreadFamilies").toString())
        .isEqualTo("{\"count\":1,\"names\":[\"trtllm_output_tokens_total\"]}");
    assertThat(json.get("drift").get("missing").get(0).get("concept").asText()).isEqualTo("generationTokens");
  }

  @Test
  void check_anUnknownEndpointListsItsFirstFamilies() {
    body.set("# TYPE myserver_requests_total counter\nmyserver_requests_total 3\n"
        + "# TYPE myserver_queue gauge\nmyserver_queue 1\n");
    String out = output(ExitCodes.OK, "engines", "--check", "--url", url);
    assertThat(out).contains("engine: unknown");
    assertThat(out).contains("families (first 2 of 2): myserver_requests_total, myserver_queue\n");
  }

  @Test
  void check_anUnreachableServerIsAnIoError() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    String out = output(ExitCodes.IO, "engines", "--check", "--url", "http://127.0.0.1:" + port + "/metrics");
    assertThat(out).startsWith("engines --check: can't scrape http://127.0.0.1:" + port + "/metrics: ");
  }

  @Test
  void check_needsUrlAndUrlNeedsCheck() {
    assertThat(output(ExitCodes.USAGE, "engines", "--check")).contains("--check and --url go together");
    assertThat(output(ExitCodes.USAGE, "engines", "--url", url)).contains("--check and --url go together");
  }
}
