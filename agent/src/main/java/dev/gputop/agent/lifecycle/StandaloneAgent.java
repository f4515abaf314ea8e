package dev.gputop.agent.lifecycle;

import dev.gputop.agent.http.AgentHttpServer;
import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.agent.runtime.StandaloneSdk;
import dev.gputop.config.AgentConfig;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The standalone agent of {@code run} and {@code demo}: the autoconfigured SDK, the runtime and
 * the HTTP listener, started and stopped in the right order. Thread-safe; {@link #close()} is
 * idempotent and may be called from a shutdown hook.
 */
public final class StandaloneAgent implements AutoCloseable {

  private static final Logger logger = Logger.getLogger(StandaloneAgent.class.getName());

  /** SIGTERM must end the process within 5 s; the steps below share 4.5 s of it. */
  public static final Duration STOP_BUDGET = Duration.ofMillis(4500);

  /** Most of it goes to the last export, the point of a graceful stop. */
  static final Duration FLUSH_BUDGET = Duration.ofMillis(3000);

  /** The SDK's shutdown gets at least this, even when less of the budget is left. */
  public static final Duration SHUTDOWN_FLOOR = Duration.ofMillis(200);

  /** Standalone stop: the listener stops in parallel, the report says what didn't finish in time. */
  private static final AgentLifecycle.StopPolicy STOP_POLICY =
      new AgentLifecycle.StopPolicy(STOP_BUDGET, Duration.ofMillis(500), FLUSH_BUDGET, SHUTDOWN_FLOOR,
          SHUTDOWN_FLOOR, true, logger, Level.INFO, true);

  private final AgentLifecycle lifecycle;

  private StandaloneAgent(AgentLifecycle lifecycle) {
    this.lifecycle = lifecycle;
  }

  /**
   * Builds the SDK, binds the listener (first, so a port in use fails before any work starts) and
   * starts the receivers.
   *
   * @throws UncheckedIOException when the listener can't bind
   * @throws dev.gputop.config.ConfigException when a receiver can't use the configuration
   */
  public static StandaloneAgent start(AgentConfig config) {
    // The receivers prepare first (the scraper's HTTP client loads its classes on a thread of its
    // own), so that this overlaps the SDK and the listener rather than following them.
    AgentRuntime.Builder builder = AgentRuntime.builder(config).prepareReceivers();
    StandaloneSdk sdk = StandaloneSdk.create(!config.listenerDisabled(), config.kubernetes().nodeName());
    AgentRuntime runtime =
        builder
            .setOpenTelemetry(sdk.openTelemetry())
            .setHistogramProducer(sdk.histograms())
            .addHealthComponent("export", sdk.exports()::health)
            .build();
    return new StandaloneAgent(AgentLifecycle.start(
        config, sdk, runtime, AgentLifecycle.Listener.FIRST_AND_REQUIRED, STOP_POLICY));
  }

  public AgentRuntime runtime() {
    return lifecycle.runtime();
  }

  /** The listener, or null with {@code listen: off}. */
  public AgentHttpServer server() {
    return lifecycle.server();
  }

  /**
   * Stops refreshing, pushes the last published values through the exporters, closes the
   * receivers and shuts the SDK down; all within {@link #STOP_BUDGET}. The listener stops in
   * parallel (the JDK's HTTP server takes about a second to stop, which the flush needs more).
   */
  @Override
  public void close() {
    lifecycle.close();
  }

  /** As {@link #close()}; the one log line of the stop names {@code reason} (e.g. {@code SIGTERM}). */
  public void close(String reason) {
    lifecycle.close(reason);
  }
}
