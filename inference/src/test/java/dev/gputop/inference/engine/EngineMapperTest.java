package dev.gputop.inference.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.inference.testing.TextExpositions;
import org.junit.jupiter.api.Test;

/** Recognition and mapping on readable snippets; real captures are in SharedFixturesTest. */
class EngineMapperTest {

  private final EngineMapper mapper = new EngineMapper();

  private ServerScrape map(String text) {
    return mapper.map(TextExpositions.parse(text));
  }

  private static double value(ServerScrape s, Concept c) {
    return s.get(c).series().values().stream().mapToDouble(Series::value).sum();
  }

  @Test
  void recognize_byPrefix() {
    assertThat(map("vllm:num_requests_running{model_name=\"m\"} 1\n").engine()).isEqualTo(Engine.VLLM);
    assertThat(map("ray_vllm:num_requests_running{model_name=\"m\"} 1\n").engine()).isEqualTo(Engine.VLLM);
    assertThat(map("sglang:num_running_reqs 1\n").engine()).isEqualTo(Engine.SGLANG);
    assertThat(map("sglang_num_running_reqs 1\n").engine()).isEqualTo(Engine.SGLANG);
    assertThat(map("tgi_queue_size 1\n").engine()).isEqualTo(Engine.TGI);
    assertThat(map("llamacpp:requests_processing 1\n").engine()).isEqualTo(Engine.LLAMACPP);
    assertThat(map("http_requests_total 1\nprocess_open_fds 3\n").engine()).isEqualTo(Engine.UNKNOWN);
    assertThat(map("").engine()).isEqualTo(Engine.UNKNOWN);
  }

  @Test
  void recognize_vllmWinsOverTgiStyleNamesFromTheSameProcess() {
    // IBM's vLLM fork writes TGI-compatible names beside its own.
    assertThat(map("tgi_queue_size 0.0\nvllm:num_requests_running{model_name=\"m\"} 1\n").engine())
        .isEqualTo(Engine.VLLM);
  }

  @Test
  void map_unknownEngineHasNoConcepts() {
    ServerScrape s = map("requests_total_counter{method=\"POST\"} 1\n");
    assertThat(s.engine()).isEqualTo(Engine.UNKNOWN);
    assertThat(s.concepts()).isEmpty();
  }

  @Test
  void map_vllmRenamesPreferTheNewNameWhenBothArePresent() {
    ServerScrape s = map(
        "vllm:gpu_cache_usage_perc{model_name=\"m\"} 0.2\n"
            + "vllm:kv_cache_usage_perc{model_name=\"m\"} 0.3\n"
            + "vllm:time_per_output_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 5\n"
            + "vllm:inter_token_latency_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 7\n");
    assertThat(s.get(Concept.KV_CACHE).source().name()).isEqualTo("vllm:kv_cache_usage_perc");
    assertThat(value(s, Concept.KV_CACHE)).isEqualTo(0.3);
    assertThat(s.get(Concept.ITL).source().name()).isEqualTo("vllm:inter_token_latency_seconds");
  }

  @Test
  void map_vllmOldNamesAreReadWhenTheNewAreAbsent() {
    ServerScrape s = map(
        "vllm:gpu_cache_usage_perc{model_name=\"m\"} 0.2\n"
            + "vllm:gpu_prefix_cache_hits_total{model_name=\"m\"} 3\n"
            + "vllm:gpu_prefix_cache_queries_total{model_name=\"m\"} 9\n"
            + "vllm:time_per_output_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 5\n"
            + "vllm:time_in_queue_requests_bucket{le=\"+Inf\",model_name=\"m\"} 5\n");
    assertThat(value(s, Concept.KV_CACHE)).isEqualTo(0.2);
    assertThat(value(s, Concept.PREFIX_HITS)).isEqualTo(3);
    assertThat(value(s, Concept.PREFIX_QUERIES)).isEqualTo(9);
    assertThat(s.get(Concept.ITL).source().name()).isEqualTo("vllm:time_per_output_token_seconds");
    assertThat(s.get(Concept.QUEUE).source().name()).isEqualTo("vllm:time_in_queue_requests");
  }

  @Test
  void map_createdSeriesAreIgnored() {
    ServerScrape s = map(
        "vllm:prompt_tokens_total{model_name=\"m\"} 5\n"
            + "vllm:prompt_tokens_created{model_name=\"m\"} 1.7e9\n"
            + "vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 1\n"
            + "vllm:e2e_request_latency_seconds_count{model_name=\"m\"} 1\n"
            + "vllm:e2e_request_latency_seconds_created{model_name=\"m\"} 1.7e9\n");
    assertThat(value(s, Concept.PROMPT_TOKENS)).isEqualTo(5);
    HistogramSeries h = s.get(Concept.E2E).histograms().values().iterator().next();
    assertThat(h.count()).isEqualTo(1);
  }

  @Test
  void map_countersWithAndWithoutTotalSuffix() {
    assertThat(value(map("tgi_request_success 12\n"), Concept.REQUESTS)).isEqualTo(12);
    assertThat(value(map("tgi_request_success_total 12\n"), Concept.REQUESTS)).isEqualTo(12);
  }

