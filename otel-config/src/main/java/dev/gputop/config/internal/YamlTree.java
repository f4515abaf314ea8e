package dev.gputop.config.internal;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one YAML reader of the project's files: a document as a tree of maps, lists and scalars
 * that remembers the line each value starts on and the dotted key that leads to it, so that a bad
 * value is reported by file, key and line. The configuration loader reads the configuration file
 * with it, the engine profiles loader the profile files. Duplicate keys are errors. Not for users
 * of the agent: an internal piece shared by the modules. Stateless and thread-safe.
 */
public final class YamlTree {

  private static final YAMLFactory YAML = new YAMLFactory();

  private YamlTree() {}

  /** Makes the caller's exception for a bad document: its key (or {@code (syntax)}), line, reason. */
  @FunctionalInterface
  public interface Errors {
    RuntimeException error(String key, int line, String reason);
  }

  /**
   * A value with its line: a {@code Map<String, Node>} (in document order; the caller may add to
   * it, e.g. overrides), a {@code List<Node>}, a String, or null.
   *
   * @param value the value
   * @param line the 1-based line it starts on (a key's line for a mapping's value), 0 when it is not
   *     from the file
   * @param key the dotted key that leads to it ({@code a.b[0].c}); the root's is the one given to
   *     {@link #parse}
   */
  public record Node(Object value, int line, String key) {

    /** An empty mapping the caller fills (a mapping that is not in the file). */
    public static Node emptyMap(int line, String key) {
      return new Node(new LinkedHashMap<String, Node>(), line, key);
    }

    public boolean isMap() {
      return value instanceof Map;
    }

    public boolean isList() {
      return value instanceof List;
    }

    @SuppressWarnings("unchecked")
    public Map<String, Node> map() {
      return (Map<String, Node>) value;
    }

    @SuppressWarnings("unchecked")
    public List<Node> list() {
      return (List<Node>) value;
    }

    public String text() {
      return (String) value;
    }
  }

  /**
   * Parses a document; null when it is empty.
   *
   * @param rootKey the root's key; its children's keys are their bare names
   * @param errors makes the exception thrown for invalid YAML (key {@code (syntax)}) and for a key
   *     given twice
   */
  public static Node parse(String yaml, String rootKey, Errors errors) {
    try (JsonParser p = YAML.createParser(yaml)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        return null;
      }
      return read(p, t, rootKey, true, errors);
    } catch (JsonProcessingException e) {
      JsonLocation loc = e.getLocation();
      throw errors.error("(syntax)", loc == null ? 0 : loc.getLineNr(),
          "not valid YAML: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Node read(JsonParser p, JsonToken t, String key, boolean root, Errors errors)
      throws IOException {
    int line = p.currentTokenLocation().getLineNr();
    switch (t) {
      case START_OBJECT:
        {
          Map<String, Node> map = new LinkedHashMap<>();
          while ((t = p.nextToken()) != JsonToken.END_OBJECT) {
            String name = p.currentName();
            int keyLine = p.currentTokenLocation().getLineNr();
            String child = root ? name : key + "." + name;
            if (map.containsKey(name)) {
              throw errors.error(child, keyLine, "given twice");
            }
            Node value = read(p, p.nextToken(), child, false, errors);
            map.put(name, new Node(value.value(), keyLine, child));
          }
          return new Node(map, line, key);
        }
      case START_ARRAY:
        {
          List<Node> list = new ArrayList<>();
          int i = 0;
          while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            list.add(read(p, t, key + "[" + i++ + "]", false, errors));
          }
          return new Node(list, line, key);
        }
      case VALUE_NULL:
        return new Node(null, line, key);
      default:
        return new Node(p.getText(), line, key);
    }
  }
}
