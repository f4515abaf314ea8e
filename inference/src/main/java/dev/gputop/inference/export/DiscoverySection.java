package dev.gputop.inference.export;

import dev.gputop.inference.discovery.SkippedProcess;
import java.util.List;

/**
 * The snapshot's {@code discovery} section: processes discovery saw and could not use, and notes
 * about the pass. Immutable.
 */
public record DiscoverySection(List<SkippedProcess> skipped, List<String> notes) {
  public DiscoverySection {
    skipped = List.copyOf(skipped);
    notes = List.copyOf(notes);
  }
}
