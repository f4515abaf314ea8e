package dev.gputop.inference.discovery;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The container ID and Kubernetes pod UID that a process's {@code /proc/PID/cgroup} reveals, for
 * cgroup v1, v2 and hybrid hosts under Docker, containerd and CRI-O, with the cgroupfs and systemd
 * drivers (the layouts are listed in docs/discovery.md, "Containers and Kubernetes"). Immutable.
 *
 * @param containerId 64 lowercase hex characters, or null for a process outside any container
 * @param podUid the pod UID with dashes, or null
 */
record CgroupIds(String containerId, String podUid) {

  static final CgroupIds NONE = new CgroupIds(null, null);

  private static final Pattern POD_UID =
      Pattern.compile(
          "pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})");
  private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");
  private static final String[] PREFIXES = {"docker-", "cri-containerd-", "crio-", "libpod-", "containerd-"};

  /**
   * Parses the file. Lines are {@code hierarchy-ID:controllers:path}; every line is scanned and
   * the first that yields an ID wins, because v1 controllers can differ and hybrid hosts add a
   * {@code 0::} line. Paths are not anchored: under a private cgroup namespace they start with
   * {@code /../}.
   */
  static CgroupIds parse(String text) {
    if (text == null) {
      return NONE;
    }
    String containerId = null;
    String podUid = null;
    for (String line : text.split("\n")) {
      int first = line.indexOf(':');
      int second = first < 0 ? -1 : line.indexOf(':', first + 1);
      if (second < 0) {
        continue;
      }
      String path = line.substring(second + 1).trim();
      if (containerId == null) {
        containerId = containerId(path);
      }
      if (podUid == null) {
        Matcher m = POD_UID.matcher(path);
        if (m.find()) {
          podUid = m.group(1).replace('_', '-');
        }
      }
      if (containerId != null && podUid != null) {
        break;
      }
    }
    return containerId == null && podUid == null ? NONE : new CgroupIds(containerId, podUid);
  }

  /** The container ID in one cgroup path, or null. */
  static String containerId(String path) {
    String[] segments = path.split("/");
    int last = segments.length - 1;
    while (last >= 0 && segments[last].isEmpty()) {
      last--;
    }
    if (last < 0) {
      return null;
    }
    String segment = segments[last];
    if (segment.equals("container") && last > 0) {
      segment = segments[last - 1]; // podman nests the payload under .../libpod-<id>.scope/container
    }
    if (segment.startsWith("crio-conmon-")) {
      return null; // CRI-O's monitor process, not the container
    }
    int colon = segment.lastIndexOf(':');
    if (colon >= 0) {
      segment = segment.substring(colon + 1); // containerd >= 1.5: "kubepods-...slice:cri-containerd:<id>"
    }
    if (segment.endsWith(".scope")) {
      segment = segment.substring(0, segment.length() - ".scope".length());
    }
    for (String prefix : PREFIXES) {
      if (segment.startsWith(prefix)) {
        segment = segment.substring(prefix.length());
        break;
      }
    }
    // CRI-O's v1 layout may carry a suffix after the ID ("crio-<id>.stuff").
    int dot = segment.indexOf('.');
    if (dot == 64) {
      segment = segment.substring(0, 64);
    }
    String id = segment.toLowerCase(Locale.ROOT);
    return HEX64.matcher(id).matches() ? id : null;
  }

  /** The first 12 characters, as {@code docker ps} shows them. */
  static String shortId(String containerId) {
    return containerId.length() > 12 ? containerId.substring(0, 12) : containerId;
  }
}
