package dev.gputop.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gputop.testing.ManualClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DemoReplicasTest {

  private final ManualClock clock = new ManualClock(Fixtures.T0);
  private final HttpClient http = HttpClient.newHttpClient();
  private DemoReplicas demo;

  @BeforeEach
  void start() throws Exception {
    demo = Fixtures.replicas(clock, 31, Duration.ofSeconds(60));
  }

  @AfterEach
  void stop() {
    demo.close();
  }

  @Test
  void replicas_areTheFiveEnginesOnLoopback() {
    assertThat(demo.replicas()).extracting(Replica::name)
        .containsExactly("vllm-dp2", "sglang-tp2", "tgi", "llamacpp", "trtllm");
    assertThat(demo.replicas()).extracting(Replica::engine)
        .containsExactly("vllm", "sglang", "tgi", "llamacpp", "trtllm");
    assertThat(demo.replicas()).allSatisfy(r -> {
      assertThat(r.url().getHost()).isEqualTo("127.0.0.1");
      // trtllm-serve serves the text format on /prometheus/metrics (its /metrics is JSON).
      assertThat(r.url().getPath()).isEqualTo(r.engine().equals("trtllm") ? "/prometheus/metrics" : "/metrics");
    });
    assertThat(demo.replicas()).extracting(r -> r.url().getPort()).doesNotHaveDuplicates();
    assertThatThrownBy(() -> demo.replica("ollama")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void get_answersEachEnginesExpositionOverASocket() throws Exception {
    Map<String, String> contentTypes = Map.of(
        "vllm", "text/plain; version=0.0.4; charset=utf-8",
        "sglang", "text/plain; version=0.0.4; charset=utf-8",
        "tgi", "text/plain; charset=utf-8",
        "llamacpp", "text/plain; version=0.0.4",
        "trtllm", "text/plain; version=0.0.4; charset=utf-8");
    Map<String, String> firstFamily = Map.of(
        "vllm", "python_gc_objects_collected_total",
        "sglang", "sglang:num_running_reqs",
        "tgi", "tgi_",
        "llamacpp", "llamacpp:prompt_tokens_total",
        "trtllm", "trtllm_request_success_total");
    for (Replica r : demo.replicas()) {
      HttpResponse<String> resp = get(r.url(), "text/plain;version=0.0.4");
      assertThat(resp.statusCode()).as(r.name()).isEqualTo(200);
      assertThat(resp.headers().firstValue("Content-Type")).as(r.name()).hasValue(contentTypes.get(r.engine()));
      assertThat(resp.body()).as(r.name()).startsWith("# HELP " + firstFamily.get(r.engine()));
      MiniExposition.parse(resp.body());
    }
  }

  @Test
  void get_acceptingOpenMetrics_vllmAnswersOpenMetricsOthersText() throws Exception {
    String accept = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5";
    HttpResponse<String> vllm = get(demo.replica("vllm-dp2").url(), accept);
    assertThat(vllm.headers().firstValue("Content-Type")).hasValue("application/openmetrics-text; version=1.0.0; charset=utf-8");
    assertThat(vllm.body()).endsWith("# EOF\n");
    HttpResponse<String> text = get(demo.replica("vllm-dp2").url(), "text/plain;version=0.0.4");
    assertThat(text.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
    assertThat(text.body()).doesNotContain("# EOF");
    HttpResponse<String> tgi = get(demo.replica("tgi").url(), accept);
    assertThat(tgi.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
  }

  @Test
  void get_llamaCppSendsItsStartHeader() throws Exception {
    HttpResponse<String> resp = get(demo.replica("llamacpp").url(), "*/*");
    assertThat(resp.headers().firstValue("Process-Start-Time-Unix")).hasValueSatisfying(v -> assertThat(v).matches("\\d+"));
  }

  @Test
  void get_metricsDisabled_llamaCppAnswers501Json() throws Exception {
    Replica llama = demo.replica("llamacpp");
    llama.setMetricsEnabled(false);
    HttpResponse<String> resp = get(llama.url(), "*/*");
    assertThat(resp.statusCode()).isEqualTo(501);
    assertThat(resp.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
    assertThat(resp.body()).contains("\"code\":501").contains("not_supported_error");
    llama.setMetricsEnabled(true);
    assertThat(get(llama.url(), "*/*").statusCode()).isEqualTo(200);
  }

  @Test
  void get_otherPath_is404() throws Exception {
    URI other = demo.replica("tgi").url().resolve("/health-check-that-does-not-exist");
    assertThat(get(other, "*/*").statusCode()).isEqualTo(404);
  }

  @Test
  void get_countersMoveAsTheClockAdvances() throws Exception {
    Replica vllm = demo.replica("vllm-dp2");
    double before = MiniExposition.parse(get(vllm.url(), "*/*").body()).sum("vllm:generation_tokens_total");
    clock.advance(Duration.ofSeconds(10));
    double after = MiniExposition.parse(get(vllm.url(), "*/*").body()).sum("vllm:generation_tokens_total");
    assertThat(after).isGreaterThan(before);
  }

  @Test
  void scheduledRestart_dropsConnectionsForAWhileThenCountsFromZero() throws Exception {
    ManualClock c = new ManualClock(Fixtures.T0);
    try (DemoReplicas d = Truths.recorded(DemoReplicas.builder().seed(32).clock(c).meanSecondsBetweenRestarts(1).start())) {
      Replica vllm = d.replica("vllm-dp2");
      c.advance(Duration.ofSeconds(110));
      double before = MiniExposition.parse(get(vllm.url(), "*/*").body()).sum("vllm:generation_tokens_total");
      while (Truths.of(vllm).restarts().isEmpty()) {
        c.advance(Duration.ofMillis(500));
      }
      assertThat(vllm.model().isDown()).isTrue();
      assertThatThrownBy(() -> get(vllm.url(), "*/*")).isInstanceOf(java.io.IOException.class);
      c.advance(Duration.ofSeconds(12));
      assertThat(vllm.model().isDown()).isFalse();
      HttpResponse<String> resp = get(vllm.url(), "*/*");
      assertThat(resp.statusCode()).isEqualTo(200);
      double after = MiniExposition.parse(resp.body()).sum("vllm:generation_tokens_total");
      assertThat(after).isLessThan(before);
    }
  }

  @Test
  void close_stopsListeningAndIsIdempotent() throws Exception {
    URI url = demo.replica("vllm-dp2").url();
    demo.close();
    demo.close();
    assertThatThrownBy(() -> get(url, "*/*")).isInstanceOf(java.io.IOException.class);
  }

  private HttpResponse<String> get(URI url, String accept) throws Exception {
    HttpRequest req = HttpRequest.newBuilder(url).header("Accept", accept).timeout(Duration.ofSeconds(5)).GET().build();
    return http.send(req, HttpResponse.BodyHandlers.ofString());
  }
}
