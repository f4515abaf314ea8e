package dev.gputop.inference.engine;

import java.util.List;
import java.util.Objects;

/**
 * What one scrape says about an engine that has moved on from its profile (docs/engines/README.md,
 * "Drift"): the engine's families that no rule reads and the profile does not know, and the
 * concepts the profile expects from the engine that the server does not export. A renamed family
 * shows up here after an upgrade instead of only turning a value into N/A. Immutable; the names
 * are bounded.
 *
 * @param unreadCount how many of the engine's families (those with one of its prefixes) no rule
 *     reads and the profile does not list as known
 * @param unread the first {@link #MAX_NAMES} of them, in exposition order, as written on the wire
 * @param missing the concepts expected but not exported, in concept order
 * @param duplicates families skipped as a wrapper's copies of others (Ray's gauge copy of each
 *     counter), at most {@link #MAX_NAMES}
 */
public record Drift(int unreadCount, List<String> unread, List<Missing> missing, List<String> duplicates) {

  /** At most this many names are kept per list: the count says how many there were. */
  public static final int MAX_NAMES = 10;

  public static final Drift NONE = new Drift(0, List.of(), List.of(), List.of());

  public Drift {
    unread = List.copyOf(unread);
    missing = List.copyOf(missing);
    duplicates = List.copyOf(duplicates);
    if (unreadCount < unread.size()) {
      throw new IllegalArgumentException("unreadCount " + unreadCount + " < " + unread.size() + " names");
    }
  }

  /** Whether nothing has drifted. */
  public boolean isEmpty() {
    return unreadCount == 0 && missing.isEmpty();
  }

  /**
   * A concept the profile expects that the server does not export.
   *
   * @param concept the concept
   * @param expected the name the profile reads first (the newest), with its form
   * @param since the version that added it, or null when the profile doesn't say
   */
  public record Missing(Concept concept, String expected, String since) {
    public Missing {
      Objects.requireNonNull(concept, "concept");
      Objects.requireNonNull(expected, "expected");
    }

    /** e.g. {@code generationTokens: counter trtllm_generation_tokens (added 2026)}. */
    public String describe() {
      return concept.key() + ": " + expected + (since == null ? "" : " (added " + since + ")");
    }
  }
}
