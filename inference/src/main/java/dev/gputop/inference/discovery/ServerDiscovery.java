package dev.gputop.inference.discovery;

/**
 * Finds inference servers on this host. The inference receiver calls {@link #discover()} once per
 * refresh on its own thread; implementations may read /proc and cache across calls, and must be
 * cheap when nothing changed.
 */
public interface ServerDiscovery extends AutoCloseable {

  /** One pass. Never throws: problems become skipped entries or notes. */
  DiscoveryResult discover();

  @Override
  default void close() {}
}
