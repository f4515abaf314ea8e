package dev.gputop.agent.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigSchema;
import dev.gputop.config.ConfigType;
import java.time.Duration;
import java.util.Map;

/**
 * Writes an {@link AgentConfig} back as YAML in the file's own key names, for {@code
 * check-config}: the tree comes from {@link ConfigSchema#effective}, so every declared key is
 * printed. Header values are secrets and are printed as {@code <redacted>}; file paths are
 * printed as they are. Stateless and thread-safe.
 */
final class EffectiveConfig {

  private EffectiveConfig() {}

  static String toYaml(AgentConfig c) throws JsonProcessingException {
    return Yaml.MAPPER.writeValueAsString(tree(c));
  }

  /**
   * The YAML writer, created on first use: {@link #duration} is on the start-up path of {@code
   * run}, and building a mapper there would cost the first scrape ~100 ms of class loading.
   */
  private static final class Yaml {
    static final ObjectMapper MAPPER =
        new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));
  }

  /** The tree {@link ConfigSchema#effective} builds: every key, secrets redacted. */
  static Map<String, Object> tree(AgentConfig c) {
    return ConfigSchema.effective(c);
  }

  /** The shortest of the file's own duration forms: 1h, 2m, 3s or 500ms. */
  static String duration(Duration d) {
    return ConfigType.formatDuration(d);
  }
}
