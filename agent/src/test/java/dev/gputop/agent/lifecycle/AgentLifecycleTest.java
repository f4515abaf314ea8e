package dev.gputop.agent.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.agent.runtime.StandaloneSdk;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigException;
import dev.gputop.config.ConfigLoader;
import dev.gputop.receiver.Receiver;
import dev.gputop.receiver.ReceiverContext;
import dev.gputop.receiver.ReceiverProvider;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The one start sequence of both agents and its roll-back, with a receiver the test controls. */
class AgentLifecycleTest {

  private static final AgentLifecycle.StopPolicy POLICY = new AgentLifecycle.StopPolicy(
      Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofMillis(500), Duration.ZERO,
      Duration.ofMillis(100), false, Logger.getLogger(AgentLifecycleTest.class.getName()),
      Level.FINE, false);

  /** A receiver whose creation is counted and, when told, fails on the configuration. */
  static final class Probe implements ReceiverProvider {
    final AtomicInteger creates = new AtomicInteger();
    final boolean fails;

    Probe(boolean fails) {
      this.fails = fails;
    }

    @Override
    public String name() {
      return "probe";
    }

    @Override
    public int order() {
      return 0;
    }

    @Override
    public boolean enabled(AgentConfig config) {
      return true;
    }

    @Override
    public Receiver create(ReceiverContext context) {
      creates.incrementAndGet();
      if (fails) {
        throw new ConfigException("probe.setting", 0, "unusable configuration");
      }
      throw new IllegalStateException("not reached in these tests");
    }
  }

  @Test
  void start_listenerFirst_portInUse_failsBeforeAnyReceiverIsCreated() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      AgentConfig config = config(taken.getLocalPort());
      Probe probe = new Probe(false);
      StandaloneSdk sdk = StandaloneSdk.create(true);

      assertThatThrownBy(() -> AgentLifecycle.start(config, sdk, runtime(config, sdk, probe),
              AgentLifecycle.Listener.FIRST_AND_REQUIRED, POLICY))
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining("can't listen on 127.0.0.1:" + taken.getLocalPort());
      assertThat(probe.creates).hasValue(0);
    }
  }

  @Test
  void start_listenerFirst_receiverFails_closesTheListenerItHadBound() throws Exception {
    int port = freePort();
    AgentConfig config = config(port);
    Probe probe = new Probe(true);
    StandaloneSdk sdk = StandaloneSdk.create(true);

    assertThatThrownBy(() -> AgentLifecycle.start(config, sdk, runtime(config, sdk, probe),
            AgentLifecycle.Listener.FIRST_AND_REQUIRED, POLICY))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unusable configuration");
    assertThat(probe.creates).hasValue(1);
    // The listener was bound before the receiver failed, and is closed again: the port is free.
    try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(again.getLocalPort()).isEqualTo(port);
    }
  }

  @Test
  void start_listenerLast_receiverFails_neverBindsTheListener() throws Exception {
    int port = freePort();
    AgentConfig config = config(port);
    Probe probe = new Probe(true);
    StandaloneSdk sdk = StandaloneSdk.create(true);
    AgentRuntime runtime = runtime(config, sdk, probe);

    assertThatThrownBy(() -> AgentLifecycle.start(config, sdk, runtime,
            AgentLifecycle.Listener.LAST_AND_OPTIONAL, POLICY))
        .isInstanceOf(ConfigException.class);
    assertThat(probe.creates).hasValue(1);
    assertThat(runtime.receiverNames()).isEmpty();
    try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(again.getLocalPort()).isEqualTo(port);
    }
  }

  private static AgentConfig config(int port) {
    return new ConfigLoader().parse("", Map.of("listen", "127.0.0.1:" + port));
  }

  private static AgentRuntime runtime(AgentConfig config, StandaloneSdk sdk, Probe probe) {
    return AgentRuntime.builder(config)
        .setOpenTelemetry(sdk.openTelemetry())
        .setHistogramProducer(sdk.histograms())
        .setProviders(List.of(probe))
        .build();
  }

  /** A port nothing listens on now (the kernel's pick, released at once). */
  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
