package dev.gputop.agent.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The Kubernetes labels of /metrics under their Prometheus names. */
class PrometheusLabelsTest {

  private static String rename(String exposition) {
    return new String(PrometheusLabels.kubernetesShortNames(exposition.getBytes(StandardCharsets.UTF_8)),
        StandardCharsets.UTF_8);
  }

  @Test
  void kubernetesShortNames_renamesLabelNamesOnly() {
    String in = "# TYPE gputop_inference_requests_running gauge\n"
        + "gputop_inference_requests_running{engine=\"vllm\",k8s_container_name=\"vllm\",k8s_namespace_name=\"llm\","
        + "k8s_pod_name=\"chat-7f9c\",k8s_pod_uid=\"4415\",server=\"a,k8s_pod_name=\\\"x\\\"\"} 3\n"
        + "gputop_gpu_process_memory_usage_bytes{k8s_namespace_name=\"llm\"} 1\n"
        + "gen_ai_server_time_to_first_token_seconds_bucket{engine=\"vllm\",k8s_container_name=\"vllm\","
        + "k8s_namespace_name=\"llm\",k8s_pod_name=\"chat-7f9c\",server=\"s\",le=\"0.1\"} 2\n";

    assertThat(rename(in)).isEqualTo("# TYPE gputop_inference_requests_running gauge\n"
        + "gputop_inference_requests_running{engine=\"vllm\",container=\"vllm\",namespace=\"llm\","
        + "pod=\"chat-7f9c\",k8s_pod_uid=\"4415\",server=\"a,k8s_pod_name=\\\"x\\\"\"} 3\n"
        + "gputop_gpu_process_memory_usage_bytes{namespace=\"llm\"} 1\n"
        + "gen_ai_server_time_to_first_token_seconds_bucket{engine=\"vllm\",container=\"vllm\","
        + "namespace=\"llm\",pod=\"chat-7f9c\",server=\"s\",le=\"0.1\"} 2\n");
  }

  @Test
  void kubernetesShortNames_withoutKubernetesLabels_isTheSameBytes() {
    byte[] in = "hw_power_watts{hw_id=\"GPU-1\"} 300\n".getBytes(StandardCharsets.UTF_8);
    assertThat(PrometheusLabels.kubernetesShortNames(in)).isSameAs(in);
  }

  @Test
  void renaming_splitAnywhere_writesWhatTheWholeArrayGives() throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 400; i++) { // several of the stream's 8 KB buffers
      b.append("gputop_inference_up{engine=\"vllm\",k8s_container_name=\"c").append(i)
          .append("\",k8s_namespace_name=\"llm\",k8s_pod_name=\"p").append(i)
          .append("\",k8s_pod_uid=\"u\",server=\"s").append(i).append("\"} 1\n");
    }
    byte[] in = b.toString().getBytes(StandardCharsets.UTF_8);
    byte[] whole = PrometheusLabels.kubernetesShortNames(in);
    assertThat(whole).isEqualTo(replacedAsStrings(b.toString()).getBytes(StandardCharsets.UTF_8));
    assertThat(new String(whole, StandardCharsets.UTF_8))
        .contains("{engine=\"vllm\",container=\"c399\",namespace=\"llm\",pod=\"p399\",k8s_pod_uid=")
        .doesNotContain("k8s_pod_name", "k8s_namespace_name", "k8s_container_name");
    for (int chunk : new int[] {1, 7, 20, 21, 22, 8191, 8192, 8193}) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (OutputStream renaming = new RenamingStream(out)) {
        for (int off = 0; off < in.length; off += chunk) {
          int n = Math.min(chunk, in.length - off);
          if (n == 1) {
            renaming.write(in[off]);
          } else {
            renaming.write(in, off, n);
          }
          if (off % 5 == 0) {
            renaming.flush();
          }
        }
      }
      assertThat(out.toByteArray()).as("written %d bytes at a time", chunk).isEqualTo(whole);
    }
  }

  /** The renaming as String replacements, as /metrics did it on the whole text before it streamed. */
  private static String replacedAsStrings(String text) {
    String[][] renames = {
      {"k8s_namespace_name=\"", "namespace=\""}, {"k8s_pod_name=\"", "pod=\""},
      {"k8s_container_name=\"", "container=\""},
    };
    for (String[] r : renames) {
      text = text.replace("{" + r[0], "{" + r[1]).replace("," + r[0], "," + r[1]);
    }
    return text;
  }

  @Test
  void renaming_nameCutAtTheEnd_isLeftAsItIs() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream renaming = new RenamingStream(out)) {
      renaming.write("x{k8s_pod_name=\"a\"} 1\ny{k8s_pod_na".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("x{pod=\"a\"} 1\ny{k8s_pod_na");
  }

  private static MetricSnapshots gauge(String help, Labels labels) {
    return MetricSnapshots.of(GaugeSnapshot.builder().name("gputop_inference_up").help(help)
        .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels).value(1).build())
        .build());
  }

  @Test
  void mayNeedRenaming_onlyWithAKubernetesLabelNameOrHelpText() {
    assertThat(LibraryExposition.mayNeedRenaming(gauge("up", Labels.of("server", "k8s_pod_name=\"x\""))))
        .isFalse();
    assertThat(LibraryExposition.mayNeedRenaming(gauge("up", Labels.of("server", "s", "k8s_pod_name", "p"))))
        .isTrue();
    assertThat(LibraryExposition.mayNeedRenaming(gauge("see {k8s_pod_name=\"p\"}", Labels.of("server", "s"))))
        .isTrue();
  }
}
