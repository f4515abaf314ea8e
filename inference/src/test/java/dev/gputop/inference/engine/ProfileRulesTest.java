package dev.gputop.inference.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.inference.testing.TextExpositions;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each rule of the profile format on an exposition written for it (test resources under
 * engines/rules, see the README there), through a test profile on {@code rt:} names.
 */
class ProfileRulesTest {

  private static final EngineProfile RULES =
      new ProfileLoader().parse(TextExpositions.resource("/engines/rules/rules.yaml"), "rules.yaml");
  private final EngineMapper mapper = new EngineMapper(EngineProfiles.of(List.of(RULES)));

  private ServerScrape map(String file) {
    return mapper.map(TextExpositions.parse(TextExpositions.resource("/engines/rules/" + file)));
  }

  private static double sum(ServerScrape s, Concept c) {
    return s.get(c).series().values().stream().mapToDouble(Series::value).sum();
  }

  @Test
  void totalRow_isReadAloneWhereItExistsAndItsPartsAreSummedWhereItDoesNot() {
    ServerScrape s = map("total-row.prom");
    // dp_rank 0: the total row (10), never 10 + 4 + 6; dp_rank 1 has no total row: 2 + 1.
    assertThat(sum(s, Concept.RUNNING)).isEqualTo(13);
    assertThat(s.get(Concept.RUNNING).series()).hasSize(3);
    // A series without the label is a total row too (an empty label value is no label).
    assertThat(sum(s, Concept.WAITING)).isEqualTo(7);
    assertThat(s.get(Concept.WAITING).source().name()).isEqualTo("rt:num_queue_reqs");
    // The rule names its metrics: priority on a counter is the request's own and splits.
    assertThat(sum(s, Concept.REQUESTS)).isEqualTo(42);
  }

  @Test
  void totalRow_partsOfAnotherMetricAreReadOnlyWithoutTheTotal() {
    ServerScrape s =
        mapper.map(
            TextExpositions.parse(
                "rt:num_queue_reqs_by_reason{model_name=\"m\",reason=\"capacity\"} 5\n"
                    + "rt:num_queue_reqs_by_reason{model_name=\"m\",reason=\"deferred\"} 2\n"));
    assertThat(sum(s, Concept.WAITING)).isEqualTo(7);
    assertThat(s.get(Concept.WAITING).source().name()).isEqualTo("rt:num_queue_reqs_by_reason");
  }

  @Test
  void splitLabels_everyPartIsSummed() {
    ServerScrape s = map("split-sum.prom");
    assertThat(sum(s, Concept.GENERATION_TOKENS)).isEqualTo(1000);
    assertThat(sum(s, Concept.PREFIX_HITS)).isEqualTo(50);
    assertThat(s.get(Concept.TTFT).histograms()).hasSize(2);
    double observations =
        s.get(Concept.TTFT).histograms().values().stream().mapToDouble(HistogramSeries::observations).sum();
    assertThat(observations).isEqualTo(7);
  }

  @Test
  void rankLabels_oneRankIsReadPerBatch() {
    ServerScrape s = map("one-rank.prom");
    assertThat(sum(s, Concept.RUNNING)).isEqualTo(8); // 3 (dp 0) + 5 (dp 1), not 16
    // The lowest rank, whatever the order of the lines.
    assertThat(sum(s, Concept.KV_CACHE)).isEqualTo(0.25);
    assertThat(s.get(Concept.RUNNING).series().keySet())
        .allSatisfy(k -> assertThat(k.labels().get("tp_rank")).isNull());
  }

  @Test
  void filter_readsOnlyTheSeriesWithTheLabelValue() {
    ServerScrape s = map("filter.prom");
    assertThat(s.get(Concept.PREFILL_BATCH).histograms()).hasSize(1);
    HistogramSeries h = s.get(Concept.PREFILL_BATCH).histograms().values().iterator().next();
    assertThat(h.count()).isEqualTo(4);
    assertThat(h.sum()).isEqualTo(0.3);
  }

