package dev.gputop.config;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.AttributesBuilder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Which Kubernetes pod and container an inference server or a GPU process runs in, from the pod
 * list the agent reads (docs/discovery.md). Shared by the receivers: the inference receiver finds
 * it, the NVML receiver labels the server's GPU processes with it. Immutable.
 *
 * @param namespace {@code k8s.namespace.name}
 * @param pod {@code k8s.pod.name}
 * @param container {@code k8s.container.name}, or null when the container is not in the pod's
 *     statuses yet (found through the pod UID alone)
 * @param podUid {@code k8s.pod.uid}, or null
 */
public record PodIdentity(String namespace, String pod, String container, String podUid) {

  // OpenTelemetry semantic conventions (model/k8s); Prometheus shows the first three as
  // namespace, pod and container (docs/metrics.md).
  public static final AttributeKey<String> K8S_NAMESPACE_NAME = AttributeKey.stringKey("k8s.namespace.name");
  public static final AttributeKey<String> K8S_POD_NAME = AttributeKey.stringKey("k8s.pod.name");
  public static final AttributeKey<String> K8S_CONTAINER_NAME = AttributeKey.stringKey("k8s.container.name");
  public static final AttributeKey<String> K8S_POD_UID = AttributeKey.stringKey("k8s.pod.uid");

  public PodIdentity {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(pod, "pod");
  }

  /**
   * The {@code k8s.*} attributes of this pod (those it has), by attribute name, in a fixed order:
   * the one list of a pod's attributes, used by the gauges, the {@code up} points and the
   * re-exported histograms alike (their attributes are plain strings).
   */
  public Map<String, String> attributes() {
    Map<String, String> m = new LinkedHashMap<>(4);
    m.put(K8S_NAMESPACE_NAME.getKey(), namespace);
    m.put(K8S_POD_NAME.getKey(), pod);
    if (container != null) {
      m.put(K8S_CONTAINER_NAME.getKey(), container);
    }
    if (podUid != null) {
      m.put(K8S_POD_UID.getKey(), podUid);
    }
    return Collections.unmodifiableMap(m);
  }

  /** Adds the {@code k8s.*} attributes of this pod (those it has) to a data point's attributes. */
  public AttributesBuilder addTo(AttributesBuilder b) {
    attributes().forEach(b::put);
    return b;
  }
}
