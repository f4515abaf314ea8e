package dev.gputop.config;

/**
 * Engine profiles of the user's own ({@code inference.engines.*}), which add engines or replace
 * the built-in profile of the same engine (docs/engines/README.md). The profiles themselves are
 * read and validated by the inference receiver. Immutable.
 *
 * @param directory {@code inference.engines.directory}: a directory of profile files, or null
 * @param profiles {@code inference.engines.profiles}: profiles written inline as YAML text
 *     (several separated by {@code ---}), or null
 * @param profilesLine the line of agent.yaml the {@code profiles} key is on (0 when unknown), so
 *     that an error inside the inline text names its line in the file
 */
public record EnginesConfig(String directory, String profiles, int profilesLine) {

  /** No profiles of the user's: the built-in ones only. */
  public static EnginesConfig none() {
    return new EnginesConfig(null, null, 0);
  }
}
