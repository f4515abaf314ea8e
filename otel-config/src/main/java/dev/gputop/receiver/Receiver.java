package dev.gputop.receiver;

import java.util.List;

/**
 * A running receiver: reads a source on the agent's scheduler and publishes immutable snapshots
 * that OpenTelemetry callbacks, the JSON snapshot and /healthz read. The contract as a whole (how
 * a receiver is found, started, timed and merged) is described in this package's documentation.
 *
 * <p>Threading: {@link #refresh()} is called by one agent thread at a time, every {@code
 * refresh.normal}; it may block on I/O but must bound that time itself (timeouts). Every other
 * method may be called from any thread at any time, must not do I/O and must return quickly: they
 * read the latest published snapshot. Implementations must be thread-safe.
 */
public interface Receiver extends AutoCloseable {

  /** The receiver's name, as in configuration and in {@code health}: {@code nvml}, {@code inference}. */
  String name();

  /**
   * Runs one collection cycle and publishes its result. Must never throw: failures become state
   * (a server {@code down}, a GPU {@code failed}, the receiver {@code unavailable}).
   */
  void refresh();

  /** The receiver's health from its latest cycle. */
  HealthStatus health();

  /**
   * This receiver's part of the JSON snapshot from its latest cycle ({@link Contribution#NONE}
   * before the first): its GPUs, servers, alerts, overview and further sections. The agent writes
   * the document from all receivers' contributions; {@code health} is {@link #health()}'s.
   */
  Contribution contribution();

  /** Histograms to re-export as they are; empty by default. */
  default List<ExportedHistogram> exportedHistograms() {
    return List.of();
  }

  /** Monotonic sums with start times of their own, exported as they are; empty by default. */
  default List<ExportedCounter> exportedCounters() {
    return List.of();
  }

  /** Stops the receiver and unregisters its callbacks. Idempotent. */
  @Override
  void close();
}
