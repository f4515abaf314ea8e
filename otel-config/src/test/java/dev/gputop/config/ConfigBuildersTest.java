package dev.gputop.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A builder started from a configuration builds that configuration: no component is dropped. */
class ConfigBuildersTest {

  private static final String YAML = "refresh:\n  normal: 5s\nlisten: 127.0.0.1:9999\n"
      + "inference:\n  window: 2m\n  costPerGpuHour: 2.5\n  quantiles: [0.5, 0.95]\n"
      + "  slo:\n    ttft: 1s\n  discovery:\n    enabled: false\n"
      + "  scrape:\n    timeout: 1500ms\n    concurrency: 3\n"
      + "  endpoints:\n    - name: chat\n      url: http://127.0.0.1:8000/metrics\n";

  @Test
  void toBuilder_buildsTheSameSettings_andASetterChangesOnlyItsOwn() {
    AgentConfig config = new ConfigLoader().parse(YAML, Map.of());
    assertThat(config.toBuilder().build()).isEqualTo(config);
    InferenceConfig inference = config.inference();
    assertThat(inference.toBuilder().build()).isEqualTo(inference);
    assertThat(inference.scrape().toBuilder().build()).isEqualTo(inference.scrape());

    InferenceConfig moved = inference.toBuilder().endpoints(List.of()).build();
    assertThat(moved.endpoints()).isEmpty();
    assertThat(moved.slo()).isEqualTo(inference.slo());
    assertThat(moved.quantiles()).containsExactly(0.5, 0.95);
    assertThat(moved.costPerGpuHour()).isEqualTo(2.5);
    ScrapeConfig scrape = inference.scrape().toBuilder().timeout(Duration.ofSeconds(4)).build();
    assertThat(scrape.timeout()).isEqualTo(Duration.ofSeconds(4));
    assertThat(scrape.concurrency()).isEqualTo(3);
  }

  @Test
  void builder_startsFromTheDefaults() {
    assertThat(AgentConfig.builder().build()).isEqualTo(AgentConfig.defaults());
    assertThat(InferenceConfig.builder().build()).isEqualTo(InferenceConfig.defaults());
    assertThat(ScrapeConfig.builder().build()).isEqualTo(ScrapeConfig.defaults());
  }
}
