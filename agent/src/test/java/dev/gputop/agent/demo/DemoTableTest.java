package dev.gputop.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoTableTest {

  private static final String SNAPSHOT = "{"
      + "\"timestamp\":\"2026-03-02T09:01:00Z\",\"gpus\":[],"
      + "\"inference\":["
      + "{\"name\":\"vllm-dp2\",\"engine\":\"vllm\",\"state\":\"up\",\"error\":null,\"running\":64,\"waiting\":17,"
      + "\"kvCacheUsage\":0.9712,\"prefixHitRatio\":0.334,\"requestsPerSecond\":8.04,"
      + "\"generationTokensPerSecond\":1711.6,"
      + "\"ttft\":{\"mean\":0.5,\"p50\":0.3124,\"p90\":1.2,\"p99\":2.345,\"count\":480},"
      + "\"itl\":{\"mean\":0.03,\"p50\":0.0281,\"p90\":0.05,\"p99\":0.07,\"count\":90000},"
      + "\"e2e\":{\"mean\":6.1,\"p50\":5.2,\"p90\":9.8,\"p99\":14.04,\"count\":480}},"
      + "{\"name\":\"tgi\",\"engine\":\"tgi\",\"state\":\"up\",\"error\":null,\"running\":7,\"waiting\":0,"
      + "\"kvCacheUsage\":null,\"prefixHitRatio\":null,\"requestsPerSecond\":2.9,"
      + "\"generationTokensPerSecond\":402.2,\"ttft\":null,\"ttftApproxMean\":0.18,"
      + "\"unavailable\":{\"kvCacheUsage\":\"not_exported\",\"prefixHitRatio\":\"not_exported\",\"ttft\":\"not_exported\"},"
      + "\"itl\":{\"mean\":0.02,\"p50\":0.0196,\"p90\":0.03,\"p99\":0.04,\"count\":170},"
      + "\"e2e\":{\"mean\":3.0,\"p50\":2.5,\"p90\":6.0,\"p99\":125.4,\"count\":170}},"
      + "{\"name\":\"llamacpp-with-a-long-name\",\"engine\":\"llamacpp\",\"state\":\"down\","
      + "\"error\":\"connection refused\",\"running\":null,\"waiting\":null,\"kvCacheUsage\":null,"
      + "\"prefixHitRatio\":null,\"requestsPerSecond\":null,\"generationTokensPerSecond\":null,"
      + "\"ttft\":null,\"itl\":{\"p50\":0.0004},\"e2e\":null,\"unavailable\":{\"running\":\"down\",\"e2e\":\"down\"}}"
      + "],"
      + "\"overview\":{\"serving\":{\"worstTtftP99\":2.345,\"worstItlP50\":0.0281,\"generationTokensPerSecond\":2113.8,\"waiting\":17}},"
      + "\"alerts\":[{\"name\":\"kv_cache_full\",\"server\":\"vllm-dp2\",\"message\":\"KV cache 97% used with 17 requests waiting\"}],"
      + "\"health\":{\"inference\":{\"status\":\"healthy\"},\"nvml\":{\"status\":\"unavailable\"}}"
      + "}";

  @Test
  void render_sampleSnapshot_exactLines() throws Exception {
    JsonNode doc = new ObjectMapper().readTree(SNAPSHOT);
    assertThat(DemoTable.render(doc).split("\n", -1)).containsExactly(
        "SERVER         ENGINE   STATE     RUN/WAIT    KV PREFIX TTFT p50 TTFT p99 ITL p50 E2E p99  REQ/S GEN TOK/S",
        "vllm-dp2       vllm     up           64/17   97%    33%    312ms    2.35s    28ms  14.04s    8.0      1712",
        // A N/A with a reason says it (the key line spells the codes out); TGI's TTFT is its approximate mean.
        "tgi            tgi      up             7/0   N/E    N/E   ≈180ms      N/E    20ms    125s    2.9       402",
        "llamacpp-with~ llamacpp down        DOWN/-     -      -        -        -   0.4ms    DOWN      -         -",
        "  llamacpp-with-a-long-name: connection refused",
        DemoTable.KEY,
        "Overview: worst TTFT p99 2.35s, worst ITL p50 28ms, generation 2114 tok/s, waiting 17",
        "Alerts:",
        "  kv_cache_full vllm-dp2: KV cache 97% used with 17 requests waiting",
        "");
  }

  @Test
  void render_overviewShowsTheWorstSloAttainmentWhenSomeServerHasOne() throws Exception {
    JsonNode doc = new ObjectMapper().readTree(SNAPSHOT.replace("\"waiting\":17}}", "\"waiting\":17,\"worstSloAttainment\":0.9123}}"));
    assertThat(DemoTable.render(doc)).contains(
        "Overview: worst TTFT p99 2.35s, worst ITL p50 28ms, generation 2114 tok/s, waiting 17, worst SLO attainment 91.2%\n");
  }

  @Test
  void render_emptySnapshot_saysSo() {
    assertThat(DemoTable.render(Map.of("inference", java.util.List.of(), "alerts", java.util.List.of())))
        .isEqualTo("SERVER         ENGINE   STATE     RUN/WAIT    KV PREFIX TTFT p50 TTFT p99 ITL p50 E2E p99  REQ/S GEN TOK/S\n"
            + "(no inference servers)\n"
            + "Overview: worst TTFT p99 -, worst ITL p50 -, generation - tok/s, waiting -\n"
            + "Alerts: none\n");
  }
}
