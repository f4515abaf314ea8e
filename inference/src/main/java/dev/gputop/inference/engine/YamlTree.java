package dev.gputop.inference.engine;

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
 * A YAML document as a tree of maps, lists and scalars that remembers the line each value
 * starts on, so that a bad profile can be reported by file, key and line (the configuration
 * loader's approach). Duplicate keys are errors.
 */
final class YamlTree {

  private static final YAMLFactory YAML = new YAMLFactory();

  private YamlTree() {}

  /**
   * A value with its line: a {@code Map<String, Node>}, a {@code List<Node>}, a String, or null.
   *
   * @param value the value
   * @param line the 1-based line it starts on
   * @param key the dotted key that leads to it
   */
  record Node(Object value, int line, String key) {

    boolean isMap() {
      return value instanceof Map;
    }

    boolean isList() {
      return value instanceof List;
    }

    @SuppressWarnings("unchecked")
    Map<String, Node> map() {
      return (Map<String, Node>) value;
    }

    @SuppressWarnings("unchecked")
    List<Node> list() {
      return (List<Node>) value;
    }

    String text() {
      return (String) value;
    }
  }

  /** Parses a document; null when it is empty. Errors name {@code origin}. */
  static Node parse(String yaml, String origin, String rootKey) {
    try (JsonParser p = YAML.createParser(yaml)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        return null;
      }
      return read(p, t, rootKey, origin);
    } catch (JsonProcessingException e) {
      JsonLocation loc = e.getLocation();
      throw new ProfileException(
          origin, "(syntax)", loc == null ? 0 : loc.getLineNr(), "not valid YAML: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Node read(JsonParser p, JsonToken t, String key, String origin) throws IOException {
    int line = p.currentTokenLocation().getLineNr();
    switch (t) {
      case START_OBJECT:
        {
          Map<String, Node> map = new LinkedHashMap<>();
          while ((t = p.nextToken()) != JsonToken.END_OBJECT) {
            String name = p.currentName();
            int keyLine = p.currentTokenLocation().getLineNr();
            String child = key.isEmpty() ? name : key + "." + name;
            if (map.containsKey(name)) {
              throw new ProfileException(origin, child, keyLine, "given twice");
            }
            Node value = read(p, p.nextToken(), child, origin);
            map.put(name, new Node(value.value(), keyLine, child));
          }
          return new Node(map, line, key);
        }
      case START_ARRAY:
        {
          List<Node> list = new ArrayList<>();
          int i = 0;
          while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            list.add(read(p, t, key + "[" + i++ + "]", origin));
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
