package dev.gputop.inference.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.inference.stats.LatencyStats;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.stats.WindowStatistics;
import dev.gputop.inference.testing.TextExpositions;
import dev.gputop.inference.window.ServerWindow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Golden tests of every concept per engine: each pair of expositions written from an engine's
 * definitions (src/test/resources/engines, see its README) goes through the product's parser,
 * engine mapping, window and statistics, and every value must be what the pair's
 * {@code .expected.json} says (worked out by the generator independently of the agent; null =
 * N/A). Every key of the file is checked, and every statistic is in the file.
 */
class EngineExpositionsTest {

  private static final double EPS = 1e-9;
  private static final long SECOND = 1_000_000_000L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final EngineMapper mapper = new EngineMapper();

  /** Each statistic by its key in the expectations. */
  private static final Map<String, Function<ServerStats, Object>> STATS = Map.ofEntries(
      Map.entry("running", ServerStats::running),
      Map.entry("waiting", ServerStats::waiting),
      Map.entry("kvCacheUsage", ServerStats::kvCacheUsage),
      Map.entry("prefixHitRatio", ServerStats::prefixHitRatio),
      Map.entry("requestsPerSecond", ServerStats::requestsPerSecond),
      Map.entry("promptTokensPerSecond", ServerStats::promptTokensPerSecond),
      Map.entry("generationTokensPerSecond", ServerStats::generationTokensPerSecond),
      Map.entry("preemptionsPerSecond", ServerStats::preemptionsPerSecond),
      Map.entry("failedRequestsPerSecond", ServerStats::failedRequestsPerSecond),
      Map.entry("abortedRequestsPerSecond", ServerStats::abortedRequestsPerSecond),
      Map.entry("specDecodeAcceptanceRate", ServerStats::specDecodeAcceptanceRate),
      Map.entry("prefill", ServerStats::prefill),
      Map.entry("decode", ServerStats::decode),
      Map.entry("ttft", ServerStats::ttft),
      Map.entry("itl", ServerStats::itl),
      Map.entry("tpot", ServerStats::tpot),
      Map.entry("e2e", ServerStats::e2e),
      Map.entry("queue", ServerStats::queue),
      Map.entry("ttftApproxMean", ServerStats::ttftApproxMean),
      Map.entry("promptLength", s -> s.requestLengths().prompt()),
      Map.entry("generationLength", s -> s.requestLengths().generation()));

  private ServerScrape scrape(String base, int t) {
    return mapper.map(TextExpositions.parse(TextExpositions.resource("/engines/" + base + "-t" + t + ".prom")));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "vllm/v2026-dp2",
      "vllm/v2026-ray",
      "sglang/v2026-priority-tp2",
      "sglang/v2026-by-priority-tp2",
      "sglang/v2026-ray",
      "tgi/v3.3.7",
      "llamacpp/v2026",
      "trtllm/v2026",
      "trtllm/v2026-050f80de",
      "trtllm/v1.1-undefined",
      "triton/v2.5x-trtllm-ensemble",
      "dynamo/v1.x-frontend",
      "lmdeploy/v0.16.0-dp2",
      "tei/v1.9"})
  void compute_everyConceptIsWhatTheEngineDefinitionGives(String base) throws Exception {
    JsonNode expected = JSON.readTree(TextExpositions.resource("/engines/" + base + ".expected.json"));
    ServerWindow w = new ServerWindow(Duration.ofMinutes(1), 64);
    ServerScrape t0 = scrape(base, 0);
    ServerScrape t1 = scrape(base, 1);
    w.add(100 * SECOND, 1_000 * SECOND, t0);
    assertThat(w.add(110 * SECOND, 1_010 * SECOND, t1)).as("the window must not start over").isNull();

    assertThat(t1.engine().id()).isEqualTo(expected.get("engine").asText());
    List<String> models = new ArrayList<>();
    expected.get("models").forEach(m -> models.add(m.asText()));
    assertThat(t1.models()).containsExactlyElementsOf(models);

    ServerStats s = WindowStatistics.compute(w, null);
    TreeSet<String> keys = new TreeSet<>();
    for (Iterator<String> it = expected.fieldNames(); it.hasNext(); ) {
      keys.add(it.next());
    }
    keys.remove("engine");
    keys.remove("models");
    // Every statistic is in the file (ttftApproxMean only where an engine has it).
    TreeSet<String> required = new TreeSet<>(STATS.keySet());
    required.remove("ttftApproxMean");
    assertThat(keys).containsAll(required);
    for (String key : keys) {
      assertThat(STATS).as("a statistic named " + key).containsKey(key);
      check(base + " " + key, expected.get(key), STATS.get(key).apply(s));
    }
  }

  private static void check(String what, JsonNode want, Object got) {
    if (want.isNull()) {
      assertThat(got).as(what + " is N/A").isNull();
      return;
    }
    assertThat(got).as(what).isNotNull();
    if (want.isObject()) {
      LatencyStats l = (LatencyStats) got;
      assertThat(l.count()).as(what + ".count").isEqualTo(want.get("count").asLong());
      number(what + ".mean", want.get("mean"), l.mean());
      number(what + ".p50", want.get("p50"), l.p50());
      number(what + ".p90", want.get("p90"), l.p90());
      number(what + ".p99", want.get("p99"), l.p99());
    } else if (got instanceof Integer) {
      assertThat(got).as(what).isEqualTo(want.asInt());
    } else {
      number(what, want, (Double) got);
    }
  }

  private static void number(String what, JsonNode want, Double got) {
    if (want == null || want.isNull()) {
      assertThat(got).as(what + " is N/A").isNull();
    } else {
      assertThat(got).as(what).isNotNull();
      assertThat(got).as(what).isCloseTo(want.asDouble(), within(EPS * Math.max(1, Math.abs(want.asDouble()))));
    }
  }
}
