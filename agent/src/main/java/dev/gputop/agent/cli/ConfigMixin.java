package dev.gputop.agent.cli;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigLoader;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The {@code --config F} option every command takes. Load errors surface as {@link
 * dev.gputop.config.ConfigException} (exit 1) or {@link java.io.UncheckedIOException} (exit 4),
 * which {@link Main}'s exception handler maps to exit codes.
 */
final class ConfigMixin {

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      description = "YAML configuration file; every key has a default (README: Configuration). "
          + "Check one with check-config.")
  Path configFile;

  /** The configuration from the file (or defaults), with {@code overrides} applied on top. */
  public AgentConfig load(Map<String, String> overrides) {
    return new ConfigLoader().load(configFile, overrides);
  }

  /** The configuration from the file, with {@code commandDefaults} where the file leaves a key out. */
  public AgentConfig loadWithDefaults(Map<String, String> commandDefaults) {
    return new ConfigLoader().load(configFile, commandDefaults, Map.of());
  }

  /** The configuration from the file, or defaults when none was given. */
  public AgentConfig load() {
    return load(Map.of());
  }

  /** The file given, or null. */
  public Path file() {
    return configFile;
  }
}
