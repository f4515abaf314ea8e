package dev.gputop.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.ManualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LlamaCppWriterTest {

  private final ManualClock clock = new ManualClock(Fixtures.T0);

  @Test
  void write_isTheCurrentBuildsFormat() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 14, Duration.ofSeconds(120))) {
      String text = d.replica("llamacpp").render();
      MiniExposition e = MiniExposition.parse(text);
      assertThat(e.order).containsExactly(
          "llamacpp:prompt_tokens_total",
          "llamacpp:prompt_seconds_total",
          "llamacpp:tokens_predicted_total",
          "llamacpp:tokens_predicted_seconds_total",
          "llamacpp:n_decode_total",
          "llamacpp:n_busy_slots_per_decode",
          "llamacpp:n_tokens_max",
          "llamacpp:prompt_tokens_seconds",
          "llamacpp:predicted_tokens_seconds",
          "llamacpp:requests_processing",
          "llamacpp:requests_deferred");
      assertThat(e.samples()).allSatisfy(s -> assertThat(s.labels()).isEmpty());
      assertThat(e.family("llamacpp:n_busy_slots_per_decode").type()).isEqualTo("counter");
      // %g style: at most six significant digits, never a trailing ".0"
      for (String line : text.split("\n")) {
        if (!line.startsWith("#")) {
          assertThat(line).matches("llamacpp:\\w+ (inf|-?\\d+(\\.\\d+)?(e[+-]\\d\\d)?)");
          assertThat(line).doesNotEndWith(".0");
          String digits = line.substring(line.indexOf(' ') + 1).replaceAll("e.*", "").replaceAll("[^0-9]", "").replaceFirst("^0+", "");
          assertThat(digits.length()).as(line).isLessThanOrEqualTo(6);
        }
      }
      assertThat(e.value("llamacpp:requests_processing")).isBetween(0.0, 4.0);
    }
  }

  @Test
  void write_legacyBuild_hasKvCacheGauges() throws Exception {
    try (DemoReplicas d = Truths.recorded(DemoReplicas.builder().seed(14).clock(clock).restarts(false).llamaCppLegacyKvCache(true).start())) {
      clock.advance(Duration.ofSeconds(60));
      MiniExposition e = MiniExposition.parse(d.replica("llamacpp").render());
      assertThat(e.order).contains("llamacpp:kv_cache_usage_ratio", "llamacpp:kv_cache_tokens")
          .doesNotContain("llamacpp:n_tokens_max");
      assertThat(e.value("llamacpp:kv_cache_usage_ratio")).isBetween(0.0, 1.0);
    }
  }

  @Test
  void write_throughputGaugesStartOverOnEveryRead() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 14, Duration.ofSeconds(120))) {
      Replica r = d.replica("llamacpp");
      MiniExposition first = MiniExposition.parse(r.render());
      assertThat(first.value("llamacpp:predicted_tokens_seconds")).isPositive();
      MiniExposition second = MiniExposition.parse(r.render());
      assertThat(second.value("llamacpp:predicted_tokens_seconds")).isZero();
      assertThat(second.value("llamacpp:tokens_predicted_total")).isEqualTo(first.value("llamacpp:tokens_predicted_total"));
    }
  }

  @Test
  void write_countsTokensOnlyWhenRequestsFinish() throws Exception {
    try (DemoReplicas d = Fixtures.replicas(clock, 14, Duration.ofSeconds(120))) {
      Replica r = d.replica("llamacpp");
      MiniExposition e = MiniExposition.parse(r.render());
      long finishedGenerated = Truths.of(r).requests().stream().mapToLong(CompletedRequest::generationTokens).sum();
      assertThat((long) e.value("llamacpp:tokens_predicted_total")).isEqualTo(finishedGenerated);
      assertThat(Truths.of(r).counters().generationTokens()).isGreaterThanOrEqualTo(finishedGenerated);
      List<CompletedRequest> done = Truths.of(r).requests();
      long millis = done.stream().mapToLong(c -> (long) Math.floor(c.decodeSeconds() * 1000)).sum();
      assertThat(e.value("llamacpp:tokens_predicted_seconds_total")).isCloseTo(millis / 1e3, org.assertj.core.data.Offset.offset(millis / 1e3 * 1e-5));
    }
  }
}
