package dev.gputop.inference.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.Ci;
import dev.gputop.testing.SharedFixtures;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.stats.WindowStatistics;
import dev.gputop.inference.testing.TextExpositions;
import dev.gputop.inference.window.ServerWindow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every capture in ${gputop.shared.dir}/fixtures (see its SOURCES.md): the engine recognized and
 * what each maps to. Skips when the shared directory is absent.
 */
class SharedFixturesTest {

  /** The engine each capture must be recognized as. A new capture without a row fails the test. */
  private static final Map<String, Engine> EXPECTED = Map.ofEntries(
      Map.entry("vllm/datadog-vllm-metrics-mixed.prom", Engine.VLLM),
      Map.entry("vllm/datadog-ray-vllm-v0-partial.prom", Engine.VLLM),
      Map.entry("vllm/prodstack617-vllm0.10.0-v1-created-excerpt.prom", Engine.VLLM),
      Map.entry("vllm/prodstack318-v1-early-excerpt.prom", Engine.VLLM),
      Map.entry("vllm/issue8819-v0-ttft-excerpt.prom", Engine.VLLM),
      Map.entry("vllm/functionary263-v0-help-type-only-excerpt.prom", Engine.VLLM),
      // vLLM 0.2.x (aioprometheus) had no vllm: names: nothing to recognize.
      Map.entry("vllm/pr1890-v0.2.x-aioprometheus-excerpt.prom", Engine.UNKNOWN),
      Map.entry("sglang/datadog-sglang-0.5.10.post1.prom", Engine.SGLANG),
      Map.entry("sglang/issue13485-v0.5.1-excerpt.prom", Engine.SGLANG),
      Map.entry("sglang/pr4444-v0.4.4-excerpt.prom", Engine.SGLANG),
      Map.entry("sglang/pr1853-v0.3.5-name-label-excerpt.prom", Engine.SGLANG),
      Map.entry("sglang/pr1461-wip-never-released-excerpt.prom", Engine.SGLANG),
      Map.entry("sglang/smg813-gateway-underscore-excerpt.prom", Engine.SGLANG),
      Map.entry("tgi/datadog-hugging-face-tgi-payload-partial.prom", Engine.TGI),
      Map.entry("llamacpp/pr13196-comment-2025-06-excerpt.prom", Engine.LLAMACPP),
      Map.entry("llamacpp/ik-llama-pr695-fork-excerpt.prom", Engine.LLAMACPP),
      Map.entry("llamacpp/b4748-after-start.prom", Engine.LLAMACPP),
      Map.entry("llamacpp/b4748-after-requests.prom", Engine.LLAMACPP),
      Map.entry("llamacpp/b4748-inflight-2.prom", Engine.LLAMACPP),
      Map.entry("llamacpp/b4748-inflight-2-plus-1-deferred.prom", Engine.LLAMACPP),
      Map.entry("llamacpp/b4748-after-inflight.prom", Engine.LLAMACPP),
      Map.entry("llamacpp/b4748-after-restart.prom", Engine.LLAMACPP),
      Map.entry("llamacpp/b4748-after-restart-2req.prom", Engine.LLAMACPP),
      // Only TGI-style names in this excerpt of IBM's vLLM fork; see recognize_vllmWins… for
      // the whole exposition, where vllm: names decide.
      Map.entry("other/ibm-vllm-tgis-adapter-tgi-names-excerpt.prom", Engine.TGI),
      // The 2026 captures (SOURCES.md, "Which engine each new capture is"). A Dynamo worker is its
      // engine's own metrics plus dynamo_component_*: it is that engine, the TensorRT-LLM worker
      // included (Dynamo prefixes its names trtllm_).
      Map.entry("dynamo/dynamo-docs-2026-01-frontend-qwen3-0.6b.prom", Engine.of("dynamo")),
      Map.entry("dynamo/kthena913-2026-04-mocker-frontend-excerpt.prom", Engine.of("dynamo")),
      Map.entry("dynamo/dynamo-docs-2026-01-sglang-worker-qwen3-0.6b.prom", Engine.SGLANG),
      Map.entry("dynamo/dynamo-docs-2026-01-vllm-worker-lmcache-qwen3-0.6b.prom", Engine.VLLM),
      Map.entry("dynamo/dynamo-docs-2026-01-trtllm-worker-qwen3-0.6b.prom", Engine.of("trtllm")),
      Map.entry("tei/opea-genaicomps-docs-excerpt.prom", Engine.of("tei")),
      Map.entry("triton/datadog-triton-2.38.0-nonllm-models.prom", Engine.of("triton")),
      Map.entry("triton/tllmbackend667-2024-12-ensemble-excerpt.prom", Engine.of("triton")),
      Map.entry("triton/trtllmbackend-readme-23.11-nv_trt_llm-docs-sample.prom", Engine.of("triton")),
      // No prefix through 1.1: recognized by its family names.
      Map.entry("trtllm/aibrix2004-1.1-prometheus-undefined-labels-excerpt.prom", Engine.of("trtllm")),
      Map.entry("trtllm/pr5785-2025-07-dev-no-prefix-excerpt.prom", Engine.of("trtllm")));

