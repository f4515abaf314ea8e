package dev.gputop.inference.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The typed reading of each family: histograms, summaries, counter and gauge values. */
class ExpositionParserTypedFamiliesTest {

  private final ExpositionParser parser = new ExpositionParser(ParserLimits.defaults());

  private static final String HISTOGRAM =
      "# TYPE vllm:e2e_request_latency_seconds histogram\n"
          + "vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"0.5\",model_name=\"m\"} 1\n"
          + "vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"1.0\",model_name=\"m\"} 2\n"
          + "vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"+Inf\",model_name=\"m\"} 4\n"
          + "vllm:e2e_request_latency_seconds_count{engine=\"0\",model_name=\"m\"} 4\n"
          + "vllm:e2e_request_latency_seconds_sum{engine=\"0\",model_name=\"m\"} 3.5\n"
          + "vllm:e2e_request_latency_seconds_bucket{engine=\"1\",le=\"0.5\",model_name=\"m\"} 0\n"
          + "vllm:e2e_request_latency_seconds_bucket{engine=\"1\",le=\"1.0\",model_name=\"m\"} 1\n"
          + "vllm:e2e_request_latency_seconds_bucket{engine=\"1\",le=\"+Inf\",model_name=\"m\"} 1\n"
          + "vllm:e2e_request_latency_seconds_count{engine=\"1\",model_name=\"m\"} 1\n"
          + "vllm:e2e_request_latency_seconds_sum{engine=\"1\",model_name=\"m\"} 0.75\n"
          + "vllm:e2e_request_latency_seconds_created{engine=\"1\",model_name=\"m\"} 1.7e9\n";

  @Test
  void histogram_bucketsGroupedPerLabelSetWithSumCountAndCreated() throws Exception {
    MetricFamily f = parser.parse(HISTOGRAM).family("vllm:e2e_request_latency_seconds");
    assertThat(f.samples()).hasSize(11);
    assertThat(f.histograms()).hasSize(2);
    Histogram h0 = f.histograms().get(0);
    assertThat(h0.labels()).isEqualTo(Labels.of("engine", "0", "model_name", "m"));
    assertThat(h0.bounds()).containsExactly(0.5, 1.0, Double.POSITIVE_INFINITY);
    assertThat(h0.cumulative()).containsExactly(1, 2, 4);
    assertThat(h0.count()).isEqualTo(4);
    assertThat(h0.sum()).isEqualTo(3.5);
    assertThat(h0.created()).isNaN();
    Histogram h1 = f.histograms().get(1);
    assertThat(h1.cumulative()).containsExactly(0, 1, 1);
    assertThat(h1.sum()).isEqualTo(0.75);
    assertThat(h1.created()).isEqualTo(1.7e9);
    assertThat(f.values()).isEmpty();
    assertThat(f.summaries()).isEmpty();
  }

  @Test
  void histogram_unsortedBucketsAreSortedAndBadBoundsLeftOut() throws Exception {
    MetricFamily f =
        parser
            .parse(
                "# TYPE h histogram\n"
                    + "h_bucket{le=\"+Inf\"} 4\n"
                    + "h_bucket{le=\"1.0\"} 2\n"
                    + "h_bucket{le=\"abc\"} 3\n"
                    + "h_bucket 9\n"
                    + "h_bucket{le=\"1\"} 2\n"
                    + "h_bucket{le=\"0.5\"} 1\n")
            .family("h");
    assertThat(f.samples()).hasSize(6);
    Histogram h = f.histograms().get(0);
    // Equal bounds (1.0 and 1) stay separate, in the order written; PromQL merges them later.
    assertThat(h.bounds()).containsExactly(0.5, 1.0, 1.0, Double.POSITIVE_INFINITY);
    assertThat(h.cumulative()).containsExactly(1, 2, 2, 4);
    assertThat(h.sum()).isNaN();
    assertThat(h.count()).isNaN();
  }

  @Test
  void histogram_boundsAreSharedWithTheNextParseWhenTheLayoutIsTheSame() throws Exception {
    Histogram first = parser.parse(HISTOGRAM).families().get(0).histograms().get(0);
    Histogram second =
        parser.parse(HISTOGRAM.replace("} 4\n", "} 5\n")).families().get(0).histograms().get(0);
    assertThat(second.bounds()).isSameAs(first.bounds());
    assertThat(second.cumulative()).isNotSameAs(first.cumulative()).containsExactly(1, 2, 5);
    assertThat(first.cumulative()).containsExactly(1, 2, 4);
    Histogram changed =
        parser
            .parse(HISTOGRAM.replace("le=\"1.0\"", "le=\"2.0\""))
            .families()
            .get(0)
            .histograms()
            .get(0);
    assertThat(changed.bounds()).containsExactly(0.5, 2.0, Double.POSITIVE_INFINITY);
    assertThat(first.bounds()).containsExactly(0.5, 1.0, Double.POSITIVE_INFINITY);
  }

