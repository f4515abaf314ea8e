package dev.gputop.agent.extension;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.sdk.autoconfigure.spi.internal.DefaultConfigProperties;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExtensionSettingsTest {

  @Test
  void from_readsTheFileAndFlatKeysFromTheAgentsConfiguration() {
    ExtensionSettings s = ExtensionSettings.from(DefaultConfigProperties.createFromMap(Map.of(
        "otel.gputop.config", "/etc/gputop/agent.yaml",
        "otel.gputop.refresh.normal", "5s",
        "otel.gputop.inference.scrape.maxBodyBytes", "1048576",
        "otel.gputop.listen", "off",
        "otel.service.name", "gateway")));
    assertThat(s.enabled()).isTrue();
    assertThat(s.configFile()).isEqualTo(Path.of("/etc/gputop/agent.yaml"));
    assertThat(s.overrides()).containsExactlyInAnyOrderEntriesOf(Map.of(
        "refresh.normal", "5s", "inference.scrape.maxBodyBytes", "1048576", "listen", "off"));
  }

  @Test
  void of_environmentStyleNamesMapToTheSameKeys() {
    // What the SDK makes of OTEL_GPUTOP_INFERENCE_DISCOVERY_ENABLED=false and OTEL_GPUTOP_ENABLED=false.
    Map<String, String> normalized = Map.of(
        "otel.gputop.inference.discovery.enabled", "false", "otel.gputop.enabled", "false");
    ExtensionSettings s = ExtensionSettings.of(normalized::get);
    assertThat(s.enabled()).isFalse();
    assertThat(s.configFile()).isNull();
    assertThat(s.overrides()).containsExactly(Map.entry("inference.discovery.enabled", "false"));
  }

  @Test
  void from_nothingConfiguredMeansDefaults() {
    ExtensionSettings s = ExtensionSettings.from(DefaultConfigProperties.createFromMap(Map.of()));
    assertThat(s).isEqualTo(new ExtensionSettings(true, null, Map.of()));
  }
}
