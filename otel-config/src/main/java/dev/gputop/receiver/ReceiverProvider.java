package dev.gputop.receiver;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigException;

/**
 * Creates a receiver. Found with {@link java.util.ServiceLoader}; list implementations in {@code
 * META-INF/services/dev.gputop.receiver.ReceiverProvider}. Providers are created in ascending
 * {@link #order()}, so a receiver can look up services of receivers with a lower order.
 */
public interface ReceiverProvider {

  /** The receiver's name: {@code nvml}, {@code inference}. */
  String name();

  /**
   * Lower starts first, and a receiver's first refresh waits (at most two seconds) for the first
   * refresh of the receiver started before it, so that its first refresh sees the data of the
   * services it looks up. NVML is 100, inference 200 (discovery reads NVML's GPU processes).
   */
  int order();

  /** Whether the configuration switches this receiver on. */
  boolean enabled(AgentConfig config);

  /**
   * Called once for an enabled receiver as soon as the configuration is read, before the agent
   * builds its OpenTelemetry SDK and long before {@link #create}: a provider may start loading,
   * on a daemon thread of its own, what its receiver's first refresh will need (classes, tables),
   * so that this overlaps the rest of the start. Must return at once and must not throw; the
   * default does nothing.
   */
  default void prepare(AgentConfig config) {}

  /**
   * Creates and starts the receiver: registers its instruments with {@code
   * context.openTelemetry()} and publishes its services. Must not block on I/O for long and must
   * not throw for a missing data source (report {@code unavailable} instead); may throw {@link
   * ConfigException} for a configuration it can't use.
   */
  Receiver create(ReceiverContext context);
}
