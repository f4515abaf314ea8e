package dev.gputop.config;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One {@code inference.slo.overrides[]} entry: targets for the servers (or models) that {@code
 * match} selects. Each matcher is a glob ({@code *} any run of characters, {@code ?} one
 * character), compared with the whole value; a null matcher matches anything. Immutable.
 *
 * @param server glob on the server's name, or null
 * @param engine glob on the engine ({@code vllm}, {@code sglang}, ...), or null
 * @param model glob on the served model, or null; a server serving several models only matches
 *     it per model ({@code models[]}), never with its total
 * @param targets what the override sets
 */
public record SloOverride(String server, String engine, String model, SloTargets targets) {

  public SloOverride {
    Objects.requireNonNull(targets, "targets");
  }

  /**
   * Whether the override applies.
   *
   * @param model the model the statistics are for (the server's only model for its total), or
   *     null when unknown or several
   */
  public boolean matches(String serverName, String engineId, String modelName) {
    return glob(server, serverName) && glob(engine, engineId) && glob(this.model, modelName);
  }

  private static boolean glob(String pattern, String value) {
    if (pattern == null) {
      return true;
    }
    if (value == null) {
      return false;
    }
    StringBuilder re = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char ch = pattern.charAt(i);
      if (ch == '*') {
        re.append(".*");
      } else if (ch == '?') {
        re.append('.');
      } else {
        re.append(Pattern.quote(String.valueOf(ch)));
      }
    }
    return Pattern.compile(re.toString(), Pattern.DOTALL).matcher(value).matches();
  }
}
