package dev.gputop.agent.attach;

import dev.gputop.agent.http.AgentHttpServer;
import dev.gputop.agent.internal.MetricsOnlyOpenTelemetry;
import dev.gputop.agent.lifecycle.AgentLifecycle;
import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.agent.runtime.StandaloneSdk;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigException;
import dev.gputop.config.ConfigLoader;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * gputop-agent running inside a host JVM after {@code -javaagent} or dynamic attach: its own
 * (relocated) autoconfigured SDK, so the host's {@code OTEL_*} settings decide exporter and
 * resource, the receivers, and the listener when it can bind. It must never disturb the host:
 * nothing is printed (java.util.logging only, which writes to stderr), nothing exits the JVM, a
 * configuration error or a port in use is logged and the application runs on, and a shutdown
 * hook flushes and stops everything within {@link #STOP_BUDGET}.
 *
 * <p>Thread-safe; {@link #close()} is idempotent.
 */
final class AttachedAgent implements AutoCloseable {

  private static final Logger logger = Logger.getLogger(AttachedAgent.class.getName());

  /** The longest the host's exit is delayed by the final flush and shutdown. */
  static final Duration STOP_BUDGET = Duration.ofMillis(2500);

  /** Attached stop: the listener stops last, the report is quiet (the host's log is not ours). */
  private static final AgentLifecycle.StopPolicy STOP_POLICY =
      new AgentLifecycle.StopPolicy(STOP_BUDGET, Duration.ofMillis(200), Duration.ofMillis(1000), Duration.ZERO,
          Duration.ofMillis(100), false, logger, Level.FINE, false);

  private final AgentLifecycle lifecycle;

  private AttachedAgent(AgentLifecycle lifecycle) {
    this.lifecycle = lifecycle;
  }

  /**
   * The background half of {@link AttachAgent}: inspects the host, reads the configuration and
   * starts. Never throws.
   *
   * @param entryNanos how long premain/agentmain kept the host's thread
   */
  static void startInBackground(String options, String how, long entryNanos) {
    long began = System.nanoTime();
    try {
      String entry = String.format(Locale.ROOT, "%s took %.2f ms", how, entryNanos / 1e6);
      HostProbe host = HostProbe.inspect();
      if (host.gputopExtension()) {
        logger.info(() -> "the OpenTelemetry Java agent loads gputop-agent as an extension, which exports through"
            + " that agent's SDK; -javaagent:gputop-agent.jar stands down so nothing is exported twice (" + entry + ")");
        return;
      }
      if (host.otelJavaagent()) {
        logger.info("the OpenTelemetry Java agent runs in this JVM without gputop's extension: gputop-agent exports"
            + " with its own SDK from the same OTEL_* settings; load gputop-agent-extension.jar with"
            + " -Dotel.javaagent.extensions to share that agent's exporter and resource");
      } else if (host.globalOpenTelemetrySet()) {
        logger.info("the application registered a GlobalOpenTelemetry; gputop-agent can't add its histograms to an"
            + " SDK that is already built, so it exports with its own SDK from the same OTEL_* settings");
      }
      AgentOptions parsed = AgentOptions.parse(options);
      AgentConfig config = new ConfigLoader().load(parsed.configFile(), parsed.overrides());
      AttachedAgent agent = start(config);
      try {
        Runtime.getRuntime().addShutdownHook(new Thread(agent::close, "gputop-shutdown"));
      } catch (IllegalStateException e) { // the host is already exiting
        agent.close();
        return;
      }
      // What premain spared the host's thread: the start, timed here on the background thread.
      String started = String.format(Locale.ROOT, "; the start took %.2f ms on its own thread",
          (System.nanoTime() - began) / 1e6);
      logger.info(() -> "running inside this JVM (" + entry + started + "; receivers " + agent.runtime().receiverNames()
          + (agent.server() == null ? ", no listener" : ", listener " + agent.server().url()) + ")");
    } catch (ConfigException e) {
      logger.severe(() -> "configuration error, gputop-agent not started (the application runs on): " + e.getMessage());
    } catch (UncheckedIOException e) {
      logger.severe(() -> "gputop-agent not started (the application runs on): " + e.getMessage());
    } catch (Throwable t) { // never into the host
      logger.log(Level.SEVERE, "gputop-agent failed to start (the application runs on)", t);
    }
  }

  static void logAlreadyRunning(String how) {
    logger.info(() -> how + ": gputop-agent already runs in this JVM; nothing more started");
  }

  /**
   * Builds the SDK, starts the receivers and binds the listener unless {@code listen: off}. A
   * listener that can't bind is logged and left out.
   *
   * @throws ConfigException when a receiver can't use the configuration
   */
  static AttachedAgent start(AgentConfig config) {
    StandaloneSdk sdk = StandaloneSdk.create(!config.listenerDisabled());
    AgentRuntime runtime =
        AgentRuntime.builder(config)
            .setOpenTelemetry(new MetricsOnlyOpenTelemetry(sdk.openTelemetry()))
            .setHistogramProducer(sdk.histograms())
            .setClassLoader(AttachedAgent.class.getClassLoader())
            .build();
    return new AttachedAgent(AgentLifecycle.start(
        config, sdk, runtime, AgentLifecycle.Listener.LAST_AND_OPTIONAL, STOP_POLICY));
  }

  /** The runtime, for tests. */
  AgentRuntime runtime() {
    return lifecycle.runtime();
  }

  /** The listener, or null. */
  AgentHttpServer server() {
    return lifecycle.server();
  }

  /**
   * Stops refreshing, flushes the exporters, closes the receivers and the SDK and the listener, in
   * at most {@link #STOP_BUDGET}.
   */
  @Override
  public void close() {
    lifecycle.close();
  }
}
