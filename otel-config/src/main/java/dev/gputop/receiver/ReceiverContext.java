package dev.gputop.receiver;

import dev.gputop.config.AgentConfig;
import io.opentelemetry.api.OpenTelemetry;

/**
 * What the agent hands a {@link ReceiverProvider}: the configuration, the OpenTelemetry API to
 * register instruments with, the clock, and a small registry through which receivers offer each
 * other services (the NVML receiver offers the list of GPU processes; the inference receiver
 * offers which server a process belongs to). Thread-safe.
 */
public interface ReceiverContext {

  AgentConfig config();

  OpenTelemetry openTelemetry();

  Clock clock();

  /** Offers a service to receivers created later (and to the agent). */
  <T> void publish(Class<T> type, T service);

  /** A service published by another receiver, or null when none was (for example NVML is off). */
  <T> T lookup(Class<T> type);
}