  private Path root;
  private final EngineMapper mapper = new EngineMapper();

  @BeforeEach
  void locate() {
    // skipped with the reason printed when ../shared is absent, a failure in CI
    root = SharedFixtures.dir().resolve("fixtures");
    Ci.require(Files.isDirectory(root), "no shared fixtures at " + root);
  }

  private ServerScrape scrape(String file) {
    return mapper.map(TextExpositions.file(root.resolve(file)));
  }

  private static double sum(ServerScrape s, Concept c) {
    return s.get(c).series().values().stream().mapToDouble(Series::value).sum();
  }

  @Test
  void map_everyCaptureIsRecognizedAsItsEngine() throws IOException {
    List<String> files;
    try (Stream<Path> walk = Files.walk(root)) {
      files = walk.filter(p -> p.toString().endsWith(".prom"))
          .map(p -> root.relativize(p).toString().replace('\\', '/'))
          .sorted()
          .collect(Collectors.toList());
    }
    Map<String, Engine> actual = new TreeMap<>();
    for (String f : files) {
      actual.put(f, scrape(f).engine());
    }
    assertThat(actual).isEqualTo(new TreeMap<>(EXPECTED));
  }

  @Test
  void map_datadogVllmMixedPrefersCurrentNames() {
    ServerScrape s = scrape("vllm/datadog-vllm-metrics-mixed.prom");
    assertThat(s.get(Concept.KV_CACHE).source().name()).isEqualTo("vllm:kv_cache_usage_perc");
    assertThat(s.get(Concept.ITL).source().name()).isEqualTo("vllm:inter_token_latency_seconds");
    assertThat(s.get(Concept.PREFIX_HITS).source().name()).isEqualTo("vllm:prefix_cache_hits");
    assertThat(sum(s, Concept.PREFIX_HITS)).isEqualTo(64);
    assertThat(sum(s, Concept.PREFIX_QUERIES)).isEqualTo(117);
    assertThat(sum(s, Concept.REQUESTS)).isEqualTo(1);
    assertThat(s.get(Concept.QUEUE).source().name()).isEqualTo("vllm:request_queue_time_seconds");
    assertThat(s.models()).containsExactly("facebook/opt-125m");
  }

