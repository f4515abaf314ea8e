package dev.gputop.inference.engine;

import dev.gputop.config.ConfigException;
import dev.gputop.config.ConfigSchema;
import dev.gputop.config.EnginesConfig;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The engine profiles in use: the built-in ones, replaced or extended by the user's
 * ({@code inference.engines.directory}, then {@code inference.engines.profiles}, which win). A
 * bad profile is a configuration error naming the key, the file and the line. Stateless.
 */
public final class UserProfiles {

  private UserProfiles() {}

  /**
   * The profiles for this configuration.
   *
   * @throws ConfigException when a profile can't be read or is not valid
   */
  public static EngineProfiles load(EnginesConfig config) {
    List<EngineProfile> added = new ArrayList<>();
    String directory = config.directory();
    if (directory != null && !directory.isBlank()) {
      String key = ConfigSchema.ENGINES_DIRECTORY.name();
      Path dir = Path.of(directory.trim());
      if (!Files.isDirectory(dir)) {
        throw new ConfigException(key, 0, "'" + directory + "' is not a directory");
      }
      try {
        added.addAll(EngineProfiles.readDirectory(dir));
      } catch (ProfileException e) {
        throw new ConfigException(key, 0, e.getMessage());
      } catch (UncheckedIOException e) {
        throw new ConfigException(key, 0, e.getMessage());
      }
    }
    if (config.profiles() != null && !config.profiles().isBlank()) {
      added.addAll(inline(config.profiles(), config.profilesLine()));
    }
    return EngineProfiles.builtIn().with(added);
  }

  /** The profiles of an inline block, documents separated by {@code ---} lines. */
  static List<EngineProfile> inline(String text, int keyLine) {
    String key = ConfigSchema.ENGINES_PROFILES.name();
    List<EngineProfile> out = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    StringBuilder doc = new StringBuilder();
    int docStart = 0;
    int index = 0;
    for (int i = 0; i <= lines.length; i++) {
      boolean separator = i < lines.length && lines[i].strip().equals("---");
      if (i == lines.length || separator) {
        if (!doc.toString().isBlank()) {
          index++;
          String origin = "agent.yaml " + key + " (profile " + index + ")";
          try {
            out.add(new ProfileLoader().parse(doc.toString(), origin));
          } catch (ProfileException e) {
            // A "profiles: |" block starts on the line after its key.
            int line = keyLine > 0 && e.line() > 0 ? keyLine + docStart + e.line() : 0;
            throw new ConfigException(key, line, "profile " + index + ": " + e.key() + ": " + e.reason());
          }
        }
        doc.setLength(0);
        docStart = i + 1;
        continue;
      }
      doc.append(lines[i]).append('\n');
    }
    try {
      return EngineProfiles.checkedOf(out).all();
    } catch (ProfileException e) {
      throw new ConfigException(key, keyLine, e.reason());
    }
  }
}
