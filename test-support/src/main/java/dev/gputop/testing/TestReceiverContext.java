package dev.gputop.testing;

import dev.gputop.config.AgentConfig;
import dev.gputop.receiver.Clock;
import dev.gputop.receiver.StandardReceiverContext;
import io.opentelemetry.api.OpenTelemetry;

/**
 * The agent's own receiver context ({@link StandardReceiverContext}) for tests: the same registry,
 * plus a constructor with a no-op OpenTelemetry. The one receiver context of every module's tests
 * (a module may extend it to keep, say, its metric reader at hand). Thread-safe.
 */
public class TestReceiverContext extends StandardReceiverContext {

  /** A context with a no-op OpenTelemetry. */
  public TestReceiverContext(AgentConfig config, Clock clock) {
    this(config, OpenTelemetry.noop(), clock);
  }

  /** A context whose instruments go to {@code openTelemetry} (an SDK with an in-memory reader). */
  public TestReceiverContext(AgentConfig config, OpenTelemetry openTelemetry, Clock clock) {
    super(config, openTelemetry, clock);
  }
}