  @Test
  void filter_thatMatchesNothingLeavesTheConceptAbsent() {
    ServerScrape s =
        mapper.map(
            TextExpositions.parse(
                "# TYPE rt:batch_inference_duration histogram\n"
                    + "rt:batch_inference_duration_bucket{le=\"+Inf\",method=\"decode\"} 100\n"
                    + "rt:batch_inference_duration_count{method=\"decode\"} 100\n"));
    assertThat(s.engine().id()).isEqualTo("rulestest");
    assertThat(s.get(Concept.PREFILL_BATCH)).isNull();
  }

  @Test
  void scale_convertsCountersAndHistogramBoundsAndSumButNotCounts() {
    ServerScrape s = map("unit-scale.prom");
    assertThat(sum(s, Concept.PREEMPTIONS)).isEqualTo(2.5); // 2,500,000 µs
    HistogramSeries h = s.get(Concept.QUEUE).histograms().values().iterator().next();
    assertThat(h.bounds()).containsExactly(0.1, 0.5, Double.POSITIVE_INFINITY);
    assertThat(h.cumulative()).containsExactly(3, 5, 6);
    assertThat(h.sum()).isEqualTo(1.2);
    assertThat(h.count()).isEqualTo(6);
  }

  @Test
  void sumOfSources_readsEveryPartAsItsOwnSeries() {
    ServerScrape s = map("sum-of-sources.prom");
    assertThat(sum(s, Concept.PROMPT_TOKENS)).isEqualTo(500);
    assertThat(s.get(Concept.PROMPT_TOKENS).series().keySet())
        .extracting(SeriesKey::source)
        .containsExactlyInAnyOrder("rt:prompt_tokens", "rt:prompt_tokens_cached");
    assertThat(s.get(Concept.PROMPT_TOKENS).source().form()).isEqualTo(Source.Form.SUM);
  }

  @Test
  void sumOfSources_isPresentWithOnePart() {
    ServerScrape s = mapper.map(TextExpositions.parse("rt:prompt_tokens_total 400\n"));
    assertThat(sum(s, Concept.PROMPT_TOKENS)).isEqualTo(400);
    assertThat(s.get(Concept.PREFIX_HITS)).isNull();
  }

  @Test
  void prefixAlias_isRewrittenToTheCanonicalPrefix() {
    ServerScrape s = mapper.map(TextExpositions.parse("rt_alias_num_running_reqs{model_name=\"m\"} 4\n"));
    assertThat(sum(s, Concept.RUNNING)).isEqualTo(4);
    assertThat(s.models()).containsExactly("m");
  }

  @Test
  void trace_saysWhichRulePickedOrSkippedEachSeries() {
    MappingTrace trace = new MappingTrace();
    mapper.map(
        TextExpositions.parse(TextExpositions.resource("/engines/rules/total-row.prom")), trace);
    MappingTrace.ConceptDecision running =
        trace.concepts().stream().filter(c -> c.concept() == Concept.RUNNING).findFirst().orElseThrow();
    MappingTrace.SourceDecision src = running.sources().get(0);
    assertThat(src.status()).isEqualTo(MappingTrace.SourceStatus.READ);
    assertThat(src.series()).hasSize(5);
    assertThat(src.series().get(0).read()).isTrue();
    assertThat(src.series().get(0).rule()).contains("total row priority=\"\"");
    assertThat(src.series().get(1).read()).isFalse();
    assertThat(src.series().get(1).rule()).contains("part of the total row");
    assertThat(src.series().get(3).read()).isTrue();
    MappingTrace.ConceptDecision waiting =
        trace.concepts().stream().filter(c -> c.concept() == Concept.WAITING).findFirst().orElseThrow();
    assertThat(waiting.sources().get(1).status()).isEqualTo(MappingTrace.SourceStatus.NOT_NEEDED);
    MappingTrace.ConceptDecision ttft =
        trace.concepts().stream().filter(c -> c.concept() == Concept.TTFT).findFirst().orElseThrow();
    assertThat(ttft.sources().get(0).status()).isEqualTo(MappingTrace.SourceStatus.NO_SAMPLES);
  }
}
