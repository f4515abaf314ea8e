package dev.gputop.agent.attach;

import dev.gputop.config.ConfigException;
import dev.gputop.config.ConfigLoader;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The option string of {@code -javaagent:gputop-agent.jar=OPTIONS} (and of dynamic attach): {@code
 * config=PATH} names the YAML file, any other {@code key=value} is a flat override of a scalar key
 * of that file ({@link ConfigLoader#SCALAR_KEYS}), separated by commas. For example {@code
 * config=/etc/gputop/agent.yaml,listen=off,refresh.normal=5s}. Immutable.
 *
 * @param configFile the YAML file, or null for defaults
 * @param overrides flat overrides applied on top of the file
 */
record AgentOptions(Path configFile, Map<String, String> overrides) {

  /** The key that names the configuration file. */
  public static final String CONFIG = "config";

  public AgentOptions {
    overrides = Map.copyOf(overrides);
  }

  /**
   * Parses an option string; null or blank means defaults.
   *
   * @throws ConfigException naming the option when one is malformed or unknown
   */
  public static AgentOptions parse(String options) {
    Path config = null;
    Map<String, String> overrides = new LinkedHashMap<>();
    if (options == null || options.isBlank()) {
      return new AgentOptions(null, overrides);
    }
    for (String part : options.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      int eq = p.indexOf('=');
      if (eq <= 0) {
        throw new ConfigException(p, 0, "agent option must be key=value (e.g. config=/etc/gputop/agent.yaml)");
      }
      String key = p.substring(0, eq).trim();
      String value = p.substring(eq + 1).trim();
      if (key.equals(CONFIG)) {
        if (value.isEmpty()) {
          throw new ConfigException(CONFIG, 0, "agent option config= needs a file path");
        }
        config = Path.of(value);
      } else if (ConfigLoader.SCALAR_KEYS.contains(key)) {
        overrides.put(key, value);
      } else {
        throw new ConfigException(key, 0, "unknown agent option; use config=PATH or one of " + ConfigLoader.SCALAR_KEYS);
      }
    }
    return new AgentOptions(config, overrides);
  }
}
