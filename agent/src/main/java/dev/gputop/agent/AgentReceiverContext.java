package dev.gputop.agent;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.Clock;
import dev.gputop.config.ReceiverContext;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The {@link ReceiverContext} the runtime hands each provider: configuration, OpenTelemetry, clock
 * and a type-keyed service registry. Thread-safe (the registry is a concurrent map).
 */
final class AgentReceiverContext implements ReceiverContext {

  private final AgentConfig config;
  private final OpenTelemetry openTelemetry;
  private final Clock clock;
  private final ConcurrentMap<Class<?>, Object> services = new ConcurrentHashMap<>();

  AgentReceiverContext(AgentConfig config, OpenTelemetry openTelemetry, Clock clock) {
    this.config = config;
    this.openTelemetry = openTelemetry;
    this.clock = clock;
  }

  @Override
  public AgentConfig config() {
    return config;
  }

  @Override
  public OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public <T> void publish(Class<T> type, T service) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(service, "service");
    services.put(type, type.cast(service));
  }

  @Override
  public <T> T lookup(Class<T> type) {
    return type.cast(services.get(type));
  }
}