  @Test
  void map_rayVllmIsReadThroughItsPrefix() {
    ServerScrape s = scrape("vllm/datadog-ray-vllm-v0-partial.prom");
    assertThat(s.get(Concept.RUNNING)).isNotNull();
    assertThat(s.get(Concept.KV_CACHE).source().name()).isEqualTo("vllm:gpu_cache_usage_perc");
    assertThat(s.get(Concept.ITL).source().name()).isEqualTo("vllm:time_per_output_token_seconds");
    // The hit-rate gauge is −1 (prefix caching off): N/A, not −1 and not 0.
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 8);
    w.add(0, 0, s);
    assertThat(WindowStatistics.compute(w, null).prefixHitRatio()).isNull();
  }

  @Test
  void map_vllm010CreatedGaugesAreNotCounters() {
    ServerScrape s = scrape("vllm/prodstack617-vllm0.10.0-v1-created-excerpt.prom");
    assertThat(sum(s, Concept.PREFIX_QUERIES)).isEqualTo(32);
    assertThat(sum(s, Concept.PREFIX_HITS)).isZero();
    assertThat(s.get(Concept.KV_CACHE).source().name()).isEqualTo("vllm:kv_cache_usage_perc");
  }

  @Test
  void map_familiesWithoutSamplesAreNotApplicable() {
    ServerScrape s = scrape("vllm/functionary263-v0-help-type-only-excerpt.prom");
    assertThat(s.concepts()).isEmpty();
  }

  @Test
  void map_sglangDatadogCapture() {
    ServerScrape s = scrape("sglang/datadog-sglang-0.5.10.post1.prom");
    assertThat(sum(s, Concept.RUNNING)).isZero();
    assertThat(sum(s, Concept.KV_CACHE)).isEqualTo(0.25);
    assertThat(sum(s, Concept.PREFIX_HITS)).isEqualTo(1);
    assertThat(sum(s, Concept.PROMPT_TOKENS)).isEqualTo(5);
    assertThat(s.get(Concept.TTFT).histograms()).hasSize(1);
  }

  @Test
  void map_sglangNeverReleasedWipNamesAreNotRead() {
    // PR #1461 (closed): num_requests_running never shipped and cache_hit_rate was in percent.
    ServerScrape s = scrape("sglang/pr1461-wip-never-released-excerpt.prom");
    assertThat(s.get(Concept.RUNNING)).isNull();
    assertThat(s.get(Concept.WAITING)).isNull();
    assertThat(s.get(Concept.PREFIX_HITS)).isNull();
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 8);
    w.add(0, 0, s);
    w.add(1, 0, s);
    ServerStats stats = WindowStatistics.compute(w, null);
    assertThat(stats.prefixHitRatio()).isNull();
    assertThat(stats.running()).isNull();
  }

  @Test
  void map_sglangGatewayExcerptIsSglangWithNothingMapped() {
    ServerScrape s = scrape("sglang/smg813-gateway-underscore-excerpt.prom");
    assertThat(s.engine()).isEqualTo(Engine.SGLANG);
    assertThat(s.models()).isEmpty();
    assertThat(s.concepts()).isEmpty();
  }

  @Test
  void map_sglangV035NameLabel() {
    ServerScrape s = scrape("sglang/pr1853-v0.3.5-name-label-excerpt.prom");
    assertThat(sum(s, Concept.PROMPT_TOKENS)).isEqualTo(230794);
    assertThat(s.models()).hasSize(1);
  }

  @Test
  void map_tgiCapture() {
    ServerScrape s = scrape("tgi/datadog-hugging-face-tgi-payload-partial.prom");
    assertThat(s.get(Concept.RUNNING)).isNotNull();
    assertThat(s.get(Concept.WAITING)).isNotNull();
    // The partial capture ends before tgi_request_duration; counters have no _total.
    assertThat(sum(s, Concept.REQUESTS)).isEqualTo(109);
    assertThat(sum(s, Concept.PROMPT_TOKENS)).isEqualTo(662);
    assertThat(s.get(Concept.TTFT)).isNull();
    assertThat(s.get(Concept.KV_CACHE)).isNull();
  }

  @Test
  void map_ibmForkTgiNamesWithBrokenLabelsStillMapGauges() {
    ServerScrape s = scrape("other/ibm-vllm-tgis-adapter-tgi-names-excerpt.prom");
    assertThat(sum(s, Concept.RUNNING)).isZero();
    assertThat(s.get(Concept.E2E)).isNull();
    // method="{'method': 'prefill'}" is not TGI's method="prefill": no approximate TTFT from it.
    assertThat(s.get(Concept.PREFILL_BATCH)).isNull();
  }

  @Test
  void map_llamaCppKvCacheOnlyInOldBuilds() {
    assertThat(sum(scrape("llamacpp/b4748-after-requests.prom"), Concept.KV_CACHE)).isEqualTo(0.199219);
    assertThat(scrape("llamacpp/pr13196-comment-2025-06-excerpt.prom").get(Concept.KV_CACHE)).isNull();
    ServerScrape q = scrape("llamacpp/b4748-inflight-2-plus-1-deferred.prom");
    assertThat(sum(q, Concept.RUNNING)).isEqualTo(2);
    assertThat(sum(q, Concept.WAITING)).isEqualTo(1);
  }

  @Test
  void add_llamaCppRealRestartStartsTheWindowOver() {
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 8);
    long s = 1_000_000_000L;
    w.add(0, 0, scrape("llamacpp/b4748-after-requests.prom"));
    w.add(3 * s, 0, scrape("llamacpp/b4748-after-inflight.prom"));
    assertThat(WindowStatistics.compute(w, null).generationTokensPerSecond()).isPositive();
    assertThat(w.add(6 * s, 0, scrape("llamacpp/b4748-after-restart.prom"))).contains("went backwards");
    w.add(9 * s, 0, scrape("llamacpp/b4748-after-restart-2req.prom"));
    ServerStats stats = WindowStatistics.compute(w, null);
    assertThat(stats.generationTokensPerSecond()).isPositive();
    assertThat(stats.promptTokensPerSecond()).isPositive();
  }

  private static double histogramCount(ServerScrape s, Concept c) {
    return s.get(c).histograms().values().stream().mapToDouble(HistogramSeries::observations).sum();
  }

  private static double histogramSum(ServerScrape s, Concept c) {
    return s.get(c).histograms().values().stream().mapToDouble(HistogramSeries::sum).sum();
  }

  /** The request length histograms in the real captures: read as they are, per model. */
  @Test
  void map_requestLengthHistogramsOfRealCaptures() {
    ServerScrape vllm = scrape("vllm/datadog-vllm-metrics-mixed.prom");
    assertThat(vllm.get(Concept.PROMPT_LENGTH).source().name()).isEqualTo("vllm:request_prompt_tokens");
    assertThat(histogramCount(vllm, Concept.PROMPT_LENGTH)).isEqualTo(1);
    assertThat(histogramSum(vllm, Concept.PROMPT_LENGTH)).isEqualTo(5);
    assertThat(histogramSum(vllm, Concept.GENERATION_LENGTH)).isEqualTo(7);
    // vLLM's 1-2-5 layout up to max_model_len, per model_name (and engine).
    assertThat(vllm.get(Concept.PROMPT_LENGTH).histograms().values()).singleElement()
        .satisfies(h -> assertThat(h.bounds()).containsExactly(
            1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, Double.POSITIVE_INFINITY));
    ServerScrape worker = scrape("dynamo/dynamo-docs-2026-01-vllm-worker-lmcache-qwen3-0.6b.prom");
    assertThat(histogramCount(worker, Concept.PROMPT_LENGTH)).isEqualTo(2);
    assertThat(histogramSum(worker, Concept.PROMPT_LENGTH)).isEqualTo(66);
    assertThat(histogramCount(worker, Concept.GENERATION_LENGTH)).isEqualTo(2);

    // SGLang with --collect-tokens-histogram (Datadog's capture, buckets pruned).
    ServerScrape sglang = scrape("sglang/datadog-sglang-0.5.10.post1.prom");
    assertThat(histogramSum(sglang, Concept.PROMPT_LENGTH)).isEqualTo(5);
    assertThat(histogramSum(sglang, Concept.GENERATION_LENGTH)).isEqualTo(32);
    // The Dynamo SGLang worker runs without it: N/A.
    assertThat(scrape("dynamo/dynamo-docs-2026-01-sglang-worker-qwen3-0.6b.prom").get(Concept.PROMPT_LENGTH)).isNull();

    // TGI: the same histograms whose _sum is the token rate; 100 linear buckets, no labels.
    ServerScrape tgi = scrape("tgi/datadog-hugging-face-tgi-payload-partial.prom");
    assertThat(histogramCount(tgi, Concept.PROMPT_LENGTH)).isEqualTo(109);
    assertThat(histogramSum(tgi, Concept.PROMPT_LENGTH)).isEqualTo(662);
    assertThat(tgi.get(Concept.PROMPT_LENGTH).histograms().values()).singleElement()
        .satisfies(h -> assertThat(h.bounds()).hasSize(101));

    // Dynamo's frontend: input and output sequence lengths per model.
    ServerScrape dynamo = scrape("dynamo/dynamo-docs-2026-01-frontend-qwen3-0.6b.prom");
    assertThat(histogramSum(dynamo, Concept.PROMPT_LENGTH)).isEqualTo(33);
    assertThat(histogramSum(dynamo, Concept.GENERATION_LENGTH)).isEqualTo(300);

    // TensorRT-LLM's trtllm-serve has no length histograms.
    assertThat(scrape("dynamo/dynamo-docs-2026-01-trtllm-worker-qwen3-0.6b.prom").get(Concept.PROMPT_LENGTH)).isNull();
  }

  @Test
  void map_dynamoFrontendCapture() {
    ServerScrape s = scrape("dynamo/dynamo-docs-2026-01-frontend-qwen3-0.6b.prom");
    assertThat(s.models()).containsExactly("qwen/qwen3-0.6b");
    assertThat(sum(s, Concept.REQUESTS)).isEqualTo(1);
    assertThat(sum(s, Concept.PROMPT_TOKENS)).isEqualTo(33);
    assertThat(sum(s, Concept.GENERATION_TOKENS)).isEqualTo(300);
    assertThat(histogramCount(s, Concept.TTFT)).isEqualTo(1);
    assertThat(histogramSum(s, Concept.TTFT)).isEqualTo(1.5625701570000001);
    assertThat(histogramCount(s, Concept.ITL)).isEqualTo(299);
    assertThat(histogramCount(s, Concept.E2E)).isEqualTo(1);
    // inflight and queued mix states: running and waiting are N/A, not these gauges.
    assertThat(s.get(Concept.RUNNING)).isNull();
    assertThat(s.get(Concept.WAITING)).isNull();
    assertThat(s.get(Concept.KV_CACHE)).isNull();
    assertThat(s.get(Concept.QUEUE)).isNull();
  }

  @Test
  void map_dynamoMockerExcerptIsDynamoWithNothingMapped() {
    ServerScrape s = scrape("dynamo/kthena913-2026-04-mocker-frontend-excerpt.prom");
    assertThat(s.concepts()).isEmpty();
  }

  @Test
  void map_dynamoTrtllmWorkerIsTensorRtLlmThroughItsPrefixedNames() {
    ServerScrape s = scrape("dynamo/dynamo-docs-2026-01-trtllm-worker-qwen3-0.6b.prom");
    assertThat(s.models()).containsExactly("Qwen/Qwen3-0.6B");
    assertThat(sum(s, Concept.REQUESTS)).isEqualTo(2);
    assertThat(histogramCount(s, Concept.TTFT)).isEqualTo(2);
    assertThat(histogramSum(s, Concept.TTFT)).isEqualTo(0.06795299984514713);
    // TensorRT-LLM's time per output token is per request: TPOT, not ITL.
    assertThat(s.get(Concept.ITL)).isNull();
    assertThat(histogramCount(s, Concept.TPOT)).isEqualTo(2);
    assertThat(histogramSum(s, Concept.E2E)).isEqualTo(1.7300310004502535);
    assertThat(histogramSum(s, Concept.QUEUE)).isEqualTo(0.01181500032544136);
    // The Dynamo worker's own kvstats gauges are not the engine's KV cache.
    assertThat(s.get(Concept.KV_CACHE)).isNull();
  }

  @Test
  void map_dynamoVllmWorkerReadsPrefillAndDecode() {
    ServerScrape s = scrape("dynamo/dynamo-docs-2026-01-vllm-worker-lmcache-qwen3-0.6b.prom");
    assertThat(s.get(Concept.PREFILL).source().name()).isEqualTo("vllm:request_prefill_time_seconds");
    assertThat(s.get(Concept.DECODE).source().name()).isEqualTo("vllm:request_decode_time_seconds");
    assertThat(s.get(Concept.WAITING).source().name()).isEqualTo("vllm:num_requests_waiting");
  }

  @Test
  void map_trtllmNoPrefixCapturesReadTheirHistograms() {
    ServerScrape a = scrape("trtllm/aibrix2004-1.1-prometheus-undefined-labels-excerpt.prom");
    // model_name="undefined" names no model.
    assertThat(a.models()).isEmpty();
    assertThat(histogramSum(a, Concept.E2E)).isEqualTo(3.4878239994868636);
    ServerScrape b = scrape("trtllm/pr5785-2025-07-dev-no-prefix-excerpt.prom");
    assertThat(b.models()).isEmpty();
  }

  @Test
  void map_tritonCaptures() {
    // Non-LLM models only: recognized, nothing of TensorRT-LLM's to read.
    assertThat(scrape("triton/datadog-triton-2.38.0-nonllm-models.prom").concepts()).isEmpty();
    ServerScrape readme = scrape("triton/trtllmbackend-readme-23.11-nv_trt_llm-docs-sample.prom");
    assertThat(sum(readme, Concept.RUNNING)).isZero(); // request_type="active" 0
    // The 23.11 backend has no request_type="waiting" and no kv_cache_block_type="fraction".
    assertThat(readme.get(Concept.WAITING)).isNull();
    assertThat(readme.get(Concept.KV_CACHE)).isNull();
  }

  @Test
  void map_teiExcerpt() {
    ServerScrape s = scrape("tei/opea-genaicomps-docs-excerpt.prom");
    assertThat(sum(s, Concept.REQUESTS)).isEqualTo(2);
    // An embedding server: no token rates, no KV cache, no TTFT.
    assertThat(s.get(Concept.GENERATION_TOKENS)).isNull();
    assertThat(s.get(Concept.KV_CACHE)).isNull();
    assertThat(s.get(Concept.TTFT)).isNull();
    // te_queue_size counts queued inputs, not requests.
    assertThat(s.get(Concept.WAITING)).isNull();
  }
}
