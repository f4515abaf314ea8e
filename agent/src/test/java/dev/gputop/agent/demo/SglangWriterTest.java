package dev.gputop.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SglangWriterTest {

  private final ManualClock clock = new ManualClock(Fixtures.T0);
  private DemoReplicas demo;
  private Replica sglang;

  @BeforeEach
  void start() throws Exception {
    demo = Fixtures.replicas(clock, 12, Duration.ofSeconds(90));
    sglang = demo.replica("sglang-tp2");
  }

  @AfterEach
  void stop() {
    demo.close();
  }

  @Test
  void write_repeatsSchedulerGaugesPerTpRankWithIdenticalValues() {
    MiniExposition e = MiniExposition.parse(sglang.render());
    for (String gauge : List.of("sglang:num_running_reqs", "sglang:num_queue_reqs", "sglang:token_usage",
        "sglang:num_used_tokens", "sglang:max_total_num_tokens", "sglang:gen_throughput", "sglang:cache_hit_rate")) {
      MiniExposition.Family f = e.family(gauge);
      assertThat(f.type()).as(gauge).isEqualTo("gauge");
      assertThat(f.samples()).as(gauge).hasSize(2);
      assertThat(f.samples().get(0).labels()).containsEntry("tp_rank", "0").containsEntry("pp_rank", "0")
          .containsEntry("engine_type", "unified").containsEntry("model_name", "Qwen/Qwen2.5-14B-Instruct");
      assertThat(f.samples().get(1).labels()).containsEntry("tp_rank", "1");
      assertThat(f.samples().get(1).value()).as(gauge).isEqualTo(f.samples().get(0).value());
    }
    assertThat(e.family("sglang:num_retracted_requests_total").type()).isEqualTo("counter");
    assertThat(e.family("sglang:queue_time_seconds").samples().stream().map(s -> s.label("tp_rank")).distinct())
        .containsExactly("0", "1");
  }

  @Test
  void write_tokenizerFamiliesCarryOnlyModelName() {
    MiniExposition e = MiniExposition.parse(sglang.render());
    for (String f : List.of("sglang:time_to_first_token_seconds", "sglang:inter_token_latency_seconds",
        "sglang:e2e_request_latency_seconds", "sglang:prompt_tokens_total", "sglang:generation_tokens_total",
        "sglang:cached_tokens_total", "sglang:num_requests_total")) {
      assertThat(e.family(f)).as(f).isNotNull();
      for (MiniExposition.Sample s : e.family(f).samples()) {
        assertThat(s.labels().keySet()).as(s.name()).isSubsetOf("model_name", "le");
      }
    }
    assertThat(e.order).noneMatch(n -> n.endsWith("_created") || n.startsWith("python_") || n.startsWith("process_"));
  }

  @Test
  void write_usesSglangBucketSets() {
    MiniExposition e = MiniExposition.parse(sglang.render());
    assertThat(les(e, "sglang:time_to_first_token_seconds")).containsExactly(
        "0.1", "0.2", "0.4", "0.6", "0.8", "1.0", "2.0", "4.0", "6.0", "8.0", "10.0", "20.0", "40.0",
        "60.0", "80.0", "100.0", "200.0", "400.0", "+Inf");
    assertThat(les(e, "sglang:inter_token_latency_seconds")).containsExactly(
        "0.002", "0.004", "0.006", "0.008", "0.01", "0.015", "0.02", "0.025", "0.03", "0.035", "0.04",
        "0.06", "0.08", "0.1", "0.2", "0.4", "0.6", "0.8", "1.0", "2.0", "4.0", "6.0", "8.0", "+Inf");
    assertThat(les(e, "sglang:e2e_request_latency_seconds")).endsWith("1200.0", "1800.0", "2400.0", "+Inf");
    assertThat(les(e, "sglang:queue_time_seconds")).startsWith("0.0", "0.1", "0.2", "0.5", "1.0").endsWith("3000.0", "+Inf");
  }

  @Test
  void write_beforeAnyRequest_omitsTokenizerFamilies() throws Exception {
    ManualClock fresh = new ManualClock(Fixtures.T0);
    try (DemoReplicas d = Fixtures.replicas(fresh, 12, Duration.ZERO)) {
      MiniExposition e = MiniExposition.parse(d.replica("sglang-tp2").render());
      assertThat(e.order).contains("sglang:num_running_reqs")
          .doesNotContain("sglang:time_to_first_token_seconds", "sglang:num_requests_total");
    }
  }

  private static List<String> les(MiniExposition e, String family) {
    return e.family(family).samples().stream()
        .filter(s -> s.name().endsWith("_bucket") && !"1".equals(s.label("tp_rank")))
        .map(s -> s.label("le"))
        .collect(Collectors.toList());
  }
}
