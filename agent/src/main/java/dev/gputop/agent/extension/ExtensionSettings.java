package dev.gputop.agent.extension;

import dev.gputop.config.ConfigLoader;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * gputop's settings in the OpenTelemetry Java agent's configuration, so they can be given the way
 * every other agent setting is ({@code -D} system properties, {@code OTEL_*} variables, the
 * agent's configuration file):
 *
 * <ul>
 *   <li>{@code otel.gputop.enabled} ({@code OTEL_GPUTOP_ENABLED}), default true;
 *   <li>{@code otel.gputop.config} ({@code OTEL_GPUTOP_CONFIG}): the YAML file, optional;
 *   <li>{@code otel.gputop.<key>} for every scalar key of that file, e.g. {@code
 *       otel.gputop.refresh.normal=5s} ({@code OTEL_GPUTOP_REFRESH_NORMAL}), {@code
 *       otel.gputop.inference.discovery.enabled}, {@code otel.gputop.listen}; applied on top of the
 *       file. Keys are case-insensitive, as all of the agent's are.
 * </ul>
 *
 * Immutable.
 *
 * @param enabled whether the extension starts the receivers
 * @param configFile the YAML file, or null
 * @param overrides flat overrides by the file's dotted key
 */
record ExtensionSettings(boolean enabled, Path configFile, Map<String, String> overrides) {

  static final String PREFIX = "otel.gputop.";

  ExtensionSettings {
    overrides = Map.copyOf(overrides);
  }

  /** The settings in the agent's configuration. */
  static ExtensionSettings from(ConfigProperties config) {
    return of(config::getString);
  }

  /**
   * The settings from system properties and the environment alone, for an agent that never
   * showed its configuration to the extension.
   */
  static ExtensionSettings fromSystem() {
    return of(key -> {
      String v = System.getProperty(key);
      return v != null ? v : System.getenv(key.toUpperCase(Locale.ROOT).replace('.', '_'));
    });
  }

  /** The settings from a lookup of lower-case dotted property names. */
  static ExtensionSettings of(Function<String, String> property) {
    String enabled = property.apply(PREFIX + "enabled");
    String file = property.apply(PREFIX + "config");
    Map<String, String> overrides = new LinkedHashMap<>();
    for (String key : ConfigLoader.SCALAR_KEYS) {
      String value = property.apply(PREFIX + key.toLowerCase(Locale.ROOT));
      if (value != null && !value.isBlank()) {
        overrides.put(key, value.trim());
      }
    }
    return new ExtensionSettings(
        enabled == null || !enabled.trim().equalsIgnoreCase("false"),
        file == null || file.isBlank() ? null : Path.of(file.trim()), overrides);
  }
}
