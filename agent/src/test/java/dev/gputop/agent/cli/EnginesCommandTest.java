package dev.gputop.agent.cli;

import static dev.gputop.agent.cli.CliRuns.output;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnginesCommandTest {

  @TempDir Path tmp;

  @Test
  void engines_listsEveryProfileWithItsSourcesAndDiscovery() {
    String out = output(ExitCodes.OK, "engines");
    assertThat(out).contains("vllm — vLLM (priority 10, engines/vllm.yaml (built in))");
    assertThat(out).contains("  prefixes: vllm:, ray_vllm: → vllm:, ray_vllm_ → vllm:\n");
    assertThat(out).contains("  wrapper: ray: ray_ + the name with [^a-zA-Z0-9_] → _, its gauge copies of counters"
        + " skipped, adds ReplicaId, WorkerId, Component, NodeAddress, SessionName, Version\n");
    assertThat(out).containsPattern("    kvCache +gauge vllm:kv_cache_usage_perc \\(added 0.9.2\\)");
    assertThat(out).containsPattern("    abortedRequests +counter vllm:request_success where finished_reason=\"abort\"");
    assertThat(out).containsPattern("      else +gauge vllm:gpu_cache_usage_perc \\(deprecated 0.10, removed 0.12");
    assertThat(out).contains("    vllm serve (server) → port --port (default 8000), host --host (default 0.0.0.0), path /metrics");
    assertThat(out).contains("  one rank read: tp_rank, pp_rank, moe_ep_rank");
    assertThat(out).containsPattern("    prefillBatch +histogram tgi_batch_inference_duration where method=\"prefill\"");
    assertThat(out.indexOf("vllm —")).isLessThan(out.indexOf("sglang —"));
    assertThat(out.indexOf("llamacpp —")).isLessThan(out.indexOf("tgi —"));
  }

  @Test
  void engines_jsonWithAUserProfileFromTheConfiguration() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("engines"));
    Files.writeString(dir.resolve("mine.yaml"),
        "engine: mine\nname: Mine\npriority: 99\nprefixes:\n  \"mine:\": \"mine:\"\n"
            + "concepts:\n  queue:\n    - histogram: mine:queue_ms\n      scale: 0.001\n");
    Path config = tmp.resolve("agent.yaml");
    Files.writeString(config, "inference:\n  engines:\n    directory: " + dir + "\n");
    JsonNode all = new ObjectMapper().readTree(output(ExitCodes.OK, "engines", "--json", "--config", config.toString()));
    JsonNode mine = all.get(all.size() - 1);
    assertThat(mine.get("engine").asText()).isEqualTo("mine");
    assertThat(mine.get("origin").asText()).isEqualTo(dir.resolve("mine.yaml").toString());
    JsonNode queue = mine.get("concepts").get("queue").get(0);
    assertThat(queue.get("form").asText()).isEqualTo("histogram");
    assertThat(queue.get("name").asText()).isEqualTo("mine:queue_ms");
    assertThat(queue.get("scale").asDouble()).isEqualTo(0.001);
    JsonNode vllm = all.get(0);
    assertThat(vllm.get("discovery").get("commands").get(0).get("endpoint").get("defaultPort").asInt()).isEqualTo(8000);
  }

  @Test
  void engines_badProfileIsAConfigurationError() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("engines"));
    Files.writeString(dir.resolve("bad.yaml"), "engine: bad\nname: Bad\npriority: x\n");
    Path config = tmp.resolve("agent.yaml");
    Files.writeString(config, "inference:\n  engines:\n    directory: " + dir + "\n");
    String out = output(ExitCodes.CONFIG, "engines", "--config", config.toString());
    assertThat(out).contains("configuration error: inference.engines.directory: " + dir.resolve("bad.yaml")
        + ": line 3: priority: 'x' is not a whole number");
    assertThat(output(ExitCodes.CONFIG, "check-config", "--config", config.toString())).contains("'x' is not a whole number");
  }
}
