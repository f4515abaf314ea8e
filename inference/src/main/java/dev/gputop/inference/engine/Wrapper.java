package dev.gputop.inference.engine;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A layer that re-exports an engine's metrics under names of its own, as a profile declares it
 * (docs/engines/README.md, {@code wrappers}): Ray Serve's metrics agent writes vLLM's {@code
 * vllm:num_requests_running} as {@code ray_vllm_num_requests_running}. The loader turns each
 * wrapper into wire prefixes of the profile ({@code ray_vllm_} → {@code vllm:}), so its names
 * are read by the profile's own rules. Immutable.
 *
 * @param name the wrapper's name, for messages ({@code ray})
 * @param prefix what the wrapper puts before the engine's name ({@code ray_})
 * @param sanitize the characters the wrapper replaces by {@code _} in the engine's name (a
 *     regular expression matching one character), or null when it keeps them
 * @param ignoreCounterGauges whether the wrapper also writes every counter a second time as a
 *     gauge named without {@code _total} (Ray's {@code RAY_EXPORT_COUNTER_AS_GAUGE}, on by
 *     default): such a gauge, beside its counter, is a duplicate and is never read
 * @param labels the labels the wrapper adds to every series (Ray's {@code ReplicaId}, {@code
 *     WorkerId}, ...): they only tell replicas and processes apart, so they are summed like the
 *     engine's split labels
 */
public record Wrapper(String name, String prefix, Pattern sanitize, boolean ignoreCounterGauges,
    List<String> labels) {

  public Wrapper {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(prefix, "prefix");
    labels = List.copyOf(labels);
  }

  /** How the wrapper writes a name of the engine: its prefix, then the name sanitized. */
  public String wrap(String engineName) {
    return prefix + (sanitize == null ? engineName : sanitize.matcher(engineName).replaceAll("_"));
  }

  /** Whether the wrapper would change a character of {@code text} (other than by prefixing). */
  boolean changes(String text) {
    return sanitize != null && sanitize.matcher(text).find();
  }

  // A record's equals would compare Patterns by identity.
  @Override
  public boolean equals(Object o) {
    return o instanceof Wrapper w && name.equals(w.name) && prefix.equals(w.prefix)
        && Objects.equals(sanitize == null ? null : sanitize.pattern(), w.sanitize == null ? null : w.sanitize.pattern())
        && ignoreCounterGauges == w.ignoreCounterGauges && labels.equals(w.labels);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, prefix, sanitize == null ? null : sanitize.pattern(), ignoreCounterGauges, labels);
  }
}
