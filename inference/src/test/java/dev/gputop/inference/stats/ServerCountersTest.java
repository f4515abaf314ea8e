package dev.gputop.inference.stats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.stats.ServerCounters.Total;
import dev.gputop.inference.testing.TextExpositions;
import org.junit.jupiter.api.Test;

/** The monotonic totals: 0 at the first scrape, every increase after, a restart as Prometheus counts a reset. */
class ServerCountersTest {

  private final EngineMapper mapper = new EngineMapper();

  /** A vLLM V1 of two models: request_success by finished_reason, tokens, preemptions. */
  private ServerScrape vllm(double stopA, double abortA, double stopB, double prompt, double cachedA) {
    return mapper.map(TextExpositions.parse(String.join("\n",
        "# TYPE vllm:request_success counter",
        "vllm:request_success_total{finished_reason=\"stop\",model_name=\"a\"} " + stopA,
        "vllm:request_success_total{finished_reason=\"abort\",model_name=\"a\"} " + abortA,
        "vllm:request_success_total{finished_reason=\"stop\",model_name=\"b\"} " + stopB,
        "# TYPE vllm:prompt_tokens counter",
        "vllm:prompt_tokens_total{model_name=\"a\"} " + prompt,
        "# TYPE vllm:prefix_cache_hits counter",
        "vllm:prefix_cache_hits_total{model_name=\"a\"} " + cachedA,
        "# TYPE vllm:num_requests_running gauge",
        "vllm:num_requests_running{model_name=\"a\"} 1",
        "")));
  }

  @Test
  void firstScrapeIsZero_thenEveryIncrease_successExcludesTheFailuresOfTheSameFamily() {
    ServerCounters c = new ServerCounters();
    assertThat(c.started()).isFalse();
    c.add(1_000, vllm(100, 5, 40, 9000, 3000));
    assertThat(c.started()).isTrue();
    assertThat(c.startEpochNanos()).isEqualTo(1_000);
    assertThat(c.total(Total.SUCCESS_REQUESTS)).isZero();
    assertThat(c.total(Total.ABORTED_REQUESTS)).isZero();
    // No finished_reason="error" series: the server never exported a failure.
    assertThat(c.total(Total.ERROR_REQUESTS)).isNaN();
    assertThat(c.total(Total.PROMPT_TOKENS)).isZero();
    // Never exported by this server: no value, not 0.
    assertThat(c.total(Total.GENERATION_TOKENS)).isNaN();
    assertThat(c.total(Total.PREEMPTIONS)).isNaN();

    c.add(2_000, vllm(110, 7, 43, 9500, 3100));
    assertThat(c.epochNanos()).isEqualTo(2_000);
    // 10 + 3 finished normally, 2 aborted (vLLM counts aborts in request_success).
    assertThat(c.total(Total.SUCCESS_REQUESTS)).isEqualTo(13);
    assertThat(c.total(Total.ABORTED_REQUESTS)).isEqualTo(2);
    assertThat(c.total(Total.PROMPT_TOKENS)).isEqualTo(500);
    assertThat(c.total(Total.CACHED_PROMPT_TOKENS)).isEqualTo(100);
    // Per model; the models add up to the server.
    assertThat(c.total("a", Total.SUCCESS_REQUESTS)).isEqualTo(10);
    assertThat(c.total("b", Total.SUCCESS_REQUESTS)).isEqualTo(3);
    assertThat(c.total("a", Total.ABORTED_REQUESTS)).isEqualTo(2);
    assertThat(c.total("b", Total.ABORTED_REQUESTS)).isNaN();
    assertThat(c.total("nobody", Total.SUCCESS_REQUESTS)).isNaN();
  }

  @Test
  void aRestart_countsWhatTheServerDidAfterIt_asPrometheusCountsAReset() {
    ServerCounters c = new ServerCounters();
    c.add(1, vllm(100, 5, 40, 9000, 3000));
    c.add(2, vllm(110, 5, 40, 9600, 3000));
    // The server restarted and completed 4 + 1 requests since.
    c.add(3, vllm(4, 0, 1, 300, 0));
    assertThat(c.total(Total.SUCCESS_REQUESTS)).isEqualTo(10 + 5);
    assertThat(c.total(Total.PROMPT_TOKENS)).isEqualTo(600 + 300);
    c.add(4, vllm(6, 0, 1, 310, 0));
    assertThat(c.total(Total.SUCCESS_REQUESTS)).isEqualTo(17);
    assertThat(c.startEpochNanos()).isEqualTo(1);
  }

  @Test
  void aSeriesAddedLater_countsFromItsFirstValue_andASkippedScrapeLosesNothing() {
    ServerCounters c = new ServerCounters();
    ServerScrape only = mapper.map(TextExpositions.parse(
        "# TYPE vllm:generation_tokens counter\nvllm:generation_tokens_total{model_name=\"a\"} 50\n"));
    ServerScrape both = mapper.map(TextExpositions.parse(
        "# TYPE vllm:generation_tokens counter\nvllm:generation_tokens_total{model_name=\"a\"} 80\n"
            + "vllm:generation_tokens_total{model_name=\"b\"} 7\n"));
    ServerScrape later = mapper.map(TextExpositions.parse(
        "# TYPE vllm:generation_tokens counter\nvllm:generation_tokens_total{model_name=\"a\"} 90\n"
            + "vllm:generation_tokens_total{model_name=\"b\"} 10\n"));
    ServerScrape none = mapper.map(TextExpositions.parse(
        "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"a\"} 1\n"));
    c.add(1, only);
    c.add(2, both);
    assertThat(c.total(Total.GENERATION_TOKENS)).isEqualTo(30);
    c.add(3, none);
    assertThat(c.total(Total.GENERATION_TOKENS)).isEqualTo(30);
    c.add(4, later);
    assertThat(c.total(Total.GENERATION_TOKENS)).isEqualTo(30 + 10 + 3);
  }

  @Test
  void failuresOfTheirOwnFamily_areNotTakenFromTheSuccesses() {
    ServerCounters c = new ServerCounters();
    for (int i = 0; i < 2; i++) {
      c.add(i, mapper.map(TextExpositions.parse(String.join("\n",
          "# TYPE tgi_request_success counter", "tgi_request_success " + (100 + 10 * i),
          "# TYPE tgi_request_failure counter", "tgi_request_failure{err=\"validation\"} " + (3 + i),
          "# TYPE tgi_batch_current_size gauge", "tgi_batch_current_size 1", ""))));
    }
    assertThat(c.total(Total.SUCCESS_REQUESTS)).isEqualTo(10);
    assertThat(c.total(Total.ERROR_REQUESTS)).isEqualTo(1);
  }
}
