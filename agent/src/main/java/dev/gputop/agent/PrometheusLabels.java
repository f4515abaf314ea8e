package dev.gputop.agent;

import java.nio.charset.StandardCharsets;

/**
 * The Kubernetes labels of /metrics under the names Prometheus users join on: OTLP carries the
 * semantic-convention attributes {@code k8s.namespace.name}, {@code k8s.pod.name} and {@code
 * k8s.container.name}, which the exporter writes as {@code k8s_namespace_name} and so on; on
 * /metrics they are {@code namespace}, {@code pod} and {@code container}, the names kube-state-metrics
 * and cAdvisor use (docs/metrics.md). {@code k8s.pod.uid} stays {@code k8s_pod_uid}. Stateless.
 */
final class PrometheusLabels {

  private static final String[][] RENAMES = {
    {"k8s_namespace_name=\"", "namespace=\""},
    {"k8s_pod_name=\"", "pod=\""},
    {"k8s_container_name=\"", "container=\""},
  };

  private PrometheusLabels() {}

  /**
   * Renames the labels in an exposition (text or OpenMetrics). Only label names are touched: a
   * name follows {@code {} or {@code ,} and is followed by {@code ="}, which a label value cannot
   * contain unescaped.
   */
  static byte[] kubernetesShortNames(byte[] exposition) {
    String text = new String(exposition, StandardCharsets.UTF_8);
    if (!text.contains("k8s_")) {
      return exposition;
    }
    for (String[] r : RENAMES) {
      text = text.replace("{" + r[0], "{" + r[1]).replace("," + r[0], "," + r[1]);
    }
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
