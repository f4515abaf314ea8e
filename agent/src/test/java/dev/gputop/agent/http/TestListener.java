package dev.gputop.agent.http;

import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigLoader;
import dev.gputop.config.ListenerConfig;
import java.util.List;
import java.util.Map;

/**
 * The agent's listener as the listener tests start it: on a free port of 127.0.0.1, in front of a
 * runtime with no receivers, secured as a {@link ListenerConfig} says. {@link #close()} (after
 * each test) stops what was started, listener first.
 */
public final class TestListener implements AutoCloseable {

  private AgentRuntime runtime;
  private AgentHttpServer server;

  /** A started runtime without receivers, with {@code config} as its listener settings; closed by {@link #close()}. */
  public AgentRuntime runtime(ListenerConfig config) {
    AgentConfig base = new ConfigLoader().parse("listen: 127.0.0.1:0\n", Map.of());
    runtime = AgentRuntime.builder(base.toBuilder().listener(config).build()).setProviders(List.of()).build();
    runtime.start();
    return runtime;
  }

  /** The listener secured as {@code config} says, in front of a new {@link #runtime}. */
  public AgentHttpServer start(ListenerConfig config) {
    return start(config, System::nanoTime);
  }

  /** As {@link #start(ListenerConfig)}, with slow clients' deadlines on {@code deadlineClock}. */
  AgentHttpServer start(ListenerConfig config, ConnectionDeadlines.NanoClock deadlineClock) {
    server = AgentHttpServer.start("127.0.0.1:0", runtime(config), null, config, deadlineClock);
    return server;
  }

  @Override
  public void close() {
    if (server != null) {
      server.close();
    }
    if (runtime != null) {
      runtime.close();
    }
  }
}
