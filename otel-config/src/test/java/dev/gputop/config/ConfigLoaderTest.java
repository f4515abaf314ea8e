package dev.gputop.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigLoaderTest {

  private final ConfigLoader loader = new ConfigLoader(Map.of("CHAT_TOKEN", "s3cret")::get);

  @Test
  void parse_emptyGivesDefaults() {
    AgentConfig c = loader.parse("", Map.of());
    assertThat(c).isEqualTo(AgentConfig.defaults());
    assertThat(c.refreshNormal()).isEqualTo(Duration.ofSeconds(3));
    assertThat(c.inference().window()).isEqualTo(Duration.ofMinutes(1));
    assertThat(c.listen()).isEqualTo("127.0.0.1:9464");
  }

  @Test
  void parse_fullFile() {
    String yaml =
        "refresh:\n"
            + "  normal: 5s\n"
            + "listen: 0.0.0.0:9500\n"
            + "inference:\n"
            + "  window: 2m\n"
            + "  discovery:\n"
            + "    scope: all\n"
            + "  scrape:\n"
            + "    timeout: 750ms\n"
            + "    maxBodyBytes: 4Mi\n"
            + "  endpoints:\n"
            + "    - name: chat-api\n"
            + "      url: http://10.0.0.5:8000/metrics\n"
            + "      headers:\n"
            + "        X-Token: ${env:CHAT_TOKEN}\n"
            + "      tls:\n"
            + "        caFile: /etc/ca.pem\n"
            + "nvml:\n"
            + "  enabled: false\n";
    AgentConfig c = loader.parse(yaml, Map.of());
    assertThat(c.refreshNormal()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.listen()).isEqualTo("0.0.0.0:9500");
    assertThat(c.inference().window()).isEqualTo(Duration.ofMinutes(2));
    assertThat(c.inference().discovery().scope()).isEqualTo(DiscoveryConfig.Scope.ALL);
    assertThat(c.inference().scrape().timeout()).isEqualTo(Duration.ofMillis(750));
    assertThat(c.inference().scrape().maxBodyBytes()).isEqualTo(4L << 20);
    Endpoint ep = c.inference().endpoints().get(0);
    assertThat(ep.name()).isEqualTo("chat-api");
    assertThat(ep.url().toString()).isEqualTo("http://10.0.0.5:8000/metrics");
    assertThat(ep.headers()).containsEntry("X-Token", "s3cret");
    assertThat(ep.toString()).doesNotContain("s3cret");
    assertThat(ep.tls().caFile()).isEqualTo("/etc/ca.pem");
    assertThat(c.nvml().enabled()).isFalse();
  }

  @Test
  void parse_unknownKeyNamesKeyAndLine() {
    String yaml = "inference:\n  window: 1m\n  windwo: 2m\n";
    assertThatThrownBy(() -> loader.parse(yaml, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("line 3: inference.windwo: unknown key")
        .satisfies(e -> assertThat(((ConfigException) e).line()).isEqualTo(3));
  }

  @Test
  void parse_badDurationNamesKeyAndLine() {
    assertThatThrownBy(() -> loader.parse("refresh:\n  normal: soon\n", Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 2: refresh.normal: expected a duration");
  }

  @Test
  void parse_badUrlScheme() {
    String yaml = "inference:\n  endpoints:\n    - url: ftp://x/metrics\n";
    assertThatThrownBy(() -> loader.parse(yaml, Map.of()))
        .hasMessageContaining("line 3: inference.endpoints[0].url: must be an http or https URL");
  }

  @Test
  void parse_missingEnvVariableIsAnError() {
    String yaml = "inference:\n  endpoints:\n    - url: http://h:1/metrics\n      headers:\n        A: ${env:NOPE}\n";
    assertThatThrownBy(() -> loader.parse(yaml, Map.of()))
        .hasMessageContaining("inference.endpoints[0].headers.A: environment variable NOPE is not set");
  }

  @Test
  void parse_overridesApplyOnTop() {
    AgentConfig c = loader.parse("refresh:\n  normal: 5s\n", Map.of("refresh.normal", "1s", "nvml.enabled", "false"));
    assertThat(c.refreshNormal()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.nvml().enabled()).isFalse();
    assertThatThrownBy(() -> loader.parse("", Map.of("bogus.key", "1"))).hasMessageContaining("bogus.key: unknown key");
  }

  @Test
  void parse_invalidYamlReportsLine() {
    assertThatThrownBy(() -> loader.parse("inference:\n  window: [1m\n", Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("not valid YAML");
  }

  @Test
  void parse_duplicateEndpointName() {
    String yaml = "inference:\n  endpoints:\n    - {name: a, url: http://h:1/m}\n    - {name: a, url: http://h:2/m}\n";
    assertThatThrownBy(() -> loader.parse(yaml, Map.of())).hasMessageContaining("line 4: inference.endpoints[1].name: duplicate");
  }
}
