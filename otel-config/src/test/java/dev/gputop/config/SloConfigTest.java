package dev.gputop.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How inference.slo, its overrides and an endpoint's slo combine. */
class SloConfigTest {

  private static SloTargets ttft(long ms) {
    return new SloTargets(Duration.ofMillis(ms), null, null, null, null, null);
  }

  @Test
  void resolve_defaultsHaveNoTargetsButAnObjective() {
    SloTargets t = SloConfig.defaults().resolve("a", "vllm", "m", null);
    assertThat(t.hasTargets()).isFalse();
    assertThat(t.objective()).isEqualTo(0.99);
    assertThat(t.minRequests()).isEqualTo(20);
  }

  @Test
  void resolve_matchingOverridesApplyInOrderThenTheEndpoint() {
    SloConfig c = new SloConfig(
        new SloTargets(Duration.ofSeconds(1), Duration.ofMillis(50), null, null, 0.95, null),
        List.of(
            new SloOverride(null, "vllm", null, ttft(800)),
            new SloOverride(null, "vllm", "llama-*", ttft(500)),
            new SloOverride(null, "sglang", null, ttft(300)),
            new SloOverride("chat-?", null, null, new SloTargets(null, null, null, null, 0.999, 5))));
    SloTargets llama = c.resolve("vllm-8000", "vllm", "llama-3-8b", null);
    assertThat(llama.ttft()).isEqualTo(Duration.ofMillis(500));
    assertThat(llama.itl()).as("kept from inference.slo").isEqualTo(Duration.ofMillis(50));
    assertThat(llama.objective()).isEqualTo(0.95);
    assertThat(c.resolve("vllm-8000", "vllm", "qwen", null).ttft()).isEqualTo(Duration.ofMillis(800));
    assertThat(c.resolve("vllm-8000", "vllm", null, null).ttft())
        .as("a model matcher never matches an unknown model").isEqualTo(Duration.ofMillis(800));
    assertThat(c.resolve("tgi-1", "tgi", null, null).ttft()).isEqualTo(Duration.ofSeconds(1));
    SloTargets chat = c.resolve("chat-1", "vllm", "llama-3", ttft(200));
    assertThat(chat.ttft()).as("the endpoint's own slo wins").isEqualTo(Duration.ofMillis(200));
    assertThat(chat.objective()).isEqualTo(0.999);
    assertThat(chat.minRequests()).isEqualTo(5);
    assertThat(c.resolve("chat-10", "vllm", "x", null).objective()).as("? is one character").isEqualTo(0.95);
  }

  @Test
  void load_readsTheSectionTheOverridesAndTheEndpointsSlo() {
    AgentConfig c = new ConfigLoader(name -> null).parse(String.join("\n",
        "inference:",
        "  slo:",
        "    ttft: 1s",
        "    itl: 50ms",
        "    objective: 0.995",
        "    minRequests: 50",
        "    overrides:",
        "      - match: {engine: vllm, model: \"llama-*\"}",
        "        ttft: 500ms",
        "      - match:",
        "          server: batch-*",
        "        objective: 0.9",
        "  endpoints:",
        "    - name: chat",
        "      url: http://127.0.0.1:8000/metrics",
        "      slo:",
        "        e2e: 20s",
        ""), java.util.Map.of());
    SloConfig slo = c.inference().slo();
    assertThat(slo.base()).isEqualTo(new SloTargets(Duration.ofSeconds(1), Duration.ofMillis(50), null, null, 0.995, 50));
    assertThat(slo.overrides()).containsExactly(
        new SloOverride(null, "vllm", "llama-*", ttft(500)),
        new SloOverride("batch-*", null, null, new SloTargets(null, null, null, null, 0.9, null)));
    SloTargets endpoint = c.inference().endpoints().get(0).slo();
    assertThat(slo.resolve("chat", "vllm", "llama-3", endpoint))
        .isEqualTo(new SloTargets(Duration.ofMillis(500), Duration.ofMillis(50), Duration.ofSeconds(20), null, 0.995, 50));
  }

  @Test
  void load_badObjectiveNamesTheKeyAndLine() {
    assertThatThrownBy(() -> new ConfigLoader(name -> null).parse("inference:\n  slo:\n    objective: 99\n", java.util.Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("line 3: inference.slo.objective: must lie strictly between 0 and 1");
  }

  @Test
  void targets_rejectNonPositiveTargetsAndObjectivesOutsideZeroOne() {
    assertThatThrownBy(() -> ttft(0)).hasMessageContaining("positive");
    assertThatThrownBy(() -> new SloTargets(null, null, null, null, 1.0, null)).hasMessageContaining("between 0 and 1");
    assertThatThrownBy(() -> new SloTargets(null, null, null, null, null, -1)).hasMessageContaining("minRequests");
  }
}
