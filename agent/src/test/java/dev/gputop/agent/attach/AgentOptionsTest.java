package dev.gputop.agent.attach;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gputop.config.ConfigException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentOptionsTest {

  @Test
  void parse_nullOrBlankMeansDefaults() {
    assertThat(AgentOptions.parse(null)).isEqualTo(new AgentOptions(null, Map.of()));
    assertThat(AgentOptions.parse("  ")).isEqualTo(new AgentOptions(null, Map.of()));
  }

  @Test
  void parse_configAndFlatOverrides() {
    AgentOptions o = AgentOptions.parse("config=/etc/gputop/agent.yaml, listen=off,refresh.normal=5s,");
    assertThat(o.configFile()).isEqualTo(Path.of("/etc/gputop/agent.yaml"));
    assertThat(o.overrides()).containsExactlyInAnyOrderEntriesOf(Map.of("listen", "off", "refresh.normal", "5s"));
  }

  @Test
  void parse_unknownKeyIsAConfigErrorNamingIt() {
    assertThatThrownBy(() -> AgentOptions.parse("config=a.yaml,refresh=5s"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("refresh")
        .hasMessageContaining("unknown agent option");
  }

  @Test
  void parse_optionWithoutValueIsAConfigError() {
    assertThatThrownBy(() -> AgentOptions.parse("a.yaml")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("key=value");
    assertThatThrownBy(() -> AgentOptions.parse("config=")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("file path");
  }
}
