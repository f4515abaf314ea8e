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
    assertThat(t.minRequests()).isEqualTo(20L);
  }

  @Test
  void resolve_matchingOverridesApplyInOrderThenTheEndpoint() {
    SloConfig c = new SloConfig(
        new SloTargets(Duration.ofSeconds(1), Duration.ofMillis(50), null, null, 0.95, null),
        List.of(
            new SloOverride(null, "vllm", null, ttft(800)),
            new SloOverride(null, "vllm", "llama-*", ttft(500)),
            new SloOverride(null, "sglang", null, ttft(300)),
            new SloOverride("chat-?", null, null, new SloTargets(null, null, null, null, 0.999, 5L))));
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
    assertThat(chat.minRequests()).isEqualTo(5L);
    assertThat(c.resolve("chat-10", "vllm", "x", null).objective()).as("? is one character").isEqualTo(0.95);
  }

  @Test
  void targets_rejectNonPositiveTargetsAndObjectivesOutsideZeroOne() {
    assertThatThrownBy(() -> ttft(0)).hasMessageContaining("positive");
    assertThatThrownBy(() -> new SloTargets(null, null, null, null, 1.0, null)).hasMessageContaining("between 0 and 1");
    assertThatThrownBy(() -> new SloTargets(null, null, null, null, null, -1L)).hasMessageContaining("minRequests");
  }
}