  @Test
  void histogram_undeclaredExcerptIsGroupedWithItsSumAndCount() throws Exception {
    Exposition e =
        parser.parse(
            "c_bucket{le=\"1\",m=\"a\"} 3\nc_bucket{le=\"+Inf\",m=\"a\"} 4\nc_sum{m=\"a\"} 5\n"
                + "c_count{m=\"a\"} 4\nc_count{m=\"b\"} 2\n");
    assertThat(e.families()).extracting(MetricFamily::name).containsExactly("c_bucket", "c_sum", "c_count");
    List<Histogram> hs = e.family("c_bucket").histograms();
    assertThat(hs).hasSize(2);
    assertThat(hs.get(0).labels()).isEqualTo(Labels.of("m", "a"));
    assertThat(hs.get(0).bounds()).containsExactly(1, Double.POSITIVE_INFINITY);
    assertThat(hs.get(0).sum()).isEqualTo(5);
    assertThat(hs.get(0).count()).isEqualTo(4);
    // A _count without buckets is kept: the reader decides.
    assertThat(hs.get(1).bounds()).isEmpty();
    assertThat(hs.get(1).count()).isEqualTo(2);
    assertThat(e.family("c_sum").histograms()).isEmpty();
  }

  @Test
  void histogram_manySeriesInOneFamilyAreGrouped() throws Exception {
    StringBuilder sb = new StringBuilder("# TYPE h histogram\n");
    for (int i = 0; i < 50; i++) {
      sb.append("h_bucket{i=\"").append(i).append("\",le=\"+Inf\"} ").append(i).append('\n');
    }
    for (int i = 49; i >= 0; i--) {
      sb.append("h_count{i=\"").append(i).append("\"} ").append(i).append('\n');
    }
    List<Histogram> hs = parser.parse(sb.toString()).family("h").histograms();
    assertThat(hs).hasSize(50);
    for (int i = 0; i < 50; i++) {
      assertThat(hs.get(i).labels().get("i")).isEqualTo(Integer.toString(i));
      assertThat(hs.get(i).count()).isEqualTo(i);
      assertThat(hs.get(i).cumulative()).containsExactly(i);
    }
  }

  @Test
  void gaugeHistogram_readsGsumAndGcount() throws Exception {
    MetricFamily f =
        parser
            .parse("# TYPE q gaugehistogram\nq_bucket{le=\"+Inf\"} 2\nq_gcount 2\nq_gsum 7\n# EOF\n")
            .family("q");
    Histogram h = f.histograms().get(0);
    assertThat(h.count()).isEqualTo(2);
    assertThat(h.sum()).isEqualTo(7);
  }

  @Test
  void summary_quantilesGroupedWithSumAndCount() throws Exception {
    MetricFamily f =
        parser
            .parse(
                "# TYPE s summary\n"
                    + "s{quantile=\"0.99\",x=\"1\"} 4\n"
                    + "s{quantile=\"0\",x=\"1\"} 0\n"
                    + "s{quantile=\"bad\",x=\"1\"} 9\n"
                    + "s_sum{x=\"1\"} 12\n"
                    + "s_count{x=\"1\"} 3423\n")
            .family("s");
    assertThat(f.summaries()).hasSize(1);
    Summary s = f.summaries().get(0);
    assertThat(s.labels()).isEqualTo(Labels.of("x", "1"));
    assertThat(s.quantiles()).containsExactly(0, 0.99);
    assertThat(s.values()).containsExactly(0, 4);
    assertThat(s.sum()).isEqualTo(12);
    assertThat(s.count()).isEqualTo(3423);
    assertThat(f.histograms()).isEmpty();
    assertThat(f.values()).isEmpty();
  }

  @Test
  void counter_valuesLeaveOutCreated() throws Exception {
    Exposition e =
        parser.parse(
            "# TYPE c counter\nc_total{a=\"1\"} 5\nc_created{a=\"1\"} 1.7e9\nc_total{a=\"2\"} 6\n"
                + "# TYPE g gauge\ng 1\n# EOF\n");
    assertThat(e.family("c").samples()).hasSize(3);
    assertThat(e.family("c").values()).extracting(Sample::value).containsExactly(5.0, 6.0);
    assertThat(e.family("g").values()).extracting(Sample::value).containsExactly(1.0);
    assertThat(e.family("g").histograms()).isEmpty();
  }

  @Test
  void typedViews_areEqualBetweenAColdAndAWarmParse() throws Exception {
    Exposition warm = parser.parse(HISTOGRAM);
    warm = parser.parse(HISTOGRAM);
    Exposition cold = new ExpositionParser(ParserLimits.defaults()).parse(HISTOGRAM);
    assertThat(warm).isEqualTo(cold);
  }
}
