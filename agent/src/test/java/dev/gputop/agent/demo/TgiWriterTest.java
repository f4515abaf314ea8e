package dev.gputop.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TgiWriterTest {

  private final ManualClock clock = new ManualClock(Fixtures.T0);
  private DemoReplicas demo;
  private Replica tgi;

  @BeforeEach
  void start() throws Exception {
    demo = Fixtures.replicas(clock, 13, Duration.ofSeconds(300));
    tgi = demo.replica("tgi");
  }

  @AfterEach
  void stop() {
    demo.close();
  }

  @Test
  void write_hasTgiQuirks() {
    String text = tgi.render();
    MiniExposition e = MiniExposition.parse(text);
    assertThat(e.order).contains("tgi_request_success", "tgi_request_count", "tgi_request_failure",
        "tgi_queue_size", "tgi_batch_current_size", "tgi_request_duration", "tgi_request_queue_duration",
        "tgi_request_mean_time_per_token_duration", "tgi_request_input_length",
        "tgi_request_generated_tokens", "tgi_request_skipped_tokens", "tgi_batch_inference_duration");
    assertThat(e.order).noneMatch(n -> n.endsWith("_total") || n.endsWith("_created"));
    assertThat(e.order).noneMatch(n -> n.contains("first_token") || n.contains("kv_cache"));
    assertThat(e.family("tgi_request_success").type()).isEqualTo("counter");
    assertThat(e.family("tgi_request_failure").help()).isNull();
    assertThat(e.family("tgi_request_failure").samples().get(0).labels()).containsEntry("err", "validation");
    assertThat(e.family("tgi_batch_max_total_tokens").help()).isNull();
    assertThat(e.family("tgi_request_skipped_tokens").type()).isEqualTo("summary");
    assertThat(e.family("tgi_request_duration").help()).isEqualTo("Total time spent processing the request");
    // a blank line after every family, and _sum before _count
    assertThat(text).contains("tgi_request_count " + (long) e.value("tgi_request_count") + "\n\n# ");
    assertThat(text).containsPattern("tgi_request_duration_sum \\S+\ntgi_request_duration_count \\d+\n\n");
    assertThat(text).doesNotContainPattern("(?m)^tgi_request_count \\d+\\.0$");
    assertThat(tgi.contentType()).isEqualTo("text/plain; charset=utf-8");
  }

  @Test
  void write_usesTheRoutersBuckets() {
    MiniExposition e = MiniExposition.parse(tgi.render());
    List<String> duration = les(e, "tgi_request_duration");
    assertThat(duration).hasSize(36);
    assertThat(duration.get(0)).isEqualTo("0.00015000000000000001");
    assertThat(duration.get(34)).isEqualTo("145.61096060497135");
    List<String> input = les(e, "tgi_request_input_length");
    assertThat(input).hasSize(101);
    assertThat(input.get(0)).isEqualTo("40.95");
    assertThat(input.get(99)).isEqualTo("4095.0000000000005"); // (4095 / 100.0) * 100, as in Rust
    assertThat(les(e, "tgi_request_generated_tokens").get(0)).isEqualTo("40.96");
  }

  @Test
  void durationBuckets_matchTheRealCapture() throws Exception {
    String capture = Fixtures.shared("tgi/datadog-hugging-face-tgi-payload-partial.prom");
    List<String> real = les(capture, "tgi_request_inference_duration_bucket");
    List<String> ours = new ArrayList<>();
    for (double b : TgiWriter.DURATION) {
      ours.add(Fmt.rust(b));
    }
    ours.add("+Inf");
    assertThat(ours).isEqualTo(real);
  }

  @Test
  void linearBuckets_matchTheRealCapture() throws Exception {
    String capture = Fixtures.shared("tgi/datadog-hugging-face-tgi-payload-partial.prom");
    List<String> real = les(capture, "tgi_request_input_length_bucket");
    List<String> ours = new ArrayList<>();
    for (double b : TgiWriter.linear(511)) {
      ours.add(Fmt.rust(b));
    }
    ours.add("+Inf");
    assertThat(ours).isEqualTo(real);
  }

  private static List<String> les(MiniExposition e, String family) {
    return e.family(family).samples().stream()
        .filter(s -> s.name().endsWith("_bucket"))
        .map(s -> s.label("le"))
        .collect(Collectors.toList());
  }

  private static List<String> les(String text, String bucketName) {
    Matcher m = Pattern.compile("(?m)^" + bucketName + "\\{le=\"([^\"]+)\"\\}").matcher(text);
    List<String> out = new ArrayList<>();
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }
}
