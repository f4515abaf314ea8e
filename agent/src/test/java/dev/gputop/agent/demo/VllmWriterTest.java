package dev.gputop.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class VllmWriterTest {

  private final ManualClock clock = new ManualClock(Fixtures.T0);
  private DemoReplicas demo;
  private Replica vllm;

  @BeforeEach
  void start() throws Exception {
    demo = Fixtures.replicas(clock, 11, Duration.ofSeconds(90));
    vllm = demo.replica("vllm-dp2");
  }

  @AfterEach
  void stop() {
    demo.close();
  }

  @Test
  void write_isValidExpositionWithV1Families() {
    MiniExposition e = MiniExposition.parse(vllm.render());

    assertThat(e.order.get(0)).isEqualTo("python_gc_objects_collected_total");
    assertThat(e.order).contains(
        "process_start_time_seconds",
        "vllm:num_requests_running",
        "vllm:num_requests_waiting",
        "vllm:kv_cache_usage_perc",
        "vllm:engine_sleep_state",
        "vllm:prefix_cache_queries_total",
        "vllm:prefix_cache_queries_created",
        "vllm:prefix_cache_hits_total",
        "vllm:num_preemptions_total",
        "vllm:prompt_tokens_total",
        "vllm:generation_tokens_total",
        "vllm:request_success_total",
        "vllm:request_success_created",
        "vllm:iteration_tokens_total",
        "vllm:time_to_first_token_seconds",
        "vllm:time_to_first_token_seconds_created",
        "vllm:time_per_output_token_seconds",
        "vllm:inter_token_latency_seconds",
        "vllm:request_time_per_output_token_seconds",
        "vllm:e2e_request_latency_seconds",
        "vllm:request_queue_time_seconds",
        "vllm:request_prefill_time_seconds",
        "vllm:request_decode_time_seconds",
        "vllm:cache_config_info");
    assertThat(e.order).doesNotContain("vllm:gpu_cache_usage_perc", "vllm:gpu_prefix_cache_queries_total");
    assertThat(e.family("vllm:prompt_tokens_total").type()).isEqualTo("counter");
    assertThat(e.family("vllm:prompt_tokens_created").type()).isEqualTo("gauge");
    assertThat(e.family("vllm:iteration_tokens_total").type()).isEqualTo("histogram");
    assertThat(e.family("vllm:num_requests_running").help()).isEqualTo("Number of requests in model execution batches.");
    assertThat(e.family("vllm:kv_cache_usage_perc").help()).isEqualTo("KV-cache usage. 1 means 100 percent usage.");
  }

  @Test
  void write_repeatsEverySeriesPerDataParallelEngine() {
    MiniExposition e = MiniExposition.parse(vllm.render());
    for (MiniExposition.Sample s : e.samples()) {
      if (!s.name().startsWith("vllm:")) {
        continue;
      }
      assertThat(s.label("engine")).as(s.name()).isIn("0", "1");
      if (!s.name().equals("vllm:cache_config_info")) {
        assertThat(s.label("model_name")).as(s.name()).isEqualTo("meta-llama/Llama-3.1-8B-Instruct");
      }
    }
    assertThat(e.family("vllm:num_requests_running").samples()).hasSize(2);
    Set<String> reasons = e.family("vllm:request_success_total").samples().stream()
        .map(s -> s.label("finished_reason")).collect(Collectors.toCollection(TreeSet::new));
    assertThat(reasons).containsExactly("abort", "length", "stop");
    assertThat(e.family("vllm:request_success_total").samples()).hasSize(6);
  }

  @Test
  void write_usesTheV1BucketBoundaries() {
    MiniExposition e = MiniExposition.parse(vllm.render());
    assertThat(les(e, "vllm:time_to_first_token_seconds")).containsExactly(
        "0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5", "0.75",
        "1.0", "2.5", "5.0", "7.5", "10.0", "20.0", "40.0", "80.0", "160.0", "640.0", "2560.0", "+Inf");
    assertThat(les(e, "vllm:inter_token_latency_seconds")).containsExactly(
        "0.01", "0.025", "0.05", "0.075", "0.1", "0.15", "0.2", "0.3", "0.4", "0.5", "0.75", "1.0",
        "2.5", "5.0", "7.5", "10.0", "20.0", "40.0", "80.0", "+Inf");
    assertThat(les(e, "vllm:e2e_request_latency_seconds")).containsExactly(
        "0.3", "0.5", "0.8", "1.0", "1.5", "2.0", "2.5", "5.0", "10.0", "15.0", "20.0", "30.0",
        "40.0", "50.0", "60.0", "120.0", "240.0", "480.0", "960.0", "1920.0", "7680.0", "+Inf");
    assertThat(les(e, "vllm:request_prompt_tokens")).containsExactly(
        "1.0", "2.0", "5.0", "10.0", "20.0", "50.0", "100.0", "200.0", "500.0", "1000.0", "2000.0",
        "5000.0", "+Inf");
    assertThat(les(e, "vllm:iteration_tokens_total")).startsWith("1.0", "8.0", "16.0").endsWith("16384.0", "+Inf");
  }

  @Test
  void write_formatsNumbersAsPythonDoes() {
    String text = vllm.render();
    assertThat(text).contains("process_max_fds 1.048576e+06\n");
    assertThat(text).containsPattern("vllm:prompt_tokens_created\\{engine=\"0\",model_name=\"[^\"]+\"\\} 1\\.77\\d+e\\+09\n");
    assertThat(text).containsPattern("vllm:num_requests_running\\{engine=\"1\",model_name=\"[^\"]+\"\\} \\d+\\.0\n");
    assertThat(text).contains("vllm:engine_sleep_state{engine=\"0\",model_name=\"meta-llama/Llama-3.1-8B-Instruct\",sleep_state=\"awake\"} 1.0\n");
    assertThat(vllm.contentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
  }

  @Test
  void writeOpenMetrics_isWhatPrometheusClientNegotiates() throws Exception {
    String om = vllm.renderOpenMetrics();
    assertThat(om).endsWith("# EOF\n");
    assertThat(om).contains("# TYPE vllm:prompt_tokens counter\n")
        .contains("# TYPE python_gc_objects_collected counter\n")
        .contains("# TYPE vllm:time_to_first_token_seconds histogram\n")
        .doesNotContain("# TYPE vllm:prompt_tokens_created gauge");
    // each series' _created follows it
    assertThat(om).containsPattern(
        "vllm:prompt_tokens_total\\{engine=\"0\",model_name=\"[^\"]+\"\\} \\S+\nvllm:prompt_tokens_created\\{engine=\"0\",");
    dev.gputop.inference.parse.Exposition parsed =
        new dev.gputop.inference.parse.ExpositionParser(dev.gputop.inference.parse.ParserLimits.defaults()).parse(om);
    dev.gputop.inference.parse.MetricFamily counter = parsed.family("vllm:prompt_tokens");
    assertThat(counter.type()).isEqualTo(dev.gputop.inference.parse.MetricType.COUNTER);
    assertThat(counter.samples()).extracting(dev.gputop.inference.parse.Sample::name)
        .containsExactly("vllm:prompt_tokens_total", "vllm:prompt_tokens_created",
            "vllm:prompt_tokens_total", "vllm:prompt_tokens_created");
    // the same numbers as the text format at the same moment
    MiniExposition text = MiniExposition.parse(vllm.render());
    assertThat(counter.samples().get(0).value()).isEqualTo(text.value("vllm:prompt_tokens_total", "engine", "0"));
  }

  private static List<String> les(MiniExposition e, String family) {
    return e.family(family).samples().stream()
        .filter(s -> s.name().endsWith("_bucket") && "0".equals(s.label("engine")))
        .map(s -> s.label("le"))
        .collect(Collectors.toList());
  }
}
