package dev.gputop.agent;

import dev.gputop.config.AgentConfig;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * The standalone agent of {@code run} and {@code demo}: the autoconfigured SDK, the runtime and
 * the HTTP listener, started and stopped in the right order. Thread-safe; {@link #close()} is
 * idempotent and may be called from a shutdown hook.
 */
final class StandaloneAgent implements AutoCloseable {

  private static final Logger logger = Logger.getLogger(StandaloneAgent.class.getName());

  /** SIGTERM must end the process within 5 s; the steps below share 4.5 s of it. */
  static final Duration STOP_BUDGET = Duration.ofMillis(4500);

  /** Most of it goes to the last export, the point of a graceful stop. */
  static final Duration FLUSH_BUDGET = Duration.ofMillis(3000);

  private final StandaloneSdk sdk;
  private final AgentRuntime runtime;
  private final AgentHttpServer server;
  private final Object closeLock = new Object();
  private boolean closed;

  private StandaloneAgent(StandaloneSdk sdk, AgentRuntime runtime, AgentHttpServer server) {
    this.sdk = sdk;
    this.runtime = runtime;
    this.server = server;
  }

  /**
   * Builds the SDK, binds the listener (first, so a port in use fails before any work starts) and
   * starts the receivers.
   *
   * @throws UncheckedIOException when the listener can't bind
   * @throws dev.gputop.config.ConfigException when a receiver can't use the configuration
   */
  static StandaloneAgent start(AgentConfig config) {
    StandaloneSdk sdk = StandaloneSdk.create(!config.listenerDisabled());
    AgentRuntime runtime =
        AgentRuntime.builder(config)
            .setOpenTelemetry(sdk.openTelemetry())
            .setHistogramProducer(sdk.histograms())
            .build();
    AgentHttpServer server = null;
    try {
      if (!config.listenerDisabled()) {
        server = AgentHttpServer.start(config.listen(), runtime, sdk.prometheus());
      }
      runtime.start();
    } catch (RuntimeException e) {
      if (server != null) {
        server.close();
      }
      runtime.close();
      sdk.shutdown(Duration.ofSeconds(1));
      throw e;
    }
    return new StandaloneAgent(sdk, runtime, server);
  }

  AgentRuntime runtime() {
    return runtime;
  }

  /** The listener, or null with {@code listen: off}. */
  AgentHttpServer server() {
    return server;
  }

  /**
   * Stops refreshing, pushes the last published values through the exporters, closes the
   * receivers and shuts the SDK down; all within {@link #STOP_BUDGET}. The listener stops in
   * parallel (the JDK's HTTP server takes about a second to stop, which the flush needs more).
   */
  @Override
  public void close() {
    synchronized (closeLock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    long t0 = System.nanoTime();
    if (server != null) {
      Thread stopper = new Thread(server::close, "gputop-http-stop");
      stopper.setDaemon(true);
      stopper.start();
    }
    try {
      runtime.stopRefreshing(Duration.ofMillis(500));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // Flush while the receivers' callbacks are still registered: they hold the last values. (The
    // SDK's own shutdown collects again, but from a meter provider already marked closed.)
    boolean flushed = sdk.flush(FLUSH_BUDGET);
    runtime.close();
    Duration left = STOP_BUDGET.minusNanos(System.nanoTime() - t0);
    boolean shut = sdk.shutdown(left.compareTo(Duration.ofMillis(200)) < 0 ? Duration.ofMillis(200) : left);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    logger.info(() -> "stopped in " + ms + " ms" + (flushed ? "" : " (exporters did not flush in time)")
        + (shut ? "" : " (exporters did not shut down in time)"));
  }
}
