package dev.gputop.inference.testing;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.Clock;
import dev.gputop.config.ReceiverContext;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The registry the agent hands receivers, reduced to what tests need: a given config and clock,
 * a no-op OpenTelemetry and a map of published services. Thread-safe.
 */
public final class TestReceiverContext implements ReceiverContext {

  private final AgentConfig config;
  private final Clock clock;
  private final Map<Class<?>, Object> services = new ConcurrentHashMap<>();

  public TestReceiverContext(AgentConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
  }

  @Override
  public AgentConfig config() {
    return config;
  }

  @Override
  public OpenTelemetry openTelemetry() {
    return OpenTelemetry.noop();
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public <T> void publish(Class<T> type, T service) {
    services.put(type, service);
  }

  @Override
  public <T> T lookup(Class<T> type) {
    return type.cast(services.get(type));
  }
}
