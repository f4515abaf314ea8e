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
 * A started agent's parts, the autoconfigured SDK, the runtime and the optional HTTP listener:
 * their start in the right order with the roll-back of a start that fails ({@link #start}), and
 * their stop in the right order within a time budget ({@link #close}). Shared by the standalone
 * agent and the agent attached to a host JVM, which differ only in the {@link Listener} rule and
 * the {@link StopPolicy}.
 *
 * <p>Thread-safe; {@link #close()} is idempotent and may be called from a shutdown hook.
 */
public final class AgentLifecycle implements AutoCloseable {

  /**
   * How {@link AgentLifecycle#close()} spends its time and reports.
   *
   * @param stopBudget the time the whole stop may take
   * @param refreshWait how long to wait for a refresh in progress to end
   * @param flushBudget the time the last export may take
   * @param shutdownFloorBelow when less than this is left of the budget for the SDK's shutdown,
   *     {@code shutdownFloor} is given instead
   * @param shutdownFloor the SDK's shutdown time when the budget is (nearly) spent
   * @param listenerInParallel stop the listener on its own thread as the stop begins, rather than
   *     after the SDK's shutdown
   * @param logger where the stop is reported
   * @param logLevel the level of that report
   * @param reportTimeouts whether the report says that the exporters did not flush or shut down
   *     in time
   */
  public record StopPolicy(
      Duration stopBudget,
      Duration refreshWait,
      Duration flushBudget,
      Duration shutdownFloorBelow,
      Duration shutdownFloor,
      boolean listenerInParallel,
      Logger logger,
      Level logLevel,
      boolean reportTimeouts) {}

  /** When a start binds the HTTP listener (with {@code listen: off}, never), and what its failure does. */
  public enum Listener {
    /**
     * First, before the receivers start, so that a port in use fails the start before any work
     * begins: the standalone agent, for which the listener is the point.
     */
    FIRST_AND_REQUIRED,
    /**
     * After the receivers started; one that can't bind is reported (a warning to the stop
     * policy's logger) and left out, and the receivers run and export without it: the agent
     * attached to a host JVM, which must not fail the host over a port.
     */
    LAST_AND_OPTIONAL
  }

  private final StandaloneSdk sdk;
  private final AgentRuntime runtime;
  private final AgentHttpServer server;
  private final StopPolicy policy;
  private final Object closeLock = new Object();
  private boolean closed;

  /**
   * @param server the listener, or null when there is none
   */
  public AgentLifecycle(StandaloneSdk sdk, AgentRuntime runtime, AgentHttpServer server, StopPolicy policy) {
    this.sdk = sdk;
    this.runtime = runtime;
    this.server = server;
    this.policy = policy;
  }

  /**
   * Starts {@code runtime} (built on {@code sdk}) and the listener as {@code listener} says. If a
   * step fails, what started is undone, listener, receivers and SDK, and the failure is thrown.
   *
   * @throws UncheckedIOException when a required listener can't bind
   * @throws dev.gputop.config.ConfigException when a receiver can't use the configuration
   */
  public static AgentLifecycle start(AgentConfig config, StandaloneSdk sdk, AgentRuntime runtime,
      Listener listener, StopPolicy policy) {
    boolean wanted = !config.listenerDisabled();
    AgentHttpServer server = null;
    try {
      if (wanted && listener == Listener.FIRST_AND_REQUIRED) {
        server = AgentHttpServer.start(config.listen(), runtime, sdk.prometheus());
      }
      runtime.start();
      if (wanted && listener == Listener.LAST_AND_OPTIONAL) {
        server = optionalListener(config, sdk, runtime, policy.logger());
      }
    } catch (RuntimeException e) {
      if (server != null) {
        server.close();
      }
      runtime.close();
      sdk.shutdown(Duration.ofSeconds(1));
      throw e;
    }
    return new AgentLifecycle(sdk, runtime, server, policy);
  }

  private static AgentHttpServer optionalListener(
      AgentConfig config, StandaloneSdk sdk, AgentRuntime runtime, Logger logger) {
    try {
      return AgentHttpServer.start(config.listen(), runtime, sdk.prometheus());
    } catch (UncheckedIOException | IllegalArgumentException e) {
      logger.warning(() -> "listener not started (" + e.getMessage() + "); the receivers run and export without it");
      return null;
    }
  }

  public AgentRuntime runtime() {
    return runtime;
  }

  /** The listener, or null. */
  public AgentHttpServer server() {
    return server;
  }

  /**
   * Stops refreshing, pushes the last published values through the exporters, closes the
   * receivers, shuts the SDK down and stops the listener, as the {@link StopPolicy} says.
   */
  @Override
  public void close() {
    close(null);
  }

  /**
   * As {@link #close()}, its report naming {@code reason} (e.g. {@code SIGTERM}), so that a stop
   * leaves one line saying why and how long it took.
   */
  public void close(String reason) {
    synchronized (closeLock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    long t0 = System.nanoTime();
    if (server != null && policy.listenerInParallel()) {
      Thread stopper = new Thread(server::close, "gputop-http-stop");
      stopper.setDaemon(true);
      stopper.start();
    }
    try {
      runtime.stopRefreshing(policy.refreshWait());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // Flush while the receivers' callbacks are still registered: they hold the last values. (The
    // SDK's own shutdown collects again, but from a meter provider already marked closed.)
    boolean flushed = sdk.flush(policy.flushBudget());
    runtime.close();
    Duration left = policy.stopBudget().minusNanos(System.nanoTime() - t0);
    boolean shut = sdk.shutdown(left.compareTo(policy.shutdownFloorBelow()) < 0 ? policy.shutdownFloor() : left);
    if (server != null && !policy.listenerInParallel()) {
      server.close();
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    policy.logger().log(policy.logLevel(), () -> (reason == null ? "" : reason + ": ") + "stopped in " + ms + " ms"
        + (!policy.reportTimeouts() || flushed ? "" : " (exporters did not flush in time)")
        + (!policy.reportTimeouts() || shut ? "" : " (exporters did not shut down in time)"));
  }
}
