package dev.gputop.config;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The values read for one mapping of the file (the whole file, or one element of a list), each
 * with the line it was written on, for {@link ConfigSchema#build}. Absent keys read as their
 * defaults. Written once by {@link ConfigLoader}, then only read.
 */
final class ConfigValues {

  private final String prefix;
  private final Map<ConfigSchema.Key<?, ?>, Object> values = new HashMap<>();
  private final Map<String, Integer> lines = new HashMap<>();
  private final Map<ConfigSchema.ListKey<?>, List<ConfigValues>> lists = new HashMap<>();

  /** Values of the mapping whose keys are named {@code prefix + path} in messages. */
  ConfigValues(String prefix) {
    this.prefix = prefix;
  }

  /** No values: every key at its default. */
  static ConfigValues defaults() {
    return new ConfigValues("");
  }

  @SuppressWarnings("unchecked")
  <T> T get(ConfigSchema.Key<?, T> key) {
    return values.containsKey(key) ? (T) values.get(key) : key.defaultValue;
  }

  /** The elements read for a list; empty when the list is absent. */
  List<ConfigValues> list(ConfigSchema.ListKey<?> key) {
    return lists.getOrDefault(key, List.of());
  }

  /** The line a key or section (dotted path; "" for this mapping) was written on, 0 if not. */
  int line(String path) {
    return lines.getOrDefault(path, 0);
  }

  /** The name of a key or section in messages, {@code inference.endpoints[1].name} in a list. */
  String name(String path) {
    return prefix + path;
  }

  void put(ConfigSchema.Key<?, ?> key, Object value) {
    values.put(key, value);
  }

  void putList(ConfigSchema.ListKey<?> key, List<ConfigValues> elements) {
    lists.put(key, List.copyOf(elements));
  }

  void line(String path, int line) {
    lines.put(path, line);
  }
}
