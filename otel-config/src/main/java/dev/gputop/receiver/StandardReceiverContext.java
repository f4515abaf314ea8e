package dev.gputop.receiver;

import dev.gputop.config.AgentConfig;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The one {@link ReceiverContext}: a given configuration, OpenTelemetry and clock, and a
 * type-keyed registry of the services receivers publish. The agent's runtime hands it to each
 * provider; tests use it through test-support's {@code TestReceiverContext}, which only adds a
 * constructor with a no-op OpenTelemetry. Open for extension so that a module's tests can keep,
 * say, their metric reader beside it. Thread-safe (the registry is a concurrent map).
 */
public class StandardReceiverContext implements ReceiverContext {

  private final AgentConfig config;
  private final OpenTelemetry openTelemetry;
  private final Clock clock;
  private final ConcurrentMap<Class<?>, Object> services = new ConcurrentHashMap<>();

  public StandardReceiverContext(AgentConfig config, OpenTelemetry openTelemetry, Clock clock) {
    this.config = Objects.requireNonNull(config, "config");
    this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public final AgentConfig config() {
    return config;
  }

  @Override
  public final OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  @Override
  public final Clock clock() {
    return clock;
  }

  @Override
  public final <T> void publish(Class<T> type, T service) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(service, "service");
    services.put(type, type.cast(service));
  }

  @Override
  public final <T> T lookup(Class<T> type) {
    return type.cast(services.get(type));
  }
}
