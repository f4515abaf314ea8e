package dev.gputop.agent.extension;

import dev.gputop.agent.http.AgentHttpServer;
import dev.gputop.agent.internal.MetricsOnlyOpenTelemetry;
import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.agent.runtime.ExportedHistogramProducer;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigException;
import dev.gputop.config.ConfigLoader;
import dev.gputop.receiver.ReceiverProvider;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizer;
import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
// internal: the only hook that hands an extension the finished OpenTelemetrySdk without
// depending on the Java agent's own (larger) extension API; see the class comment.
import io.opentelemetry.sdk.autoconfigure.spi.internal.AutoConfigureListener;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * gputop-agent as an extension of the OpenTelemetry Java agent ({@code
 * -Dotel.javaagent.extensions=gputop-agent-extension.jar}): the receivers run inside the host JVM
 * and their metrics leave through that agent's SDK, so with its exporter, its export interval and
 * its resource attributes.
 *
 * <p>While the agent builds its SDK, {@link #customize} registers the {@link
 * ExportedHistogramProducer} on the meter provider (histograms can only join an SDK before it is
 * built) and keeps the agent's configuration, from which {@link ExtensionSettings} reads gputop's
 * {@code otel.gputop.*} settings. Once the SDK is built, {@link #afterAutoConfigure} starts the
 * receivers on a daemon thread, so the application's start is not delayed by the first scrape.
 * Their refreshes run with the agent's instrumentation suppressed ({@link UntracedReceivers}), so
 * scrapes never show up as spans in the application's traces.
 * The SDK's {@link AutoConfigureListener} is used rather than the agent's {@code AgentListener}
 * because it needs nothing beyond the autoconfigure SPI this build already has (see
 * docs/attach.md).
 *
 * <p>Thread-safe: the agent calls the two hooks in order on one thread; the runtime is published
 * through a volatile field for the shutdown hook.
 */
public final class GputopExtension implements AutoConfigurationCustomizerProvider, AutoConfigureListener {

  private static final Logger logger = Logger.getLogger(GputopExtension.class.getName());

  private final ExportedHistogramProducer histograms = new ExportedHistogramProducer();
  private volatile ConfigProperties agentConfig;
  private volatile AgentRuntime runtime;
  private volatile AgentHttpServer server;

  @Override
  public void customize(AutoConfigurationCustomizer customizer) {
    customizer.addMeterProviderCustomizer(
        (builder, config) -> {
          agentConfig = config;
          return builder.registerMetricProducer(histograms);
        });
  }

  @Override
  public void afterAutoConfigure(OpenTelemetrySdk sdk) {
    ConfigProperties config = agentConfig;
    ExtensionSettings settings = config != null ? ExtensionSettings.from(config) : ExtensionSettings.fromSystem();
    Thread t = new Thread(() -> start(sdk, settings), "gputop-extension");
    t.setDaemon(true);
    t.setContextClassLoader(GputopExtension.class.getClassLoader());
    t.start();
  }

  /** Reads the settings and starts the receivers and the listener. Never throws. */
  private void start(OpenTelemetrySdk sdk, ExtensionSettings settings) {
    try {
      if (!settings.enabled()) {
        logger.info("gputop-agent extension switched off (otel.gputop.enabled=false)");
        return;
      }
      AgentConfig config = new ConfigLoader().load(settings.configFile(), settings.overrides());
      AgentRuntime r =
          AgentRuntime.builder(config)
              .setOpenTelemetry(new MetricsOnlyOpenTelemetry(sdk))
              .setHistogramProducer(histograms)
              .setProviders(UntracedReceivers.wrap(
                  ServiceLoader.load(ReceiverProvider.class, GputopExtension.class.getClassLoader())))
              .build();
      r.start();
      runtime = r;
      if (!config.listenerDisabled()) {
        try {
          // /metrics answers 404: the OpenTelemetry Java agent's own exporters carry the metrics.
          server = AgentHttpServer.start(config.listen(), r, null);
        } catch (UncheckedIOException | IllegalArgumentException e) {
          logger.warning(() -> "listener not started (" + e.getMessage() + "); the receivers run and export without it");
        }
      }
      Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(sdk), "gputop-extension-shutdown"));
      logger.info(() -> "gputop-agent extension running: receivers " + r.receiverNames()
          + ", exporting through the OpenTelemetry Java agent's SDK");
    } catch (ConfigException e) {
      logger.severe(() -> "configuration error, gputop-agent extension not started (the application runs on): " + e.getMessage());
    } catch (Throwable t) { // never into the host
      logger.log(Level.SEVERE, "gputop-agent extension failed to start (the application runs on)", t);
    }
  }

  /** Flushes the last values through the agent's exporter, then stops the receivers. */
  private void stop(OpenTelemetrySdk sdk) {
    AgentRuntime r = runtime;
    if (r == null) {
      return;
    }
    try {
      r.stopRefreshing(Duration.ofMillis(200));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sdk.getSdkMeterProvider().forceFlush().join(1, TimeUnit.SECONDS);
    r.close();
    AgentHttpServer s = server;
    if (s != null) {
      s.close();
    }
  }
}
