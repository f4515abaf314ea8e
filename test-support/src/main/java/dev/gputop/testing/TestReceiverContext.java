package dev.gputop.testing;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.Clock;
import dev.gputop.config.ReceiverContext;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The registry the agent hands receivers, reduced to what tests need: a given configuration,
 * OpenTelemetry and clock, and a map of published services. The one receiver context of every
 * module's tests (a module may extend it to keep, say, its metric reader at hand). Thread-safe.
 */
public class TestReceiverContext implements ReceiverContext {

  private final AgentConfig config;
  private final OpenTelemetry openTelemetry;
  private final Clock clock;
  private final Map<Class<?>, Object> services = new ConcurrentHashMap<>();

  /** A context with a no-op OpenTelemetry. */
  public TestReceiverContext(AgentConfig config, Clock clock) {
    this(config, OpenTelemetry.noop(), clock);
  }

  /** A context whose instruments go to {@code openTelemetry} (an SDK with an in-memory reader). */
  public TestReceiverContext(AgentConfig config, OpenTelemetry openTelemetry, Clock clock) {
    this.config = Objects.requireNonNull(config, "config");
    this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
    this.clock = Objects.requireNonNull(clock, "clock");
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
    services.put(type, service);
  }

  @Override
  public <T> T lookup(Class<T> type) {
    return type.cast(services.get(type));
  }
}
