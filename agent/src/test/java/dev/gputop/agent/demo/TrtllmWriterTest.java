package dev.gputop.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.ManualClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TrtllmWriterTest {

  private final ManualClock clock = new ManualClock(Fixtures.T0);
  private DemoReplicas demo;
  private Replica trtllm;

  @BeforeEach
  void start() throws Exception {
    demo = Fixtures.replicas(clock, 21, Duration.ofSeconds(90));
    trtllm = demo.replica("trtllm");
  }

  @AfterEach
  void stop() {
    demo.close();
  }

  @Test
  void write_prefixedNamesWithTheCollectorsLabels() {
    MiniExposition e = MiniExposition.parse(trtllm.render());
    for (String f : List.of("trtllm_request_success_total", "trtllm_e2e_request_latency_seconds",
        "trtllm_time_to_first_token_seconds", "trtllm_time_per_output_token_seconds",
        "trtllm_request_queue_time_seconds", "trtllm_kv_cache_utilization", "trtllm_kv_cache_hit_rate",
        "trtllm_prompt_tokens_total", "trtllm_prompt_cached_tokens_total", "trtllm_server_queue_length",
        "trtllm_num_active_requests")) {
      MiniExposition.Family family = e.family(f);
      assertThat(family).as(f).isNotNull();
      for (MiniExposition.Sample s : family.samples()) {
        assertThat(s.labels()).as(s.name()).containsEntry("engine_type", "trtllm")
            .containsEntry("model_name", "nvidia/Llama-3.1-8B-Instruct-FP8");
        assertThat(s.labels().keySet()).as(s.name()).isSubsetOf("engine_type", "model_name", "le", "finished_reason");
      }
    }
    assertThat(e.family("trtllm_request_success_total").type()).isEqualTo("counter");
    assertThat(e.family("trtllm_kv_cache_utilization").type()).isEqualTo("gauge");
    // multiprocess mode: no _created, no python/process families, no generation-token counter.
    assertThat(e.order).noneMatch(n -> n.endsWith("_created") || n.startsWith("python_") || n.startsWith("process_"));
    assertThat(e.order).doesNotContain("trtllm_generation_tokens_total");
  }

  @Test
  void write_histogramSumComesBeforeItsBucketsAndCountAfter() {
    List<String> names = trtllm.render().lines()
        .filter(l -> l.startsWith("trtllm_time_to_first_token_seconds"))
        .map(l -> l.substring(0, l.indexOf('{')))
        .collect(Collectors.toList());
    assertThat(names.get(0)).isEqualTo("trtllm_time_to_first_token_seconds_sum");
    assertThat(names.get(names.size() - 1)).isEqualTo("trtllm_time_to_first_token_seconds_count");
    assertThat(names.subList(1, names.size() - 1)).containsOnly("trtllm_time_to_first_token_seconds_bucket")
        .hasSize(VllmWriter.TTFT.length + 1);
  }

  @Test
  void write_countsMatchTheTruth() {
    MiniExposition e = MiniExposition.parse(trtllm.render());
    Truth t = Truths.of(trtllm);
    assertThat(e.value("trtllm_time_to_first_token_seconds_count")).isEqualTo(t.total(Kind.TTFT, 0).count());
    assertThat(e.value("trtllm_num_active_requests")).isEqualTo(t.running());
    assertThat(e.value("trtllm_server_queue_length")).isEqualTo(t.waiting());
  }

  @Test
  void get_servesTextOnPrometheusMetricsAndJsonOnMetrics() throws Exception {
    assertThat(trtllm.url().getPath()).isEqualTo("/prometheus/metrics");
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> text = http.send(HttpRequest.newBuilder(trtllm.url()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(text.statusCode()).isEqualTo(200);
    assertThat(text.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
    assertThat(text.body()).contains("trtllm_num_active_requests");
    URI json = trtllm.url().resolve("/metrics");
    HttpResponse<String> stats = http.send(HttpRequest.newBuilder(json).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(stats.statusCode()).isEqualTo(200);
    assertThat(stats.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(stats.body()).isEqualTo("[]");
  }
}
