package dev.gputop.inference;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.InferenceConfig;
import dev.gputop.config.services.GpuPowerSource;
import dev.gputop.config.services.GpuProcessSource;
import dev.gputop.config.services.ProcessOwnerLookup;
import dev.gputop.inference.discovery.ProcessDiscovery;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.EngineProfiles;
import dev.gputop.inference.engine.UserProfiles;
import dev.gputop.inference.scrape.HttpScraper;
import dev.gputop.receiver.Receiver;
import dev.gputop.receiver.ReceiverContext;
import dev.gputop.receiver.ReceiverProvider;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Creates the inference receiver ({@code inference.enabled}, on by default) with the real HTTP
 * scraper and process discovery, and publishes its {@link ProcessOwnerLookup} so that per-process
 * GPU metrics can name the server a process belongs to. Registered in {@code
 * META-INF/services/dev.gputop.receiver.ReceiverProvider}; order 200, after NVML (100), whose
 * {@link GpuProcessSource} discovery reads on every pass.
 */
public final class InferenceReceiverProvider implements ReceiverProvider {

  private static final Logger logger = Logger.getLogger(InferenceReceiverProvider.class.getName());

  @Override
  public String name() {
    return "inference";
  }

  @Override
  public int order() {
    return 200;
  }

  @Override
  public boolean enabled(AgentConfig config) {
    return config.inference().enabled();
  }

  /**
   * Meanwhile, the scraper's HTTP client loads its classes ({@link HttpScraper#prepareInBackground})
   * and the built-in engine profiles (ten YAML documents, 50-90 ms of a cold JVM's start) are read
   * on a thread of their own; {@link #create} finds them read, or waits for the reading.
   */
  @Override
  public void prepare(AgentConfig config) {
    HttpScraper.prepareInBackground();
    Thread profiles = new Thread(() -> {
      try {
        EngineProfiles.builtIn();
      } catch (RuntimeException | LinkageError e) {
        // A packaging error; create() then fails on it too, without this cause on Java 17.
        logger.log(Level.WARNING, "The built-in engine profiles could not be read", e);
      }
    }, "gputop-inference-profiles");
    profiles.setDaemon(true);
    profiles.start();
  }

  @Override
  public Receiver create(ReceiverContext context) {
    AgentConfig agent = context.config();
    InferenceConfig config = agent.inference();
    // Read and validated before anything starts: a bad profile stops the agent like bad config.
    EngineProfiles profiles = UserProfiles.load(config.engines());
    HttpScraper scraper = new HttpScraper(config.scrape(), context.clock(), context.openTelemetry());
    ProcessDiscovery discovery = new ProcessDiscovery(
        config.discovery(), agent.kubernetes(), () -> context.lookup(GpuProcessSource.class), context.clock())
        .withProfiles(profiles);
    InferenceReceiver receiver = new InferenceReceiver(
        config, agent.refreshNormal(), scraper, discovery, context.clock(), context.openTelemetry(),
        new EngineMapper(profiles))
        .withGpuPower(() -> context.lookup(GpuPowerSource.class));
    context.publish(ProcessOwnerLookup.class, receiver);
    return receiver;
  }
}
