package dev.gputop.config;

import dev.gputop.config.internal.IoMessages;
import dev.gputop.config.internal.YamlTree;
import dev.gputop.config.internal.YamlTree.Node;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the agent's YAML configuration (README.md "Configuration") into an {@link AgentConfig}, by
 * the keys, types and defaults that {@link ConfigSchema} declares: which keys a section allows,
 * how a value is read and which keys can be overrides all come from there.
 *
 * <p>Every key has a default, so an empty file (or none) is valid. Unknown keys, wrong types and
 * invalid values throw {@link ConfigException} naming the dotted key and its line. Flat overrides
 * ({@code refresh.normal=5s}, from system properties or the OpenTelemetry Java agent's
 * configuration) are applied on top of the file and reported with line 0.
 *
 * <p>Header values may reference the environment as {@code ${env:NAME}}, so secrets need not be
 * written into the file. Stateless and thread-safe.
 */
public final class ConfigLoader {

  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");
  private static final Pattern ENV_REF = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)}");

  /**
   * The keys that may be given as flat overrides: every top-level scalar of {@link ConfigSchema},
   * in its order.
   */
  public static final Set<String> SCALAR_KEYS = ConfigSchema.overridableKeys();

  private final Function<String, String> environment;

  /** A loader that resolves {@code ${env:NAME}} from the process environment. */
  public ConfigLoader() {
    this(System::getenv);
  }

  /** A loader with an explicit environment, for tests. */
  public ConfigLoader(Function<String, String> environment) {
    this.environment = environment;
  }

  /** Loads a file; throws {@link UncheckedIOException} when it can't be read. */
  public AgentConfig load(Path file) {
    return load(file, Map.of());
  }

  /** Loads a file (or only defaults when {@code file} is null) and applies flat overrides. */
  public AgentConfig load(Path file, Map<String, String> overrides) {
    return load(file, Map.of(), overrides);
  }

  /**
   * Loads a file as {@link #load(Path, Map)} does, with {@code defaults} (flat keys, as overrides
   * are given) in place of the schema's defaults wherever the file leaves a key out: a command's
   * own defaults (the demo's 1 s refresh) that the user's file still wins over.
   */
  public AgentConfig load(Path file, Map<String, String> defaults, Map<String, String> overrides) {
    String text;
    try {
      text = file == null ? "" : Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("can't read configuration file " + file + ": " + IoMessages.describe(e), e);
    }
    return parse(text, defaults, overrides);
  }

  /** Parses YAML text and applies flat overrides. */
  public AgentConfig parse(String yaml, Map<String, String> overrides) {
    return parse(yaml, Map.of(), overrides);
  }

  private AgentConfig parse(String yaml, Map<String, String> defaults, Map<String, String> overrides) {
    Node root = readTree(yaml);
    if (root == null) {
      root = Node.emptyMap(1, "(root)");
    }
    if (!(root.value() instanceof Map)) {
      throw new ConfigException("(root)", root.line(), "expected a mapping of keys");
    }
    for (Map.Entry<String, String> e : defaults.entrySet()) {
      applyOverride(root, e.getKey(), e.getValue(), false);
    }
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      applyOverride(root, e.getKey(), e.getValue(), true);
    }
    return build(root);
  }

  // ---------------------------------------------------------------- tree with line numbers

  private static Node readTree(String yaml) {
    return YamlTree.parse(yaml, "(root)", ConfigException::new);
  }

  /** Puts {@code key: value} into the tree; where the file has the key, only when {@code replace}. */
  private static void applyOverride(Node root, String key, String value, boolean replace) {
    if (!SCALAR_KEYS.contains(key)) {
      throw new ConfigException(key, 0, "unknown key (override); known keys: " + SCALAR_KEYS);
    }
    String[] parts = key.split("\\.");
    Node cur = root;
    for (int i = 0; i < parts.length - 1; i++) {
      Node next = cur.map().get(parts[i]);
      if (!replace && next != null && next.value() != null && !(next.value() instanceof Map)) {
        return; // not a mapping: left for the schema to report at its line
      }
      if (next == null || !(next.value() instanceof Map)) {
        next = Node.emptyMap(0, String.join(".", java.util.Arrays.copyOf(parts, i + 1)));
        cur.map().put(parts[i], next);
      }
      cur = next;
    }
    if (replace || !cur.map().containsKey(parts[parts.length - 1])) {
      cur.map().put(parts[parts.length - 1], new Node(value, 0, key));
    }
  }

  // ---------------------------------------------------------------- reading by the schema

  /**
   * The shape of a mapping in the file, derived from {@link ConfigSchema}'s dotted names: each
   * child is a {@link ConfigSchema.Key}, a {@link ConfigSchema.ListKey} or a nested Shape.
   */
  private static final class Shape {
    final Map<String, Object> children = new LinkedHashMap<>();

    void add(String path, Object leaf) {
      int dot = path.indexOf('.');
      if (dot < 0) {
        children.put(path, leaf);
      } else {
        ((Shape) children.computeIfAbsent(path.substring(0, dot), k -> new Shape()))
            .add(path.substring(dot + 1), leaf);
      }
    }
  }

  private static final Shape ROOT = rootShape();
  private static final Map<ConfigSchema.ListKey<?>, Shape> ELEMENTS = new LinkedHashMap<>();

  private static Shape rootShape() {
    Shape root = new Shape();
    for (ConfigSchema.Entry e : ConfigSchema.topLevel()) {
      root.add(e instanceof ConfigSchema.ListKey ? ((ConfigSchema.ListKey<?>) e).path
          : ((ConfigSchema.Key<?, ?>) e).path, e);
    }
    return root;
  }

  private static Shape elementShape(ConfigSchema.ListKey<?> list) {
    synchronized (ELEMENTS) {
      return ELEMENTS.computeIfAbsent(list, l -> {
        Shape s = new Shape();
        for (ConfigSchema.Key<?, ?> k : l.keys) {
          s.add(k.path, k);
        }
        return s;
      });
    }
  }

  private AgentConfig build(Node root) {
    ConfigValues values = new ConfigValues("");
    values.line("", root.line());
    read(root, ROOT, "", values);
    return ConfigSchema.build(values);
  }

  /**
   * Reads one mapping by its shape: unknown keys are errors, keys are read by their types into
   * {@code out}, nested sections recursively, list elements into their own values.
   *
   * @param at the mapping's path relative to {@code out} ("" for {@code out}'s own mapping)
   */
  private void read(Node node, Shape shape, String at, ConfigValues out) {
    String name = at.isEmpty() ? (out.name("").isEmpty() ? "(root)" : trimDot(out.name(""))) : out.name(at);
    Map<String, Node> m = section(node, name, shape.children.keySet());
    int line = node == null ? 0 : node.line();
    for (Map.Entry<String, Object> child : shape.children.entrySet()) {
      String path = at.isEmpty() ? child.getKey() : at + "." + child.getKey();
      Node n = m.get(child.getKey());
      if (n != null) {
        out.line(path, n.line());
      }
      Object leaf = child.getValue();
      if (leaf instanceof Shape) {
        read(n, (Shape) leaf, path, out);
      } else if (leaf instanceof ConfigSchema.ListKey) {
        readList(n, (ConfigSchema.ListKey<?>) leaf, out);
      } else {
        ConfigSchema.Key<?, ?> key = (ConfigSchema.Key<?, ?>) leaf;
        Object value = value(n, key, out.name(path), line);
        if (value != ABSENT) {
          out.put(key, value);
        }
      }
    }
  }

  private static String trimDot(String prefix) {
    return prefix.endsWith(".") ? prefix.substring(0, prefix.length() - 1) : prefix;
  }

  private void readList(Node node, ConfigSchema.ListKey<?> list, ConfigValues out) {
    if (node == null || node.value() == null) {
      return;
    }
    String name = out.name(list.path);
    if (!(node.value() instanceof List)) {
      throw new ConfigException(name, node.line(), "expected a list of " + list.path.substring(list.path.lastIndexOf('.') + 1));
    }
    List<ConfigValues> elements = new ArrayList<>();
    List<Node> nodes = node.list();
    for (int i = 0; i < nodes.size(); i++) {
      ConfigValues element = new ConfigValues(name + "[" + i + "].");
      element.line("", nodes.get(i).line());
      read(nodes.get(i), elementShape(list), "", element);
      elements.add(element);
    }
    out.putList(list, elements);
  }

  /** Marks a key that was not given, so that its default applies. */
  private static final Object ABSENT = new Object();

  /**
   * One key's value read by its type, or {@link #ABSENT}.
   *
   * @param parentLine the line of the mapping holding the key, where a missing required key is
   *     reported
   */
  /** A sequence's elements, each checked on its own line, then the list as a whole on the key's. */
  private static <E> List<E> elements(Node node, ConfigType.SequenceType<E> list, String name) {
    List<E> out = new ArrayList<>();
    for (Node element : node.list()) {
      if (!(element.value() instanceof String)) {
        throw new ConfigException(name, element.line(), "expected a " + list.elementName());
      }
      try {
        out.add(list.element((String) element.value()));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(name, element.line(), e.getMessage());
      }
    }
    try {
      return list.whole(out);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name, node.line(), e.getMessage());
    }
  }

  private Object value(Node node, ConfigSchema.Key<?, ?> key, String name, int parentLine) {
    if (key.type instanceof ConfigType.SecretMap) {
      return secrets(node, name, key.type);
    }
    if (key.type instanceof ConfigType.SequenceType<?> list && node != null && node.value() instanceof List) {
      return elements(node, list, name);
    }
    if (node == null || node.value() == null) {
      if (key.required) {
        throw new ConfigException(name, parentLine, "is required");
      }
      return ABSENT;
    }
    if (!(node.value() instanceof String)) {
      throw new ConfigException(name, node.line(), "expected a single value");
    }
    String text = (String) node.value();
    if (key.required && text.isBlank()) {
      throw new ConfigException(name, parentLine, "is required");
    }
    try {
      return key.type.parse(text);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name, node.line(), e.getMessage());
    }
  }

  private Object secrets(Node node, String name, ConfigType<?> type) {
    if (node == null || node.value() == null) {
      return ABSENT;
    }
    if (!(node.value() instanceof Map)) {
      throw new ConfigException(name, node.line(), "expected a " + type.name());
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, Node> e : node.map().entrySet()) {
      String key = name + "." + e.getKey();
      if (!(e.getValue().value() instanceof String)) {
        throw new ConfigException(key, e.getValue().line(), "expected a string value");
      }
      out.put(e.getKey(), resolveEnv((String) e.getValue().value(), key, e.getValue().line()));
    }
    return out;
  }

  private static Map<String, Node> section(Node node, String key, Set<String> allowed) {
    if (node == null || node.value() == null) {
      return Map.of();
    }
    if (!(node.value() instanceof Map)) {
      throw new ConfigException(key, node.line(), "expected a mapping with keys " + new java.util.TreeSet<>(allowed));
    }
    Map<String, Node> m = node.map();
    for (Map.Entry<String, Node> e : m.entrySet()) {
      if (!allowed.contains(e.getKey())) {
        String full = key.equals("(root)") ? e.getKey() : key + "." + e.getKey();
        throw new ConfigException(full, e.getValue().line(),
            "unknown key; allowed here: " + new java.util.TreeSet<>(allowed));
      }
    }
    return m;
  }

  /** Parses {@code 500ms}, {@code 3s}, {@code 1.5m}, {@code 1h}, or ISO-8601 {@code PT3S}. */
  public static Duration parseDuration(String s) {
    Matcher m = DURATION.matcher(s);
    if (m.matches()) {
      double n = Double.parseDouble(m.group(1));
      double nanosPerUnit;
      switch (m.group(2)) {
        case "ms":
          nanosPerUnit = 1e6;
          break;
        case "s":
          nanosPerUnit = 1e9;
          break;
        case "m":
          nanosPerUnit = 60e9;
          break;
        default:
          nanosPerUnit = 3600e9;
      }
      return Duration.ofNanos(Math.round(n * nanosPerUnit));
    }
    try {
      return Duration.parse(s);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("not a duration: " + s, e);
    }
  }

  private String resolveEnv(String value, String key, int line) {
    Matcher m = ENV_REF.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String v = environment.apply(m.group(1));
      if (v == null) {
        throw new ConfigException(key, line, "environment variable " + m.group(1) + " is not set");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(v));
    }
    m.appendTail(out);
    return out.toString();
  }
}
