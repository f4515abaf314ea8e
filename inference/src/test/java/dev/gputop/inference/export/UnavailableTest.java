package dev.gputop.inference.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.stats.RequestLengths;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.stats.WindowStatistics;
import dev.gputop.inference.window.ServerWindow;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The N/A reasons of a server entry, from real expositions through the parser, mapper and window. */
class UnavailableTest {

  /** A vLLM that exports running and a TTFT histogram but no waiting gauge and no E2E. */
  private static String vllm(long ttftCount, long requests) {
    return "# TYPE vllm:num_requests_running gauge\n"
        + "vllm:num_requests_running{model_name=\"m\"} 1\n"
        + "# TYPE vllm:request_success_total counter\n"
        + "vllm:request_success_total{model_name=\"m\",finished_reason=\"stop\"} " + requests + "\n"
        + "# TYPE vllm:time_to_first_token_seconds histogram\n"
        + "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"0.1\"} " + ttftCount + "\n"
        + "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"+Inf\"} " + ttftCount + "\n"
        + "vllm:time_to_first_token_seconds_sum{model_name=\"m\"} " + (ttftCount * 0.05) + "\n"
        + "vllm:time_to_first_token_seconds_count{model_name=\"m\"} " + ttftCount + "\n";
  }

  private static ServerScrape scrape(String text) throws Exception {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    return new EngineMapper().map(new ExpositionParser(ParserLimits.defaults()).parse(b, 0, b.length));
  }

  @Test
  void everyStatistic_hasItsConcepts() {
    // requestLengths has a reason per part: requestLengths.prompt, requestLengths.generation.
    assertThat(Arrays.stream(ServerStats.class.getRecordComponents()).map(RecordComponent::getName)
        .filter(n -> !Unavailable.BREAKDOWNS.contains(n))
        .flatMap(n -> !n.equals("requestLengths") ? java.util.stream.Stream.of(n)
            : Arrays.stream(RequestLengths.class.getRecordComponents()).map(p -> n + "." + p.getName())))
        .containsExactlyInAnyOrderElementsOf(Unavailable.SOURCES.keySet());
  }

  @Test
  void reasons_followTheStateTheWindowAndWhatTheEngineExports() throws Exception {
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 10);
    w.add(0, 0, scrape(vllm(5, 5)));
    Map<String, String> one = Unavailable.of(ServerState.STARTING, WindowStatistics.compute(w, null), w);
    assertThat(one).doesNotContainKey("running")
        .containsEntry("waiting", Unavailable.NOT_EXPORTED)
        .containsEntry("e2e", Unavailable.NOT_EXPORTED)
        .containsEntry("ttftApproxMean", Unavailable.NOT_EXPORTED)
        .containsEntry("ttft", Unavailable.STARTING)
        .containsEntry("requestsPerSecond", Unavailable.STARTING);

    // A second scrape with no new request: the TTFT has no requests, the rate is 0 (a value).
    w.add(Duration.ofSeconds(3).toNanos(), 0, scrape(vllm(5, 5)));
    Map<String, String> two = Unavailable.of(ServerState.UP, WindowStatistics.compute(w, null), w);
    assertThat(two).containsEntry("ttft", Unavailable.NO_REQUESTS).doesNotContainKey("requestsPerSecond")
        .containsEntry("waiting", Unavailable.NOT_EXPORTED);
    assertThat(two.values()).allMatch(Unavailable.REASONS::contains);

    // With requests in the window the TTFT has a value and no reason.
    w.add(Duration.ofSeconds(6).toNanos(), 0, scrape(vllm(9, 9)));
    assertThat(Unavailable.of(ServerState.UP, WindowStatistics.compute(w, null), w)).doesNotContainKey("ttft");

    Map<String, String> down = Unavailable.of(ServerState.DOWN, ServerStats.EMPTY, w);
    assertThat(down).containsEntry("running", Unavailable.DOWN).containsEntry("ttft", Unavailable.DOWN)
        .hasSize(Unavailable.SOURCES.size());
  }
}
