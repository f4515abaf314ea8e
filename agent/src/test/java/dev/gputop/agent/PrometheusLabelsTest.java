package dev.gputop.agent;

import static org.assertj.core.api.Assertions.assertThat;

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
}
