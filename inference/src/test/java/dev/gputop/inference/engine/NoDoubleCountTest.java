package dev.gputop.inference.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.inference.testing.TextExpositions;
import org.junit.jupiter.api.Test;

/**
 * A total is never added to its parts, and a label that only splits is summed: one test per case
 * the engines' definitions have (docs/engines/*.md, "Totals beside their parts"), each on an
 * exposition written from that definition (src/test/resources/engines).
 */
class NoDoubleCountTest {

  private final EngineMapper mapper = new EngineMapper();

  private ServerScrape scrape(String file) {
    return mapper.map(TextExpositions.parse(TextExpositions.resource("/engines/" + file)));
  }

  private static double sum(ServerScrape s, Concept c) {
    assertThat(s.get(c)).as(c + " mapped").isNotNull();
    return s.get(c).series().values().stream().mapToDouble(Series::value).sum();
  }

  private static double histogramCount(ServerScrape s, Concept c) {
    assertThat(s.get(c)).as(c + " mapped").isNotNull();
    return s.get(c).histograms().values().stream().mapToDouble(HistogramSeries::observations).sum();
  }

  @Test
  void vllmUnderRay_gaugeCopiesOfCountersAreNotReadAgain() {
    // Ray writes each counter twice: ray_vllm_x_total (counter) and ray_vllm_x (gauge, the same
    // value). Read once, the totals are the direct exposition's.
    ServerScrape ray = scrape("vllm/v2026-ray-t1.prom");
    ServerScrape direct = scrape("vllm/v2026-dp2-t1.prom");
    assertThat(ray.engine()).isEqualTo(Engine.VLLM);
    for (Concept c : new Concept[] {Concept.REQUESTS, Concept.PROMPT_TOKENS, Concept.GENERATION_TOKENS,
        Concept.PREFIX_HITS, Concept.PREFIX_QUERIES, Concept.PREEMPTIONS, Concept.FAILED_REQUESTS,
        Concept.ABORTED_REQUESTS, Concept.SPEC_DRAFT_TOKENS, Concept.RUNNING, Concept.WAITING}) {
      assertThat(sum(ray, c)).as(c.key()).isEqualTo(sum(direct, c));
    }
    assertThat(ray.get(Concept.REQUESTS).series()).hasSize(direct.get(Concept.REQUESTS).series().size());
    assertThat(histogramCount(ray, Concept.TTFT)).isEqualTo(histogramCount(direct, Concept.TTFT));
    assertThat(ray.drift().duplicates()).contains("ray_vllm_request_success", "ray_vllm_prompt_tokens");
  }

  @Test
  void sglang_priorityTotalRowIsNotAdded() {
    // Per TP rank: priority="" 8 (the total), priority="0" 5, priority="1" 3; two TP ranks.
    ServerScrape s = scrape("sglang/v2026-priority-tp2-t1.prom");
    assertThat(sum(s, Concept.RUNNING)).isEqualTo(8);
    assertThat(sum(s, Concept.WAITING)).isEqualTo(5);
    assertThat(s.get(Concept.RUNNING).series()).hasSize(1);
  }

  @Test
  void sglang_byPriorityFamiliesAreNotAddedToTheirTotals() {
    // 2026 (016d8605 on): num_running_reqs holds the total 8 alone, num_running_reqs_by_priority
    // HIGH 5 + LOW 3 + UNKNOWN 0 beside it; the same per TP rank.
    ServerScrape s = scrape("sglang/v2026-by-priority-tp2-t1.prom");
    assertThat(sum(s, Concept.RUNNING)).isEqualTo(8);
    assertThat(sum(s, Concept.WAITING)).isEqualTo(5);
    assertThat(s.get(Concept.RUNNING).source().name()).isEqualTo("sglang:num_running_reqs");
    // Neither family is drift; forward_execution_seconds_total (the rename) is known, not read.
    assertThat(s.drift().unread()).isEmpty();
  }

  @Test
  void sglang_priorityLabelOnTokenizerSeriesIsASplit() {
    // num_requests by (is_streaming, priority): 3+6, 3+4, 3+6, 3+4; no total row among them.
    ServerScrape s = scrape("sglang/v2026-priority-tp2-t1.prom");
    assertThat(sum(s, Concept.REQUESTS)).isEqualTo(32);
    assertThat(s.get(Concept.REQUESTS).series()).hasSize(4);
  }

  @Test
  void sglang_isStreamingIsSummed() {
    // TTFT: 7 observations before t0 and 20 in the window, dealt over four (is_streaming,
    // priority) series.
    ServerScrape s = scrape("sglang/v2026-priority-tp2-t1.prom");
    assertThat(histogramCount(s, Concept.TTFT)).isEqualTo(27);
    assertThat(sum(s, Concept.GENERATION_TOKENS)).isEqualTo(4 * 800 + 4000);
  }

  @Test
  void sglang_cacheSourcePartsAndTotalFallbackAreSummedOnce() {
    // Streamed requests wrote device 1300 + host 320; the others the fallback total 500 + 60.
    ServerScrape s = scrape("sglang/v2026-priority-tp2-t1.prom");
    assertThat(sum(s, Concept.PREFIX_HITS)).isEqualTo(1300 + 320 + 500 + 60);
  }

