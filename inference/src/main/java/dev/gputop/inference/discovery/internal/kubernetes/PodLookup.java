package dev.gputop.inference.discovery.internal.kubernetes;

/**
 * Finds the pod a container belongs to. Discovery calls it from its own thread once per pass;
 * implementations decide how often they refresh and must never throw.
 */
public interface PodLookup {

  /** Brings the pod list up to date when it is due; cheap otherwise. */
  void refreshIfDue();

  /**
   * The pod running a container, or null when none is known.
   *
   * @param containerId 64 hex characters from the process's cgroup, or null
   * @param podUid the pod UID from the process's cgroup, or null
   */
  PodInfo find(String containerId, String podUid);

  /** The container's name in its pod, or null when the pod list does not name it. */
  default String containerName(String containerId) {
    return null;
  }

  /** Why the pod list is unavailable (it was never fetched successfully), or null when it is available. */
  String problem();

  /** Where pods come from, for {@code discover}, e.g. {@code kubelet https://127.0.0.1:10250/pods}. */
  String source();
}
