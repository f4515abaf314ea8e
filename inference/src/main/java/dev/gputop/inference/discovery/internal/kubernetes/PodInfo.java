package dev.gputop.inference.discovery.internal.kubernetes;

import java.util.Objects;

/**
 * The Kubernetes identity of a pod on this node, as far as discovery needs it. Immutable.
 *
 * @param namespace the pod's namespace
 * @param name the pod's name
 * @param uid the pod's UID
 * @param podIp {@code status.podIP}, or null while the pod has none
 * @param hostNetwork {@code spec.hostNetwork}: the pod shares the node's network namespace, so
 *     its servers are reachable on loopback
 */
public record PodInfo(String namespace, String name, String uid, String podIp, boolean hostNetwork) {

  public PodInfo {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
  }

  /** {@code namespace/name}. */
  public String qualifiedName() {
    return namespace + "/" + name;
  }
}
