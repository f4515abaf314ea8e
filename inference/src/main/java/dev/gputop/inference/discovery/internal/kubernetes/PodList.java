package dev.gputop.inference.discovery.internal.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The pods of a {@code PodList} document (kubelet {@code /pods} or the API server's {@code
 * /api/v1/pods}), indexed by container ID and pod UID. Immutable.
 */
final class PodList {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String[] RUNTIME_PREFIXES = {"docker://", "containerd://", "cri-o://"};
  private static final String[] STATUS_FIELDS = {"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"};

  private final Map<String, PodInfo> byContainerId;
  private final Map<String, PodInfo> byUid;
  private final Map<String, String> containerNames;

  private PodList(Map<String, PodInfo> byContainerId, Map<String, PodInfo> byUid, Map<String, String> containerNames) {
    this.byContainerId = Map.copyOf(byContainerId);
    this.byUid = Map.copyOf(byUid);
    this.containerNames = Map.copyOf(containerNames);
  }

  static PodList parse(byte[] json) throws IOException {
    JsonNode root = MAPPER.readTree(json);
    JsonNode items = root == null ? null : root.get("items");
    if (items == null || !items.isArray()) {
      throw new IOException("not a PodList: no items[]");
    }
    Map<String, PodInfo> byContainer = new HashMap<>();
    Map<String, PodInfo> byUid = new HashMap<>();
    Map<String, String> names = new HashMap<>();
    for (JsonNode pod : items) {
      JsonNode meta = pod.path("metadata");
      String name = text(meta, "name");
      String namespace = text(meta, "namespace");
      if (name == null || namespace == null) {
        continue;
      }
      String uid = text(meta, "uid");
      JsonNode status = pod.path("status");
      String ip = text(status, "podIP");
      PodInfo info =
          new PodInfo(namespace, name, uid, ip == null || ip.isEmpty() ? null : ip, pod.path("spec").path("hostNetwork").asBoolean(false));
      if (uid != null) {
        byUid.put(uid, info);
      }
      for (String field : STATUS_FIELDS) {
        for (JsonNode c : status.path(field)) {
          String id = stripRuntime(text(c, "containerID"));
          if (id != null) {
            byContainer.put(id, info);
            String containerName = text(c, "name");
            if (containerName != null) {
              names.put(id, containerName);
            }
          }
        }
      }
    }
    return new PodList(byContainer, byUid, names);
  }

  /** {@code containerd://<id>} → {@code <id>}; null for an empty or missing ID. */
  static String stripRuntime(String containerId) {
    if (containerId == null || containerId.isEmpty()) {
      return null;
    }
    for (String p : RUNTIME_PREFIXES) {
      if (containerId.startsWith(p)) {
        return containerId.substring(p.length());
      }
    }
    int scheme = containerId.indexOf("://");
    return scheme >= 0 ? containerId.substring(scheme + 3) : containerId;
  }

  PodInfo find(String containerId, String podUid) {
    PodInfo p = containerId == null ? null : byContainerId.get(containerId);
    if (p == null && podUid != null) {
      p = byUid.get(podUid);
    }
    return p;
  }

  /** The name of a container ({@code status.containerStatuses[].name}) by its ID, or null. */
  String containerName(String containerId) {
    return containerId == null ? null : containerNames.get(containerId);
  }

  int size() {
    return byUid.size();
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }
}
