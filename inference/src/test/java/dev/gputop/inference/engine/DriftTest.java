package dev.gputop.inference.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.inference.testing.TextExpositions;
import org.junit.jupiter.api.Test;

/**
 * Drift (docs/engines/README.md): the engine's families no rule reads and the profile doesn't
 * know, and the concepts expected from a server of that version that it does not export, on the
 * expositions written from the engines' definitions.
 */
class DriftTest {

  private final EngineMapper mapper = new EngineMapper();

  private static String resource(String file) {
    return TextExpositions.resource("/engines/" + file);
  }

  private ServerScrape map(String text) {
    return mapper.map(TextExpositions.parse(text));
  }

  @Test
  void renamedFamily_isUnreadAndItsConceptMissingWithTheExpectedName() {
    // trtllm-serve at 050f80de, with an upgrade that renamed generation_tokens.
    String renamed = resource("trtllm/v2026-050f80de-t1.prom")
        .replace("trtllm_generation_tokens_total", "trtllm_completion_tokens_total");
    ServerScrape s = map(renamed);
    assertThat(s.get(Concept.GENERATION_TOKENS)).isNull();
    assertThat(s.drift().unreadCount()).isEqualTo(1);
    assertThat(s.drift().unread()).containsExactly("trtllm_completion_tokens_total");
    assertThat(s.drift().missing()).extracting(Drift.Missing::describe)
        .containsExactly("generationTokens: counter trtllm_generation_tokens (added 2026 (050f80de))");
  }

  @Test
  void currentServers_haveNoDrift() {
    for (String file : new String[] {"trtllm/v2026-050f80de-t1.prom", "sglang/v2026-by-priority-tp2-t1.prom",
        "sglang/v2026-ray-t1.prom", "lmdeploy/v0.16.0-dp2-t1.prom", "dynamo/v1.x-frontend-t1.prom",
        "triton/v2.5x-trtllm-ensemble-t1.prom", "tei/v1.9-t1.prom", "tgi/v3.3.7-t1.prom", "llamacpp/v2026-t1.prom"}) {
      Drift d = map(resource(file)).drift();
      assertThat(d.isEmpty()).as(file + ": " + d).isTrue();
    }
  }

  @Test
  void anOlderVersion_isNotAskedForNamesAddedAfterIt() {
    // TensorRT-LLM 1.1 writes no trtllm_ name: none of the 2026 concepts is expected of it.
    assertThat(map(resource("trtllm/v1.1-undefined-t1.prom")).drift().missing()).isEmpty();
    // An early-2026 collector has the trtllm_ names but not those 050f80de added.
    assertThat(map(resource("trtllm/v2026-t1.prom")).drift().missing()).isEmpty();
    // A concept behind a condition (spec decode: a draft model) is never missing.
    assertThat(map(resource("sglang/v2026-priority-tp2-t1.prom")).drift().missing()).isEmpty();
  }

  @Test
  void aNameAsOldAsTheProfile_isMissingWhenAbsent() {
    // vLLM without num_requests_running (no version note: every vLLM has it).
    String text = resource("vllm/v2026-dp2-t1.prom").replace("vllm:num_requests_running", "vllm:num_requests_active");
    Drift d = map(text).drift();
    assertThat(d.missing()).extracting(Drift.Missing::describe).contains("running: gauge vllm:num_requests_running");
    assertThat(d.unread()).contains("vllm:num_requests_active");
  }

  @Test
  void unreadNames_areBoundedButCounted() {
    StringBuilder sb = new StringBuilder("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n");
    for (int i = 0; i < 25; i++) {
      sb.append("# TYPE vllm:new_family_").append(i).append(" gauge\nvllm:new_family_").append(i).append(" 1\n");
    }
    // Other exporters' families on the endpoint are not the engine's.
    sb.append("# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 3\n");
    Drift d = map(sb.toString()).drift();
    assertThat(d.unreadCount()).isEqualTo(25);
    assertThat(d.unread()).hasSize(Drift.MAX_NAMES).startsWith("vllm:new_family_0");
  }

  @Test
  void wrapperCopies_areDuplicatesNotDrift() {
    Drift d = map(resource("vllm/v2026-ray-t1.prom")).drift();
    assertThat(d.duplicates()).hasSize(Drift.MAX_NAMES).contains("ray_vllm_prefix_cache_queries");
    assertThat(d.unread()).noneMatch(n -> n.startsWith("ray_node_") || n.startsWith("ray_serve_"));
    assertThat(d.missing()).isEmpty();
  }
}
