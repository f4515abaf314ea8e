package dev.gputop.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import dev.gputop.testing.ManualClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadModelTest {

  private final ManualClock clock = new ManualClock(Fixtures.T0);

  @Test
  void vllmHistograms_equalTheTrueObservations() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 21, Duration.ofSeconds(150))) {
      Replica r = d.replica("vllm-dp2");
      String text = r.render();
      Truth t = Truths.of(r);
      MiniExposition e = MiniExposition.parse(text);
      assertThat(t.counters().completed()).isGreaterThan(500);
      for (int engine = 0; engine < 2; engine++) {
        String eng = Integer.toString(engine);
        assertHistogram(e, "vllm:time_to_first_token_seconds", t.total(Kind.TTFT, engine), "engine", eng);
        assertHistogram(e, "vllm:inter_token_latency_seconds", t.total(Kind.ITL, engine), "engine", eng);
        assertHistogram(e, "vllm:time_per_output_token_seconds", t.total(Kind.ITL, engine), "engine", eng);
        assertHistogram(e, "vllm:e2e_request_latency_seconds", t.total(Kind.E2E, engine), "engine", eng);
        assertHistogram(e, "vllm:request_queue_time_seconds", t.total(Kind.QUEUE, engine), "engine", eng);
        Truth.Counters c = t.counters(engine);
        assertThat(e.value("vllm:generation_tokens_total", "engine", eng)).isEqualTo(c.generationTokens());
        assertThat(e.value("vllm:prompt_tokens_total", "engine", eng)).isEqualTo(c.promptTokens());
        assertThat(e.value("vllm:prefix_cache_queries_total", "engine", eng)).isEqualTo(c.prefixQueries());
        assertThat(e.value("vllm:prefix_cache_hits_total", "engine", eng)).isEqualTo(c.prefixHits());
        assertThat(e.value("vllm:num_preemptions_total", "engine", eng)).isEqualTo(c.preemptions());
        assertThat(e.sum("vllm:request_success_total", "engine", eng)).isEqualTo(c.completed());
      }
      // every true request is counted: the E2E count is the number of completed requests
      assertThat(e.sum("vllm:e2e_request_latency_seconds_count")).isEqualTo(t.requests().size());
      double e2eSum = t.requests().stream().mapToDouble(CompletedRequest::e2eSeconds).sum();
      assertThat(e.sum("vllm:e2e_request_latency_seconds_sum")).isCloseTo(e2eSum, offset(1e-6 * e2eSum));
      long itlGaps = t.requests().stream().mapToLong(CompletedRequest::itlObservations).sum();
      assertThat(t.total(Kind.ITL).count()).isGreaterThanOrEqualTo(itlGaps); // plus those of running requests
      assertThat(e.sum("vllm:num_requests_running")).isEqualTo(t.running());
      assertThat(e.sum("vllm:num_requests_waiting")).isEqualTo(t.waiting());
    }
  }

  @Test
  void otherEngines_histogramsEqualTheTrueObservations() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 22, Duration.ofSeconds(150))) {
      Replica s = d.replica("sglang-tp2");
      MiniExposition se = MiniExposition.parse(s.render());
      Truth st = Truths.of(s);
      assertHistogram(se, "sglang:time_to_first_token_seconds", st.total(Kind.TTFT));
      assertHistogram(se, "sglang:inter_token_latency_seconds", st.total(Kind.ITL));
      assertHistogram(se, "sglang:e2e_request_latency_seconds", st.total(Kind.E2E));
      assertHistogram(se, "sglang:queue_time_seconds", st.total(Kind.QUEUE), "tp_rank", "0");
      assertThat(se.value("sglang:num_requests_total")).isEqualTo(st.counters().completed());
      long cached = st.requests().stream().mapToLong(CompletedRequest::cachedTokens).sum();
      assertThat(se.value("sglang:cached_tokens_total")).isEqualTo(cached);

      Replica g = d.replica("tgi");
      MiniExposition ge = MiniExposition.parse(g.render());
      Truth gt = Truths.of(g);
      assertHistogram(ge, "tgi_request_duration", gt.total(Kind.E2E));
      assertHistogram(ge, "tgi_request_queue_duration", gt.total(Kind.QUEUE));
      assertHistogram(ge, "tgi_request_mean_time_per_token_duration", gt.total(Kind.TPOT));
      assertThat(ge.value("tgi_request_success")).isEqualTo(gt.counters().completed());
      assertThat(ge.value("tgi_request_count")).isEqualTo(gt.counters().arrived());
      assertThat(ge.value("tgi_request_generated_tokens_sum"))
          .isEqualTo(gt.requests().stream().mapToLong(CompletedRequest::generationTokens).sum());
    }
  }

  @Test
  void latencies_fallInRealisticRanges() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 23, Duration.ofSeconds(600))) {
      for (Replica r : d.replicas()) {
        Truth t = Truths.of(r);
        long now = t.nowNanos();
        double[] ttft = t.values(Kind.TTFT, now - 600_000_000_000L, now);
        double[] itl = t.values(Kind.ITL, now - 600_000_000_000L, now);
        assertThat(ttft.length).as(r.name()).isGreaterThan(50);
        assertThat(Truth.quantile(ttft, 0.5)).as(r.name() + " TTFT p50").isBetween(0.03, 1.5);
        assertThat(Truth.quantile(itl, 0.5)).as(r.name() + " ITL p50").isBetween(0.01, 0.06);
        for (CompletedRequest c : t.requests()) {
          assertThat(c.e2eSeconds()).isGreaterThanOrEqualTo(c.ttftSeconds());
          assertThat(c.ttftSeconds()).isGreaterThanOrEqualTo(c.queueSeconds());
          assertThat(c.queueSeconds()).isGreaterThanOrEqualTo(0);
        }
      }
    }
  }

  @Test
  void kvCache_fillsWhileRequestsWaitSometimes() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 1, Duration.ZERO)) {
      Replica r = d.replica("vllm-dp2");
      boolean fullWhileWaiting = false;
      for (int i = 0; i < 200 && !(fullWhileWaiting && Truths.of(r).counters().preemptions() > 0); i++) {
        clock.advance(Duration.ofSeconds(3));
        MiniExposition e = MiniExposition.parse(r.render());
        for (String eng : new String[] {"0", "1"}) {
          if (e.value("vllm:kv_cache_usage_perc", "engine", eng) >= 0.95
              && e.value("vllm:num_requests_waiting", "engine", eng) > 0) {
            fullWhileWaiting = true;
          }
        }
      }
      assertThat(fullWhileWaiting).isTrue();
      assertThat(Truths.of(r).counters().preemptions()).isPositive();
    }
  }

  @Test
  void counters_neverGoBackwardsExceptAcrossARestart() throws Exception {
    try (DemoReplicas d = Truths.recorded(DemoReplicas.builder().seed(25).clock(clock).start())) {
      for (Replica r : d.replicas()) {
        Map<String, Double> last = new HashMap<>();
        Map<String, Double> lastBeforeRestart = new HashMap<>();
        int restarts = 0;
        boolean sawDrop = false;
        for (int i = 0; i < 80; i++) {
          clock.advance(Duration.ofSeconds(5));
          if (i == 40) {
            r.restart();
          }
          MiniExposition e = MiniExposition.parse(r.render());
          int nowRestarts = Truths.of(r).restarts().size();
          boolean restarted = nowRestarts != restarts;
          restarts = nowRestarts;
          if (restarted) {
            // families that only appear once used may be absent right after the restart
            lastBeforeRestart.clear();
            lastBeforeRestart.putAll(last);
            last.clear();
          }
          for (MiniExposition.Family f : e.families.values()) {
            if (!isCumulative(f) || f.name().equals("llamacpp:n_busy_slots_per_decode")) {
              continue;
            }
            for (MiniExposition.Sample s : f.samples()) {
              if (s.labels().containsKey("quantile")) {
                continue;
              }
              String key = s.name() + s.labels();
              Double prev = last.put(key, s.value());
              if (prev != null) {
                assertThat(s.value()).as(r.name() + " " + key + " went backwards without a restart").isGreaterThanOrEqualTo(prev);
              }
              Double before = lastBeforeRestart.remove(key);
              if (before != null && s.value() < before) {
                sawDrop = true;
              }
            }
          }
        }
        assertThat(restarts).as(r.name()).isGreaterThanOrEqualTo(1);
        assertThat(sawDrop).as(r.name() + " counters reset by the restart").isTrue();
      }
    }
  }

  @Test
  void restart_setsCountersToZeroAndMovesCreatedTimes() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 26, Duration.ofSeconds(60))) {
      Replica r = d.replica("vllm-dp2");
      double createdBefore = MiniExposition.parse(r.render()).value("vllm:prompt_tokens_created", "engine", "0");
      clock.advance(Duration.ofSeconds(1));
      r.restart();
      MiniExposition e = MiniExposition.parse(r.render());
      assertThat(e.sum("vllm:prompt_tokens_total")).isZero();
      assertThat(e.sum("vllm:e2e_request_latency_seconds_count")).isZero();
      assertThat(e.value("vllm:prompt_tokens_created", "engine", "0")).isGreaterThan(createdBefore);
      assertThat(Truths.of(r).restarts()).hasSize(1);
      assertThat(Truths.of(r).total(Kind.TTFT).count()).isZero();
    }
  }

  @Test
  void listen_afterTheModelHasRun_isRefusedSoNoTruthMissesEvents() throws Exception {
    try (DemoReplicas d = DemoReplicas.builder().seed(28).clock(clock).restarts(false).start()) {
      Replica r = d.replica("tgi");
      assertThatThrownBy(() -> Truths.of(r)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Truths.recorded");
      clock.advance(Duration.ofSeconds(1));
      r.render();

      assertThatThrownBy(() -> Truths.recorded(r.model())).isInstanceOf(IllegalStateException.class)
          .hasMessage("the model has already run: listen before the first read");
      assertThat(r.model().listener()).isSameAs(LoadListener.NONE);
    }
  }

  @Test
  void sameSeedAndClock_giveTheSameServers() throws Exception {
    ManualClock a = new ManualClock(Fixtures.T0);
    ManualClock b = new ManualClock(Fixtures.T0);
    try (DemoReplicas da = Fixtures.replicas(a, 27, Duration.ofSeconds(45));
        DemoReplicas db = Fixtures.replicas(b, 27, Duration.ZERO)) {
      // read b often along the way: lazy stepping must not change the outcome
      for (int i = 0; i < 9; i++) {
        b.advance(Duration.ofSeconds(5));
        db.replica("vllm-dp2").render();
      }
      for (String name : DemoReplicas.NAMES) {
        assertThat(db.replica(name).render()).as(name).isEqualTo(da.replica(name).render());
      }
    }
  }

  private static boolean isCumulative(MiniExposition.Family f) {
    return f.type().equals("counter") || f.type().equals("histogram") || f.type().equals("summary");
  }

  private static void assertHistogram(MiniExposition e, String name, Truth.Total truth, String... labels) {
    assertThat(truth.count()).as(name + " observations").isPositive();
    assertThat(e.sum(name + "_count", labels)).as(name + "_count").isEqualTo(truth.count());
    assertThat(e.sum(name + "_sum", labels)).as(name + "_sum").isCloseTo(truth.sum(), offset(1e-9 * truth.sum() + 1e-9));
  }
}