  @Test
  void sglang_tensorParallelRanksRepeatOneBatch() {
    ServerScrape s = scrape("sglang/v0.5-tp2.prom");
    assertThat(sum(s, Concept.RUNNING)).isEqualTo(4);
    assertThat(histogramCount(s, Concept.QUEUE)).isEqualTo(30);
  }

  @Test
  void vllm_waitingByReasonIsNotAdded() {
    // num_requests_waiting: engine 0 says 4, engine 1 says 2; by reason 3 + 1 and 2 + 0 again.
    ServerScrape s = scrape("vllm/v2026-dp2-t1.prom");
    assertThat(sum(s, Concept.WAITING)).isEqualTo(6);
    assertThat(s.get(Concept.WAITING).source().name()).isEqualTo("vllm:num_requests_waiting");
  }

  @Test
  void vllm_promptTokensBySourceAndCachedAreNotAdded() {
    // prompt_tokens 15000 + 9000; by_source and prompt_tokens_cached are parts of the same.
    ServerScrape s = scrape("vllm/v2026-dp2-t1.prom");
    assertThat(sum(s, Concept.PROMPT_TOKENS)).isEqualTo(24000);
    // accepted draft tokens 950; its per-position parts 650 + 300 are not added to it.
    assertThat(sum(s, Concept.SPEC_ACCEPTED_TOKENS)).isEqualTo(950);
  }

  @Test
  void vllm_dataParallelEnginesAndFinishedReasonsAreSummed() {
    ServerScrape s = scrape("vllm/v2026-dp2-t1.prom");
    assertThat(sum(s, Concept.RUNNING)).isEqualTo(9);
    // stop 13 + 10, length 3, abort 1, error 2.
    assertThat(sum(s, Concept.REQUESTS)).isEqualTo(29);
  }

  @Test
  void llamacpp_cachedPromptTokensAreAddedBecauseTheyAreDisjoint() {
    ServerScrape s = scrape("llamacpp/v2026-t1.prom");
    assertThat(sum(s, Concept.PROMPT_TOKENS)).isEqualTo(2700 + 6500);
    assertThat(sum(s, Concept.PREFIX_HITS)).isEqualTo(6500);
    // per-position accepted tokens (1000 + 700) are parts of the accepted total (1700).
    assertThat(sum(s, Concept.SPEC_ACCEPTED_TOKENS)).isEqualTo(1700);
  }

  @Test
  void llamacpp_beforeTheCachedCounter_promptTokensAreTheOneCounter() {
    ServerScrape s = scrape("llamacpp/b5600.prom");
    assertThat(sum(s, Concept.PROMPT_TOKENS)).isEqualTo(6886);
    assertThat(s.get(Concept.PREFIX_HITS)).isNull();
  }

  @Test
  void trtllm_undefinedLabelsNameNoModel() {
    // model_name="undefined", engine_type="undefined": one server, no model, counted once.
    ServerScrape s = scrape("trtllm/v1.1-undefined-t1.prom");
    assertThat(s.engine().id()).isEqualTo("trtllm");
    assertThat(s.models()).isEmpty();
    assertThat(sum(s, Concept.REQUESTS)).isEqualTo(27);
    assertThat(histogramCount(s, Concept.TTFT)).isEqualTo(27);
  }

  @Test
  void triton_ensembleMembersAreNotAdded() {
    // ensemble, preprocessing and tensorrt_llm each count the same 27 requests; postprocessing
    // counts 650 streamed chunks. Only the TensorRT-LLM model's requests are requests.
    ServerScrape s = scrape("triton/v2.5x-trtllm-ensemble-t1.prom");
    assertThat(s.engine().id()).isEqualTo("triton");
    assertThat(sum(s, Concept.REQUESTS)).isEqualTo(27);
    assertThat(histogramCount(s, Concept.TTFT)).isEqualTo(27);
    assertThat(s.models()).containsExactly("tensorrt_llm");
  }

  @Test
  void triton_withoutTensorRtLlm_recognizedWithNothingMapped() {
    ServerScrape s = scrape("triton/v2.38-onnx.prom");
    assertThat(s.engine().id()).isEqualTo("triton");
    assertThat(s.concepts()).isEmpty();
  }

  @Test
  void lmdeploy_everyFinishedReasonAndDataParallelRankIsSummed() {
    ServerScrape s = scrape("lmdeploy/v0.16.0-dp2-t1.prom");
    assertThat(sum(s, Concept.REQUESTS)).isEqualTo(9 + 1 + 9 + 1 + 3 + 4);
    assertThat(sum(s, Concept.SPEC_ACCEPTED_TOKENS)).isEqualTo(260 + 200);
  }

  @Test
  void tei_methodAndErrorLabelsAreSummed() {
    ServerScrape s = scrape("tei/v1.9-t1.prom");
    assertThat(sum(s, Concept.REQUESTS)).isEqualTo(20 + 7);
    assertThat(sum(s, Concept.FAILED_REQUESTS)).isEqualTo(3);
    assertThat(sum(s, Concept.ABORTED_REQUESTS)).isEqualTo(1);
  }
}
