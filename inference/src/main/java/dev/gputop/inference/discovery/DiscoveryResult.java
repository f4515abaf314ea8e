package dev.gputop.inference.discovery;

import java.util.List;

/**
 * What one discovery pass found. Immutable.
 *
 * @param servers the servers found, by name
 * @param skipped processes that looked like inference servers but could not be used, with reasons
 * @param notes remarks about the pass itself (e.g. "NVML unavailable: scope gpu finds nothing")
 */
public record DiscoveryResult(List<DiscoveredServer> servers, List<SkippedProcess> skipped, List<String> notes) {

  public DiscoveryResult {
    servers = List.copyOf(servers);
    skipped = List.copyOf(skipped);
    notes = List.copyOf(notes);
  }

  public static DiscoveryResult empty() {
    return new DiscoveryResult(List.of(), List.of(), List.of());
  }
}
