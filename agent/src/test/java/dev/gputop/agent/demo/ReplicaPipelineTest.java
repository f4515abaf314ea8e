package dev.gputop.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import dev.gputop.testing.ManualClock;
import dev.gputop.inference.engine.Engine;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import dev.gputop.inference.stats.LatencyStats;
import dev.gputop.inference.stats.ServerStats;
import dev.gputop.inference.stats.WindowStatistics;
import dev.gputop.inference.window.ServerWindow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The replicas through the product's own pipeline (parser, engine mapping, window, statistics),
 * compared with the truth the replicas drew: what the integration tests of the agent rely on.
 */
class ReplicaPipelineTest {

  private static final Duration WINDOW = Duration.ofSeconds(60);
  private static final Duration INTERVAL = Duration.ofSeconds(3);

  private final ExpositionParser parser = new ExpositionParser(ParserLimits.defaults());
  private final EngineMapper mapper = new EngineMapper();
  private final ManualClock clock = new ManualClock(Fixtures.T0);

  /** What one replica looked like through the pipeline, with the truth at the window's edges. */
  private record Run(ServerStats stats, Truth oldest, Truth newest, LoadModel.Stats model) {}

  @Test
  void everyReplica_isRecognizedAsItsEngine() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 41, Duration.ofSeconds(30))) {
      Map<String, Engine> expected = Map.of(
          "vllm-dp2", Engine.VLLM, "sglang-tp2", Engine.SGLANG, "tgi", Engine.TGI, "llamacpp", Engine.LLAMACPP,
          "trtllm", Engine.of("trtllm"));
      for (Replica r : d.replicas()) {
        Exposition e = parser.parse(r.render());
        assertThat(EngineMapper.recognize(e)).as(r.name()).isEqualTo(expected.get(r.name()));
        assertThat(r.engine()).isEqualTo(expected.get(r.name()).id());
      }
    }
  }

  @Test
  void everyReplica_parsesAtStartUnderLoadAndAfterARestart() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 47, Duration.ZERO)) {
      for (int moment = 0; moment < 3; moment++) {
        for (Replica r : d.replicas()) {
          String text = r.render();
          MiniExposition.parse(text);
          Exposition e = parser.parse(text);
          assertThat(e.families()).as(r.name() + " at moment " + moment).isNotEmpty();
          assertThat(mapper.map(e).engine().id()).isEqualTo(r.engine());
          if (moment == 1) {
            r.restart();
          }
        }
        clock.advance(Duration.ofSeconds(moment == 0 ? 120 : 1));
      }
    }
  }

  @Test
  void vllm_windowedStatisticsMatchTheTruth() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 42, Duration.ofSeconds(120))) {
      Run run = run(d.replica("vllm-dp2"));
      ServerStats s = run.stats();
      assertThat(s.running()).isEqualTo(run.newest().running());
      assertThat(s.waiting()).isEqualTo(run.newest().waiting());
      double kvMax = run.model().engines().stream().mapToDouble(EngineStats::kvUsage).max().orElseThrow();
      assertThat(s.kvCacheUsage()).isCloseTo(kvMax, offset(1e-12));
      assertRates(s, run);
      Truth.Counters a = run.oldest().counters();
      Truth.Counters b = run.newest().counters();
      double hit = (double) (b.prefixHits() - a.prefixHits()) / (b.prefixQueries() - a.prefixQueries());
      assertThat(s.prefixHitRatio()).isCloseTo(hit, offset(1e-9));
      assertLatency("TTFT", s.ttft(), run, Kind.TTFT, VllmWriter.TTFT);
      assertLatency("E2E", s.e2e(), run, Kind.E2E, VllmWriter.REQUEST);
      assertLatency("queue", s.queue(), run, Kind.QUEUE, VllmWriter.REQUEST);
      assertLatency("ITL", s.itl(), run, Kind.ITL, VllmWriter.TPOT);
    }
  }

  @Test
  void sglang_windowedStatisticsMatchTheTruth() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 43, Duration.ofSeconds(120))) {
      Run run = run(d.replica("sglang-tp2"));
      ServerStats s = run.stats();
      // one TP rank counts, not both
      assertThat(s.running()).isEqualTo(run.newest().running());
      assertThat(s.waiting()).isEqualTo(run.newest().waiting());
      assertThat(s.kvCacheUsage()).isCloseTo(run.model().engines().get(0).kvUsage(), offset(1e-12));
      assertLatency("TTFT", s.ttft(), run, Kind.TTFT, SglangWriter.TTFT);
      assertLatency("E2E", s.e2e(), run, Kind.E2E, SglangWriter.E2E);
      assertLatency("ITL", s.itl(), run, Kind.ITL, SglangWriter.ITL);
      assertThat(s.requestsPerSecond()).isPositive();
      assertThat(s.prefixHitRatio()).isBetween(0.0, 1.0);
    }
  }

  @Test
  void tgiAndLlamaCpp_reportWhatTheyExportAndNothingElse() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 44, Duration.ofSeconds(120))) {
      Run tgi = run(d.replica("tgi"));
      assertThat(tgi.stats().ttft()).as("TGI has no TTFT").satisfiesAnyOf(
          l -> assertThat(l).isNull(), l -> assertThat(l.p50()).isNull());
      assertThat(tgi.stats().kvCacheUsage()).isNull();
      assertThat(tgi.stats().running()).isEqualTo(tgi.newest().running());
      assertThat(tgi.stats().waiting()).isEqualTo(tgi.newest().waiting());
      assertLatency("E2E", tgi.stats().e2e(), tgi, Kind.E2E, TgiWriter.DURATION);

      Run llama = run(d.replica("llamacpp"));
      assertThat(llama.stats().running()).isEqualTo(llama.newest().running());
      assertThat(llama.stats().waiting()).isEqualTo(llama.newest().waiting());
      assertThat(llama.stats().kvCacheUsage()).as("current llama.cpp has no KV gauge").isNull();
      assertThat(llama.stats().e2e()).satisfiesAnyOf(l -> assertThat(l).isNull(), l -> assertThat(l.p50()).isNull());
      assertThat(llama.stats().generationTokensPerSecond()).isPositive();
    }
  }

  @Test
  void trtllm_windowedStatisticsMatchTheTruth() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 48, Duration.ofSeconds(120))) {
      Run run = run(d.replica("trtllm"));
      ServerStats s = run.stats();
      assertThat(s.running()).isEqualTo(run.newest().running());
      assertThat(s.waiting()).isEqualTo(run.newest().waiting());
      assertThat(s.kvCacheUsage()).isCloseTo(run.model().engines().get(0).kvUsage(), offset(1e-12));
      assertLatency("TTFT", s.ttft(), run, Kind.TTFT, VllmWriter.TTFT);
      assertLatency("E2E", s.e2e(), run, Kind.E2E, VllmWriter.REQUEST);
      assertLatency("queue", s.queue(), run, Kind.QUEUE, VllmWriter.REQUEST);
      assertThat(s.requestsPerSecond()).isPositive();
      assertThat(s.promptTokensPerSecond()).isPositive();
      assertThat(s.prefixHitRatio()).isBetween(0.0, 1.0);
      // TensorRT-LLM exports no generation-token and no preemption counter: N/A, not 0.
      assertThat(s.generationTokensPerSecond()).isNull();
      assertThat(s.preemptionsPerSecond()).isNull();
    }
  }

  @Test
  void vllm_openMetricsAndTextGiveTheSameStatistics() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 46, Duration.ofSeconds(60))) {
      Replica r = d.replica("vllm-dp2");
      ServerWindow text = new ServerWindow(WINDOW, 100);
      ServerWindow om = new ServerWindow(WINDOW, 100);
      for (int i = 0; i < 20; i++) {
        clock.advance(INTERVAL);
        text.add(clock.nanoTime(), clock.epochNanos(), mapper.map(parser.parse(r.render())));
        om.add(clock.nanoTime(), clock.epochNanos(), mapper.map(parser.parse(r.renderOpenMetrics())));
      }
      ServerStats fromText = WindowStatistics.compute(text, null);
      assertThat(fromText.ttft().count()).isPositive();
      assertThat(WindowStatistics.compute(om, null)).isEqualTo(fromText);
    }
  }

  @Test
  void restart_startsTheWindowOverWithoutNegativeRates() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 45, Duration.ofSeconds(90))) {
      Replica r = d.replica("vllm-dp2");
      ServerWindow w = new ServerWindow(WINDOW, 100);
      List<String> reasons = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        clock.advance(INTERVAL);
        if (i == 15) {
          r.restart();
        }
        String reason = w.add(clock.nanoTime(), clock.epochNanos(), mapper.map(parser.parse(r.render())));
        if (reason != null) {
          reasons.add(reason);
        }
        ServerStats s = WindowStatistics.compute(w, null);
        if (s.requestsPerSecond() != null) {
          assertThat(s.requestsPerSecond()).isNotNegative();
          assertThat(s.generationTokensPerSecond()).isNotNegative();
        }
      }
      assertThat(reasons).hasSize(1);
      assertThat(reasons.get(0)).contains("went backwards");
    }
  }

  private Run run(Replica r) throws Exception {
    ServerWindow w = new ServerWindow(WINDOW, 1000);
    List<Truth> truths = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      clock.advance(INTERVAL);
      w.add(clock.nanoTime(), clock.epochNanos(), mapper.map(parser.parse(r.render())));
      truths.add(Truths.of(r));
    }
    long oldestNanos = w.nanos(0);
    Truth oldest = truths.stream().filter(t -> t.nowNanos() == oldestNanos).findFirst().orElseThrow();
    Truth newest = truths.get(truths.size() - 1);
    return new Run(WindowStatistics.compute(w, null), oldest, newest, r.model().stats());
  }

  private static void assertRates(ServerStats s, Run run) {
    double seconds = (run.newest().nowNanos() - run.oldest().nowNanos()) / 1e9;
    Truth.Counters a = run.oldest().counters();
    Truth.Counters b = run.newest().counters();
    assertThat(s.requestsPerSecond()).isCloseTo((b.completed() - a.completed()) / seconds, offset(1e-6));
    assertThat(s.generationTokensPerSecond()).isCloseTo((b.generationTokens() - a.generationTokens()) / seconds, offset(1e-6));
    assertThat(s.promptTokensPerSecond()).isCloseTo((b.promptTokens() - a.promptTokens()) / seconds, offset(1e-6));
    assertThat(s.preemptionsPerSecond()).isCloseTo((b.preemptions() - a.preemptions()) / seconds, offset(1e-6));
  }

  /**
   * The agent's estimate interpolates inside the bucket that holds the quantile, so it must lie
   * in the bucket of the true quantile (or, at a bucket's edge, the neighbouring one).
   */
  private static void assertLatency(String what, LatencyStats l, Run run, Kind kind, double[] bounds) {
    long from = run.oldest().nowNanos();
    long to = run.newest().nowNanos();
    double[] truth = run.newest().values(kind, from, to);
    assertThat(truth.length).as(what + " true observations").isGreaterThan(20);
    assertThat(l).as(what).isNotNull();
    if (kind != Kind.ITL) {
      // ITL truth is attributed to finish times, the histogram counts tokens as produced
      assertThat(l.count()).as(what + " count").isEqualTo(truth.length);
      double mean = java.util.Arrays.stream(truth).average().orElseThrow();
      assertThat(l.mean()).as(what + " mean").isCloseTo(mean, offset(1e-9 + mean * 1e-9));
    }
    for (double q : new double[] {0.5, 0.99}) {
      Double estimate = q == 0.5 ? l.p50() : l.p99();
      double lo = lower(bounds, Truth.quantile(truth, Math.max(0, q - 0.03)));
      double hi = upper(bounds, Truth.quantile(truth, Math.min(1, q + 0.005)));
      assertThat(estimate).as(what + " p" + (int) (q * 100) + " in [" + lo + ", " + hi + "]").isBetween(lo, hi);
    }
  }

  private static double lower(double[] bounds, double v) {
    double lo = 0;
    for (double b : bounds) {
      if (b < v) {
        lo = b;
      }
    }
    return lo;
  }

  private static double upper(double[] bounds, double v) {
    for (double b : bounds) {
      if (b >= v) {
        return b;
      }
    }
    return bounds[bounds.length - 1];
  }
}
