package dev.gputop.inference.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExpositionParserTest {

  private final ExpositionParser parser = new ExpositionParser(ParserLimits.defaults());

  private Exposition parse(String text) throws ExpositionFormatException {
    return parser.parse(text);
  }

  private static Sample only(Exposition e, String family) {
    assertThat(e.family(family)).as(family).isNotNull();
    assertThat(e.family(family).samples()).hasSize(1);
    return e.family(family).samples().get(0);
  }

  @Test
  void parse_helpAndTypeWithEscapes() throws Exception {
    Exposition e =
        parse(
            "# HELP vllm:num_requests_running Number of requests\\nin \\\\batches\\\\.\n"
                + "# TYPE vllm:num_requests_running gauge\n"
                + "vllm:num_requests_running{model_name=\"m\",engine=\"0\"} 3.0\n");
    MetricFamily f = e.family("vllm:num_requests_running");
    assertThat(f.type()).isEqualTo(MetricType.GAUGE);
    assertThat(f.help()).isEqualTo("Number of requests\nin \\batches\\.");
    assertThat(f.unit()).isNull();
    Sample s = f.samples().get(0);
    assertThat(s.name()).isEqualTo("vllm:num_requests_running");
    assertThat(s.labels()).isEqualTo(Labels.of("engine", "0", "model_name", "m"));
    assertThat(s.value()).isEqualTo(3.0);
    assertThat(s.timestampMillis()).isEqualTo(Sample.NO_TIMESTAMP);
  }

  @Test
  void parse_unitLine() throws Exception {
    Exposition e =
        parse(
            "# TYPE request_latency_seconds histogram\n"
                + "# UNIT request_latency_seconds seconds\n"
                + "request_latency_seconds_bucket{le=\"+Inf\"} 2\n"
                + "request_latency_seconds_count 2\n"
                + "request_latency_seconds_sum 0.5\n"
                + "# EOF\n");
    MetricFamily f = e.family("request_latency_seconds");
    assertThat(f.unit()).isEqualTo("seconds");
    assertThat(f.type()).isEqualTo(MetricType.HISTOGRAM);
    assertThat(f.samples()).extracting(Sample::value).containsExactly(2.0, 2.0, 0.5);
  }

  @Test
  void parse_metricNamesWithColons() throws Exception {
    Exposition e = parse("ray_vllm:num_requests_running{Component=\"core_worker\"} 1\n:weird:name 2\n");
    assertThat(only(e, "ray_vllm:num_requests_running").value()).isEqualTo(1.0);
    assertThat(only(e, ":weird:name").value()).isEqualTo(2.0);
  }

  @Test
  void parse_labelValueEscapes() throws Exception {
    Exposition e =
        parse("m{a=\"quote \\\" backslash \\\\ newline \\n end\",b=\"{braces},=\",c=\"\\t\"} 1\n");
    Labels labels = only(e, "m").labels();
    assertThat(labels.get("a")).isEqualTo("quote \" backslash \\ newline \n end");
    assertThat(labels.get("b")).isEqualTo("{braces},=");
    // An unknown escape is kept as written, like Prometheus does.
    assertThat(labels.get("c")).isEqualTo("\\t");
  }

  @Test
  void parse_utf8LabelValue() throws Exception {
    Exposition e = parse("m{model_name=\"Qwen/通义千问-7B\"} 1\n");
    assertThat(only(e, "m").labels().get("model_name")).isEqualTo("Qwen/通义千问-7B");
  }

  @Test
  void parse_specialValues() throws Exception {
    Exposition e =
        parse("a NaN\nb +Inf\nc -Inf\nd Inf\ne inf\nf -inf\ng nan\nh Infinity\ni -0.0\n");
    assertThat(only(e, "a").value()).isNaN();
    assertThat(only(e, "b").value()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(only(e, "c").value()).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(only(e, "d").value()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(only(e, "e").value()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(only(e, "f").value()).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(only(e, "g").value()).isNaN();
    assertThat(only(e, "h").value()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(Double.doubleToRawLongBits(only(e, "i").value()))
        .isEqualTo(Double.doubleToRawLongBits(-0.0));
  }

  @Test
  void parse_exponentsAndPlainNumbers() throws Exception {
    Exposition e =
        parse(
            "a 1.23457e+06\nb 1.7537953269352946e+09\nc 9.75010481363281e-06\nd 340\ne .5\nf 5.\n"
                + "g 1E3\nh -12.5e-1\n");
    assertThat(only(e, "a").value()).isEqualTo(1234570.0);
    assertThat(only(e, "b").value()).isEqualTo(1.7537953269352946e9);
    assertThat(only(e, "c").value()).isEqualTo(9.75010481363281e-06);
    assertThat(only(e, "d").value()).isEqualTo(340.0);
    assertThat(only(e, "e").value()).isEqualTo(0.5);
    assertThat(only(e, "f").value()).isEqualTo(5.0);
    assertThat(only(e, "g").value()).isEqualTo(1000.0);
    assertThat(only(e, "h").value()).isEqualTo(-1.25);
  }

  @Test
  void parse_timestampInMillisecondsIn004() throws Exception {
    Exposition e = parse("a 1 1700000000123\nb 2 -5\n");
    assertThat(only(e, "a").timestampMillis()).isEqualTo(1_700_000_000_123L);
    assertThat(only(e, "b").timestampMillis()).isEqualTo(-5L);
  }

  @Test
  void parse_floatTimestampIsSeconds() throws Exception {
    Exposition e = parse("a 1 1700000000.123\n");
    assertThat(only(e, "a").timestampMillis()).isEqualTo(1_700_000_000_123L);
  }

  @Test
  void parse_integerTimestampIsSecondsInOpenMetrics() throws Exception {
    Exposition e = parse("# TYPE a gauge\na 1 1700000000\nb 2 1700000000.5\n# EOF\n");
    assertThat(only(e, "a").timestampMillis()).isEqualTo(1_700_000_000_000L);
    assertThat(only(e, "b").timestampMillis()).isEqualTo(1_700_000_000_500L);
  }

  @Test
  void parse_eofInTheMiddleStopsAndRereadsTimestampsAsSeconds() throws Exception {
    Exposition e = parse("a 1 1700000000\n# EOF\nb 2\ngarbage that is never read {{{\n");
    assertThat(e.families()).extracting(MetricFamily::name).containsExactly("a");
    assertThat(only(e, "a").timestampMillis()).isEqualTo(1_700_000_000_000L);
  }

  @Test
  void parse_exemplarsAreSkipped() throws Exception {
    Exposition e =
        parse(
            "# TYPE foo histogram\n"
                + "foo_bucket{le=\"0.01\"} 0\n"
                + "foo_bucket{le=\"0.1\"} 8 # {trace_id=\"KOO5S4vxi0o\"} 0.067 1520879607.789\n"
                + "foo_bucket{le=\"+Inf\"} 17 # {} 1.0\n"
                + "foo_count 17 1520879607.789 # {trace_id=\"a}b\"} 2.0 1520879607\n"
                + "foo_sum 324789.3\n"
                + "# EOF\n");
    List<Sample> samples = e.family("foo").samples();
    assertThat(samples).extracting(Sample::value).containsExactly(0.0, 8.0, 17.0, 17.0, 324789.3);
    assertThat(samples.get(3).timestampMillis()).isEqualTo(1_520_879_607_789L);
  }

  @Test
  void parse_malformedExemplarFails() {
    assertThatThrownBy(() -> parse("a_total 1 # trace 1\n"))
        .isInstanceOf(ExpositionFormatException.class)
        .hasMessage("line 1: malformed exemplar: expected '{' after '#'");
    assertThatThrownBy(() -> parse("a_total 1 # {x=\"1\"} abc\n"))
        .hasMessage("line 1: malformed exemplar: bad number \"abc\"");
  }

  @Test
  void parse_openMetricsCounterWithCreated() throws Exception {
    Exposition e =
        parse(
            "# TYPE http_requests counter\n"
                + "# HELP http_requests Requests.\n"
                + "http_requests_total{code=\"200\"} 1027\n"
                + "http_requests_created{code=\"200\"} 1.7e9\n"
                + "# EOF\n");
    MetricFamily f = e.family("http_requests");
    assertThat(f.type()).isEqualTo(MetricType.COUNTER);
    assertThat(f.samples())
        .extracting(Sample::name)
        .containsExactly("http_requests_total", "http_requests_created");
    assertThat(f.samples().get(1).value()).isEqualTo(1.7e9);
    assertThat(e.families()).hasSize(1);
  }

  @Test
  void parse_createdDeclaredAsSeparateGaugeLikeVllm010() throws Exception {
    Exposition e =
        parse(
            "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.\n"
                + "# TYPE vllm:prompt_tokens_total counter\n"
                + "vllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"} 32.0\n"
                + "# HELP vllm:prompt_tokens_created Number of prefill tokens processed.\n"
                + "# TYPE vllm:prompt_tokens_created gauge\n"
                + "vllm:prompt_tokens_created{engine=\"0\",model_name=\"m\"} 1.7537953269352946e+09\n"
                + "# HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.\n"
                + "# TYPE vllm:e2e_request_latency_seconds histogram\n"
                + "vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"+Inf\",model_name=\"m\"} 1.0\n"
                + "vllm:e2e_request_latency_seconds_count{engine=\"0\",model_name=\"m\"} 1.0\n"
                + "vllm:e2e_request_latency_seconds_sum{engine=\"0\",model_name=\"m\"} 0.5\n"
                + "# HELP vllm:e2e_request_latency_seconds_created Histogram of e2e request latency in seconds.\n"
                + "# TYPE vllm:e2e_request_latency_seconds_created gauge\n"
                + "vllm:e2e_request_latency_seconds_created{engine=\"0\",model_name=\"m\"} 1.75e9\n");
    assertThat(e.families())
        .extracting(MetricFamily::name, MetricFamily::type)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("vllm:prompt_tokens_total", MetricType.COUNTER),
            org.assertj.core.groups.Tuple.tuple("vllm:prompt_tokens_created", MetricType.GAUGE),
            org.assertj.core.groups.Tuple.tuple("vllm:e2e_request_latency_seconds", MetricType.HISTOGRAM),
            org.assertj.core.groups.Tuple.tuple(
                "vllm:e2e_request_latency_seconds_created", MetricType.GAUGE));
    assertThat(e.family("vllm:e2e_request_latency_seconds").samples()).hasSize(3);
    assertThat(only(e, "vllm:prompt_tokens_created").value()).isEqualTo(1.7537953269352946e9);
  }

  @Test
  void parse_counterWithoutTotalLikeTgi() throws Exception {
    Exposition e =
        parse(
            "# TYPE tgi_request_count counter\ntgi_request_count 111\n\n"
                + "# TYPE tgi_request_failure counter\ntgi_request_failure{err=\"validation\"} 2\n");
    assertThat(e.family("tgi_request_count").type()).isEqualTo(MetricType.COUNTER);
    assertThat(e.family("tgi_request_count").help()).isNull();
    assertThat(only(e, "tgi_request_count").value()).isEqualTo(111.0);
    assertThat(only(e, "tgi_request_failure").labels().get("err")).isEqualTo("validation");
  }

  @Test
  void parse_familyWithoutSamples() throws Exception {
    Exposition e =
        parse(
            "# HELP vllm:num_requests_running Number of requests currently running on GPU.\n"
                + "# TYPE vllm:num_requests_running gauge\n"
                + "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n"
                + "# TYPE vllm:num_requests_waiting gauge\n");
    assertThat(e.families()).hasSize(2);
    assertThat(e.family("vllm:num_requests_waiting").samples()).isEmpty();
    assertThat(e.family("vllm:num_requests_waiting").help())
        .isEqualTo("Number of requests waiting to be processed.");
    assertThat(e.sampleCount()).isZero();
  }

  @Test
  void parse_blankLinesAndPlainComments() throws Exception {
    Exposition e =
        parse(
            "\n   \n# Fixture captured from SGLang\n#no space comment\n# HELPER not help\n"
                + "\t\n# TYPE a gauge\n\n  a 1\n");
    assertThat(e.families()).hasSize(1);
    assertThat(only(e, "a").value()).isEqualTo(1.0);
  }

  @Test
  void parse_summaryWithQuantiles() throws Exception {
    Exposition e =
        parse(
            "# TYPE tgi_request_skipped_tokens summary\n"
                + "tgi_request_skipped_tokens{quantile=\"0\"} 0\n"
                + "tgi_request_skipped_tokens{quantile=\"0.99\"} 4\n"
                + "tgi_request_skipped_tokens_sum 12\n"
                + "tgi_request_skipped_tokens_count 3423\n");
    MetricFamily f = e.family("tgi_request_skipped_tokens");
    assertThat(f.type()).isEqualTo(MetricType.SUMMARY);
    assertThat(f.samples()).hasSize(4);
    assertThat(f.samples().get(1).labels().get("quantile")).isEqualTo("0.99");
    assertThat(f.samples().get(3).value()).isEqualTo(3423.0);
  }

  @Test
  void parse_untypedAndUnknown() throws Exception {
    Exposition e =
        parse(
            "# TYPE a untyped\na 1\n# TYPE b unknown\nb 2\n"
                + "c_bucket{le=\"1\"} 3\nc_bucket{le=\"+Inf\"} 4\nc_sum 5\n");
    assertThat(e.family("a").type()).isEqualTo(MetricType.UNTYPED);
    assertThat(e.family("b").type()).isEqualTo(MetricType.UNTYPED);
    // Undeclared samples are grouped by their own name.
    assertThat(e.families())
        .extracting(MetricFamily::name)
        .containsExactly("a", "b", "c_bucket", "c_sum");
    assertThat(e.family("c_bucket").samples()).hasSize(2);
    assertThat(e.family("c_bucket").type()).isEqualTo(MetricType.UNTYPED);
  }

  @Test
  void parse_undeclaredSamplesOfOneNameJoinAcrossOtherFamilies() throws Exception {
    Exposition e = parse("x 1\n# TYPE y gauge\ny 2\nx 3\n");
    assertThat(e.family("x").samples()).extracting(Sample::value).containsExactly(1.0, 3.0);
  }

  @Test
  void parse_sampleMatchingEarlierDeclaredFamilyBySuffix() throws Exception {
    Exposition e =
        parse("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\n# TYPE g gauge\ng 2\nh_sum 3\n");
    assertThat(e.family("h").samples()).extracting(Sample::name).containsExactly("h_bucket", "h_sum");
  }

  @Test
  void parse_suffixNotAllowedByTypeMakesOwnFamily() throws Exception {
    Exposition e = parse("# TYPE g gauge\ng 1\ng_total 2\n");
    assertThat(e.family("g").samples()).hasSize(1);
    assertThat(e.family("g_total").type()).isEqualTo(MetricType.UNTYPED);
  }

  @Test
  void parse_histogramNamedTotalLikeIterationTokens() throws Exception {
    Exposition e =
        parse(
            "# TYPE vllm:iteration_tokens_total histogram\n"
                + "vllm:iteration_tokens_total_bucket{le=\"1.0\"} 3.0\n"
                + "vllm:iteration_tokens_total_count 3.0\n"
                + "vllm:iteration_tokens_total_sum 3.0\n");
    assertThat(e.families()).hasSize(1);
    assertThat(e.family("vllm:iteration_tokens_total").samples()).hasSize(3);
  }

  @Test
  void parse_infoStatesetAndGaugeHistogram() throws Exception {
    Exposition e =
        parse(
            "# TYPE build info\nbuild_info{version=\"1\"} 1\n"
                + "# TYPE state stateset\nstate{state=\"a\"} 1\nstate{state=\"b\"} 0\n"
                + "# TYPE queue gaugehistogram\nqueue_bucket{le=\"+Inf\"} 2\nqueue_gcount 2\nqueue_gsum 7\n"
                + "# EOF\n");
    assertThat(e.family("build").type()).isEqualTo(MetricType.INFO);
    assertThat(e.family("build").samples()).hasSize(1);
    assertThat(e.family("state").type()).isEqualTo(MetricType.STATESET);
    assertThat(e.family("state").samples()).hasSize(2);
    assertThat(e.family("queue").type()).isEqualTo(MetricType.GAUGE_HISTOGRAM);
    assertThat(e.family("queue").samples()).hasSize(3);
  }

  @Test
  void parse_crlfLineEndings() throws Exception {
    Exposition e =
        parse("# HELP a The a.\r\n# TYPE a counter\r\na_total{x=\"1\"} 4 1000\r\n\r\nb 5\r\n");
    assertThat(e.family("a").help()).isEqualTo("The a.");
    assertThat(only(e, "a").value()).isEqualTo(4.0);
    assertThat(only(e, "a").timestampMillis()).isEqualTo(1000L);
    assertThat(only(e, "b").value()).isEqualTo(5.0);
  }

  @Test
  void parse_noFinalNewline() throws Exception {
    Exposition e = parse("# TYPE a gauge\na{x=\"1\"} 4.5");
    assertThat(only(e, "a").value()).isEqualTo(4.5);
    assertThat(only(parse("b 7 123"), "b").timestampMillis()).isEqualTo(123L);
    assertThat(parse("# TYPE c gauge").family("c").type()).isEqualTo(MetricType.GAUGE);
  }

  @Test
  void parse_emptyInput() throws Exception {
    assertThat(parse("").families()).isEmpty();
    assertThat(parse("\n\n").families()).isEmpty();
  }

  @Test
  void parse_emptyLabelSetAndTrailingComma() throws Exception {
    Exposition e = parse("a{} 1\nb{x=\"1\",} 2\nc{ x = \"1\" , y=\"2\" , } 3\nd{x=\"1\"}4\n");
    assertThat(only(e, "a").labels()).isEqualTo(Labels.EMPTY);
    assertThat(only(e, "b").labels()).isEqualTo(Labels.of("x", "1"));
    assertThat(only(e, "c").labels()).isEqualTo(Labels.of("x", "1", "y", "2"));
    assertThat(only(e, "d").value()).isEqualTo(4.0);
  }

  @Test
  void parse_secondParseOfSameServerReusesCachedKeys() throws Exception {
    String first = "# TYPE a counter\na_total{x=\"1\"} 1\na_total{x=\"2\"} 2\n";
    String second = "# TYPE a counter\na_total{x=\"1\"} 10\na_total{x=\"3\"} 30\na_total{x=\"2\"} 20\n";
    Exposition e1 = parse(first);
    Exposition e2 = parse(second);
    assertThat(e2.family("a").samples())
        .extracting(s -> s.labels().get("x") + "=" + s.value())
        .containsExactly("1=10.0", "3=30.0", "2=20.0");
    // The same label set is one object across parses: it was not parsed again.
    assertThat(e2.family("a").samples().get(0).labels())
        .isSameAs(e1.family("a").samples().get(0).labels());
    assertThat(parse(first).family("a").samples()).extracting(Sample::value).containsExactly(1.0, 2.0);
  }

  @Test
  void parse_cachedKeyIsNotMistakenForALongerLine() throws Exception {
    parse("a 1\nab 2\na{x=\"1\"} 3\n");
    Exposition e = parse("ab 1\na 2\na {x=\"1\"} 3\na{x=\"1\"}4\n");
    assertThat(e.family("ab").samples()).extracting(Sample::value).containsExactly(1.0);
    assertThat(e.family("a").samples())
        .extracting(s -> s.labels().toString() + s.value())
        .containsExactly("{}2.0", "{x=\"1\"}3.0", "{x=\"1\"}4.0");
  }

  @Test
  void parse_cacheIsBounded() throws Exception {
    ExpositionParser small = new ExpositionParser(ParserLimits.defaults(), 100, 1 << 20);
    for (int round = 0; round < 5; round++) {
      StringBuilder sb = new StringBuilder("# TYPE a gauge\n");
      for (int i = 0; i < 150; i++) {
        sb.append("a{id=\"").append(round).append('-').append(i).append("\"} ").append(i).append('\n');
      }
      Exposition e = small.parse(sb.toString());
      assertThat(e.family("a").samples()).hasSize(150);
      assertThat(e.family("a").samples().get(149).labels().get("id")).isEqualTo(round + "-149");
      assertThat(small.cacheSize()).isLessThanOrEqualTo(100);
    }
  }

  @Test
  void parse_failingScrapesDoNotGrowTheStringTable() {
    ExpositionParser small = new ExpositionParser(ParserLimits.defaults(), 10, 4_000);
    for (int i = 0; i < 500; i++) {
      String text = "a{x=\"" + "v".repeat(100) + i + "\",y=\"" + i + "\",1bad=\"\"} 1\n";
      assertThatThrownBy(() -> small.parse(text)).isInstanceOf(ExpositionFormatException.class);
      assertThat(small.stringCount()).isLessThanOrEqualTo(40 + 10);
    }
  }

  @Test
  void parse_offsetAndLength() throws Exception {
    byte[] body = "xxxx# TYPE a gauge\na 1\nyyyy".getBytes(StandardCharsets.UTF_8);
    Exposition e = parser.parse(body, 4, body.length - 8);
    assertThat(only(e, "a").value()).isEqualTo(1.0);
  }

  // ------------------------------------------------------------------ errors

  private static void assertError(String text, String message) {
    ExpositionParser p = new ExpositionParser(ParserLimits.defaults());
    assertThatThrownBy(() -> p.parse(text))
        .isInstanceOf(ExpositionFormatException.class)
        .hasMessage(message);
  }

  @Test
  void parse_unterminatedLabelValue() {
    assertError("a 1\nb{x=\"1} 2\nc 3\n", "line 2: unterminated label value");
    assertError("b{x=\"1\\", "line 1: unterminated label value");
  }

  @Test
  void parse_unterminatedLabelSet() {
    assertError("b{x=\"1\" 2\n", "line 1: unterminated label set (missing '}')");
  }

  @Test
  void parse_badNumber() {
    assertError("# TYPE a gauge\na abc\n", "line 2: bad number \"abc\" for 'a'");
    assertError("a 0x1p3\n", "line 1: bad number \"0x1p3\" for 'a'");
    assertError("a 1.0d\n", "line 1: bad number \"1.0d\" for 'a'");
    assertError("a 1e\n", "line 1: bad number \"1e\" for 'a'");
  }

  @Test
  void parse_invalidMetricName() {
    assertError("9abc 1\n", "line 1: invalid metric name \"9abc\"");
    assertError("foo-bar 1\n", "line 1: invalid metric name \"foo-bar\"");
    assertError("# TYPE foo-bar gauge\n", "line 1: invalid metric name \"foo-bar\" in TYPE line");
  }

  @Test
  void parse_missingValue() {
    assertError("a\n", "line 1: missing value for 'a'");
    assertError("a{x=\"1\"}   \n", "line 1: missing value for 'a'");
  }

  @Test
  void parse_duplicateLabelName() {
    assertError("a{x=\"1\",x=\"2\"} 1\n", "line 1: duplicate label name 'x' on 'a'");
  }

  @Test
  void parse_invalidLabelSyntax() {
    assertError("a{1x=\"1\"} 1\n", "line 1: invalid label name \"1x\" on 'a'");
    assertError("a{x=1} 1\n", "line 1: expected '\"' to open the value of label 'x' on 'a'");
    assertError("a{x \"1\"} 1\n", "line 1: expected '=' after label name 'x' on 'a'");
    assertError("a{x=\"1\" y=\"2\"} 1\n", "line 1: expected ',' or '}' after label 'x' on 'a', found \"y\"");
  }

  @Test
  void parse_badTimestampAndTrailingText() {
    assertError("a 1 12:00\n", "line 1: bad timestamp \"12:00\"");
    assertError("a 1 2 3\n", "line 1: unexpected text after the value: \"3\"");
  }

  @Test
  void parse_badTypeLines() {
    assertError("# TYPE a flute\n", "line 1: unknown metric type \"flute\" for 'a'");
    assertError("# TYPE a\n", "line 1: TYPE line for 'a' without a type");
    assertError("# HELP\n", "line 1: HELP line without a metric name");
    assertError("# TYPE a gauge\n# TYPE a counter\n", "line 2: second TYPE line for 'a' says counter, first said gauge");
  }

  @Test
  void parse_histogramSampleWithoutSuffix() {
    assertError("# TYPE h histogram\nh 1\n", "line 2: sample 'h' has no suffix, which a histogram needs");
  }

  @Test
  void parse_lineLengthLimit() {
    ExpositionParser p = new ExpositionParser(new ParserLimits(40, 100, 10));
    assertThatThrownBy(() -> p.parse("a 1\nb{x=\"" + "y".repeat(50) + "\"} 1\n"))
        .hasMessage("line 2: line longer than 40 bytes (limit maxLineLength)");
    assertThatThrownBy(() -> p.parse("# HELP a " + "y".repeat(50) + "\n"))
        .hasMessage("line 1: line longer than 40 bytes (limit maxLineLength)");
  }

  @Test
  void parse_sampleLimit() throws Exception {
    ExpositionParser p = new ExpositionParser(new ParserLimits(1000, 3, 10));
    assertThat(p.parse("a 1\nb 2\nc 3\n").sampleCount()).isEqualTo(3);
    assertThatThrownBy(() -> p.parse("a 1\nb 2\nc 3\nd 4\n"))
        .hasMessage("line 4: more than 3 samples (limit maxSeries)");
  }

  @Test
  void parse_labelLimit() {
    ExpositionParser p = new ExpositionParser(new ParserLimits(1000, 100, 2));
    assertThatThrownBy(() -> p.parse("a{x=\"1\",y=\"2\",z=\"3\"} 1\n"))
        .hasMessage("line 1: more than 2 labels on 'a' (limit maxLabels)");
  }

  @Test
  void parse_afterAnErrorTheParserStillWorks() throws Exception {
    assertThatThrownBy(() -> parser.parse("a{x=\"1\"} 1\na{x=\"1\"} oops\n"))
        .hasMessage("line 2: bad number \"oops\" for 'a'");
    assertThat(only(parse("a{x=\"1\"} 1\n"), "a").value()).isEqualTo(1.0);
  }
}
