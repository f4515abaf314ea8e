package dev.gputop.agent.prometheus;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The Kubernetes labels of /metrics under the names Prometheus users join on: OTLP carries the
 * semantic-convention attributes {@code k8s.namespace.name}, {@code k8s.pod.name} and {@code
 * k8s.container.name}, which the exporter writes as {@code k8s_namespace_name} and so on; on
 * /metrics they are {@code namespace}, {@code pod} and {@code container}, the names kube-state-metrics
 * and cAdvisor use (docs/metrics.md). {@code k8s.pod.uid} stays {@code k8s_pod_uid}.
 *
 * <p>Here the renaming is of a whole text ({@link #kubernetesShortNames}); the tests'
 * {@code RenamingStream} does the same as a stream, which the exposition /metrics served before
 * the agent had its own writer was written through (the tests' {@code LibraryExposition}, the
 * reference that writer is checked against). The agent's writer ({@link PrometheusTextWriter})
 * renames as it writes and gives the same bytes, these rules included (a HELP text or a label
 * value ending in {@code ,k8s_pod_name=} is renamed too, and only where a label name or HELP text
 * has {@code k8s_} in it); it passes only a HELP line through {@link #kubernetesShortNames}.
 * Stateless.
 */
final class PrometheusLabels {

  /** The label names renamed, as the exporter writes them, and (same index) what they become. */
  static final String[] LONG = {"k8s_namespace_name", "k8s_pod_name", "k8s_container_name"};
  static final String[] SHORT = {"namespace", "pod", "container"};

  /** The same as they are found and written in a text: {@code name="}. */
  static final byte[][] FROM = quoted(LONG);
  static final byte[][] TO = quoted(SHORT);

  /** A label name follows one of these, and a renamed name is looked for only there. */
  static boolean precedesLabelName(byte b) {
    return b == '{' || b == ',';
  }

  private PrometheusLabels() {}

  /** The name a label is written under on /metrics: its short name, or itself. */
  static String shortName(String labelName) {
    for (int i = 0; i < LONG.length; i++) {
      if (labelName.equals(LONG[i])) {
        return SHORT[i];
      }
    }
    return labelName;
  }

  /**
   * Renames the labels in an exposition (text or OpenMetrics); the same array when there is none.
   * Only label names are touched: a name follows {@code {} or {@code ,} and is followed by {@code
   * ="}, which a label value cannot contain unescaped.
   */
  static byte[] kubernetesShortNames(byte[] exposition) {
    if (!new String(exposition, StandardCharsets.ISO_8859_1).contains("k8s_")) {
      return exposition;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(exposition.length);
    int start = 0;
    int i = 0;
    while (i < exposition.length) {
      int r = precedesLabelName(exposition[i]) ? renameAt(exposition, i + 1, exposition.length) : -1;
      if (r >= 0) {
        out.write(exposition, start, i + 1 - start);
        out.write(TO[r], 0, TO[r].length);
        i += 1 + FROM[r].length;
        start = i;
      } else {
        i++;
      }
    }
    out.write(exposition, start, exposition.length - start);
    return out.toByteArray();
  }

  /** Which name to rename starts at {@code at}, all of it before {@code len}; -1 for none. */
  static int renameAt(byte[] buf, int at, int len) {
    for (int r = 0; r < FROM.length; r++) {
      byte[] from = FROM[r];
      if (at + from.length > len) {
        continue;
      }
      boolean same = true;
      for (int j = 0; j < from.length && same; j++) {
        same = buf[at + j] == from[j];
      }
      if (same) {
        return r;
      }
    }
    return -1;
  }

  private static byte[][] quoted(String[] names) {
    byte[][] out = new byte[names.length][];
    for (int i = 0; i < names.length; i++) {
      out[i] = (names[i] + "=\"").getBytes(StandardCharsets.US_ASCII);
    }
    return out;
  }
}