  @Test
  void map_sglangFoldsTensorParallelRanksAndSumsDataParallelRanks() {
    ServerScrape s = map(
        "sglang:num_running_reqs{dp_rank=\"0\",model_name=\"m\",tp_rank=\"0\"} 3\n"
            + "sglang:num_running_reqs{dp_rank=\"0\",model_name=\"m\",tp_rank=\"1\"} 3\n"
            + "sglang:num_running_reqs{dp_rank=\"1\",model_name=\"m\",tp_rank=\"2\"} 5\n"
            + "sglang:num_running_reqs{dp_rank=\"1\",model_name=\"m\",tp_rank=\"3\"} 5\n");
    assertThat(value(s, Concept.RUNNING)).isEqualTo(8);
  }

  @Test
  void map_sglangGatewayPrefixIsNormalizedAndWorkersSummed() {
    ServerScrape s = map(
        "sglang_num_running_reqs{model_name=\"m\",tp_rank=\"0\",worker_addr=\"grpc://a\"} 2\n"
            + "sglang_num_running_reqs{model_name=\"m\",tp_rank=\"1\",worker_addr=\"grpc://a\"} 2\n"
            + "sglang_num_running_reqs{model_name=\"m\",tp_rank=\"0\",worker_addr=\"grpc://b\"} 1\n");
    assertThat(s.engine()).isEqualTo(Engine.SGLANG);
    assertThat(value(s, Concept.RUNNING)).isEqualTo(3);
    assertThat(s.get(Concept.RUNNING).source().name()).isEqualTo("sglang:num_running_reqs");
  }

  @Test
  void map_sglangOldNameLabelNamesTheModel() {
    ServerScrape s = map("sglang:prompt_tokens_total{name=\"/models/llama\"} 5\n");
    assertThat(s.models()).containsExactly("/models/llama");
  }

  @Test
  void map_histogramBucketsAreSortedAndBadBoundsSkipped() {
    ServerScrape s = map(
        "vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 4\n"
            + "vllm:e2e_request_latency_seconds_bucket{le=\"1.0\",model_name=\"m\"} 2\n"
            + "vllm:e2e_request_latency_seconds_bucket{le=\"abc\",model_name=\"m\"} 3\n"
            + "vllm:e2e_request_latency_seconds_bucket{le=\"0.5\",model_name=\"m\"} 1\n"
            + "vllm:e2e_request_latency_seconds_sum{model_name=\"m\"} 2.5\n");
    HistogramSeries h = s.get(Concept.E2E).histograms().values().iterator().next();
    assertThat(h.bounds()).containsExactly(0.5, 1.0, Double.POSITIVE_INFINITY);
    assertThat(h.cumulative()).containsExactly(1, 2, 4);
    assertThat(h.sum()).isEqualTo(2.5);
    assertThat(h.count()).isNaN();
    assertThat(h.observations()).isEqualTo(4);
  }

  @Test
  void map_vllmV1DataParallelCapture() {
    ServerScrape s = map(TextExpositions.resource("/fixtures/vllm/vllm-v1-dp2.prom"));
    assertThat(s.engine()).isEqualTo(Engine.VLLM);
    assertThat(s.models()).containsExactly("Qwen/Qwen3-8B");
    assertThat(value(s, Concept.RUNNING)).isEqualTo(25); // 14 + 11
    assertThat(value(s, Concept.REQUESTS)).isEqualTo(3664); // every finished_reason, both engines
    assertThat(s.get(Concept.TTFT).histograms()).hasSize(2);
    double observations = s.get(Concept.TTFT).histograms().values().stream()
        .mapToDouble(HistogramSeries::observations).sum();
    assertThat(observations).isEqualTo(3664); // 1873 + 1791
    // _created gauges sit beside every counter: never read as values.
    assertThat(s.get(Concept.PROMPT_TOKENS).series()).hasSize(2);
  }

  @Test
  void map_openMetricsFamiliesAreMatchedByTheirBaseName() {
    ServerScrape s = map(
        "# TYPE vllm:prompt_tokens counter\n"
            + "vllm:prompt_tokens_total{model_name=\"m\"} 5.0\n"
            + "vllm:prompt_tokens_created{model_name=\"m\"} 1.7e9\n"
            + "# TYPE vllm:e2e_request_latency_seconds histogram\n"
            + "vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 2.0\n"
            + "vllm:e2e_request_latency_seconds_count{model_name=\"m\"} 2.0\n"
            + "vllm:e2e_request_latency_seconds_sum{model_name=\"m\"} 3.0\n"
            + "# TYPE vllm:request_prompt_tokens histogram\n"
            + "vllm:request_prompt_tokens_bucket{le=\"+Inf\",model_name=\"m\"} 2.0\n"
            + "# EOF\n");
    assertThat(value(s, Concept.PROMPT_TOKENS)).isEqualTo(5);
    assertThat(s.get(Concept.E2E).histograms().values().iterator().next().count()).isEqualTo(2);
    // Without request_success, the request counter falls back to the E2E histogram's _count.
    assertThat(value(s, Concept.REQUESTS)).isEqualTo(2);
  }
}
