package dev.gputop.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ListenAddressTest {

  @Test
  void readsAHostAndAPort_andWritesThemBack() {
    ListenAddress v4 = ListenAddress.parse("127.0.0.1:9464");
    assertThat(v4.host()).isEqualTo("127.0.0.1");
    assertThat(v4.port()).isEqualTo(9464);
    assertThat(v4).hasToString("127.0.0.1:9464");
    assertThat(ListenAddress.parse("node-7.example:0")).isEqualTo(new ListenAddress("node-7.example", 0));
  }

  @Test
  void anIpv6Host_losesItsBrackets_andGetsThemBackInText() {
    ListenAddress v6 = ListenAddress.parse("[::1]:9464");
    assertThat(v6.host()).isEqualTo("::1");
    assertThat(v6.socketAddress().getAddress().isLoopbackAddress()).isTrue();
    assertThat(v6.socketAddress().getPort()).isEqualTo(9464);
    assertThat(v6.withPort(0)).hasToString("[::1]:0");
    // Without brackets the last colon still ends the host; written back, it has them.
    assertThat(ListenAddress.parse("::1:80")).hasToString("[::1]:80");
  }

  @Test
  void withPort_keepsTheHost() {
    assertThat(ListenAddress.parse("0.0.0.0:9464").withPort(12345)).hasToString("0.0.0.0:12345");
  }

  @Test
  void malformedText_isRefusedWithItsOwnWords() {
    assertThatThrownBy(() -> ListenAddress.parse("9464")).hasMessage("expected host:port (or 'off'), not '9464'");
    assertThatThrownBy(() -> ListenAddress.parse(":9464")).hasMessage("expected host:port (or 'off'), not ':9464'");
    assertThatThrownBy(() -> ListenAddress.parse("host:")).hasMessage("expected host:port (or 'off'), not 'host:'");
    assertThatThrownBy(() -> ListenAddress.parse("host:65536")).hasMessage("port must be 0-65535 in 'host:65536'");
    assertThatThrownBy(() -> ListenAddress.parse("host:-1")).hasMessage("port must be 0-65535 in 'host:-1'");
    assertThatThrownBy(() -> ListenAddress.parse("host:http")).hasMessage("port must be 0-65535 in 'host:http'");
    assertThatThrownBy(() -> new ListenAddress("h", 70000)).hasMessage("port must be 0-65535, not 70000");
  }

  @Test
  void agentConfig_givesItsListenAsAnAddress_unlessTheListenerIsOff() {
    AgentConfig defaults = AgentConfig.defaults();
    assertThat(defaults.listenAddress()).isEqualTo(new ListenAddress("127.0.0.1", 9464));
    AgentConfig off = defaults.withListen("off");
    assertThat(off.listenerDisabled()).isTrue();
    assertThatThrownBy(off::listenAddress).isInstanceOf(IllegalStateException.class).hasMessage("listen: off");
  }
}
