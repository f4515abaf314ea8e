package dev.gputop.agent.attach;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.config.ConfigLoader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AttachedAgentTest {

  @Test
  void start_portInUseLeavesTheListenerOutAndRunsTheReceivers() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      var config = new ConfigLoader().parse("", Map.of(
          "listen", "127.0.0.1:" + taken.getLocalPort(),
          "nvml.enabled", "false",
          "inference.discovery.enabled", "false"));
      try (AttachedAgent agent = AttachedAgent.start(config)) {
        assertThat(agent.server()).isNull();
        assertThat(agent.runtime().receiverNames()).contains("inference");
      }
    }
  }

  @Test
  void close_isIdempotent() {
    var config = new ConfigLoader().parse("", Map.of("listen", "127.0.0.1:0", "nvml.enabled", "false",
        "inference.discovery.enabled", "false"));
    AttachedAgent agent = AttachedAgent.start(config);
    assertThat(agent.server()).isNotNull();
    agent.close();
    agent.close();
    assertThat(agent.runtime().receiverNames()).isEmpty();
  }
}
