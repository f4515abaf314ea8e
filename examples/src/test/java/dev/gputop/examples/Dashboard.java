package dev.gputop.examples;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Grafana dashboard read from its JSON model: its panels (rows flattened), every PromQL
 * expression, and its template variables. Immutable after construction.
 */
final class Dashboard {

  /** Grafana's built-in variables, which need no definition in the dashboard. */
  static final Set<String> BUILT_INS =
      Set.of("__rate_interval", "__interval", "__interval_ms", "__range", "__range_s", "__range_ms", "__dashboard", "__from", "__to");

  private static final Pattern VARIABLE = Pattern.compile("\\$(?:\\{(\\w+)(?::\\w+)?}|(\\w+))");

  /** One query of one panel. */
  record Query(String panelTitle, String refId, String expr, JsonNode target) {}

  /** A template variable: name, its query (label_values(...)), and whether it allows several values. */
  record Variable(String name, String query, boolean multi, boolean includeAll) {}

  final JsonNode root;

  Dashboard(JsonNode root) {
    this.root = root;
  }

  static Dashboard load(String relative) {
    return new Dashboard(Examples.json(relative));
  }

  /** Every panel, with the panels of collapsed rows included. */
  List<JsonNode> panels() {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode p : root.path("panels")) {
      out.add(p);
      p.path("panels").forEach(out::add);
    }
    return out;
  }

  /** Panels that show data (not rows, not text). */
  List<JsonNode> dataPanels() {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode p : panels()) {
      String type = p.path("type").asText();
      if (!type.equals("row") && !type.equals("text")) {
        out.add(p);
      }
    }
    return out;
  }

  List<Query> queries() {
    List<Query> out = new ArrayList<>();
    for (JsonNode p : dataPanels()) {
      for (JsonNode t : p.path("targets")) {
        out.add(new Query(p.path("title").asText(), t.path("refId").asText(), t.path("expr").asText(), t));
      }
    }
    return out;
  }

  /** Template variables in definition order (Grafana resolves them in that order). */
  Map<String, Variable> variables() {
    Map<String, Variable> out = new LinkedHashMap<>();
    for (JsonNode v : root.path("templating").path("list")) {
      JsonNode q = v.path("query");
      String query = q.isObject() ? q.path("query").asText() : q.asText();
      out.put(v.path("name").asText(),
          new Variable(v.path("name").asText(), query, v.path("multi").asBoolean(), v.path("includeAll").asBoolean()));
    }
    return out;
  }

  /** The names of the variables a text refers to ($name, ${name}, ${name:format}). */
  static Set<String> variablesUsedIn(String text) {
    Set<String> out = new TreeSet<>();
    Matcher m = VARIABLE.matcher(text);
    while (m.find()) {
      out.add(m.group(1) != null ? m.group(1) : m.group(2));
    }
    return out;
  }

  /** Replaces $name and ${name} with the given values. */
  static String substitute(String text, Map<String, String> values) {
    Matcher m = VARIABLE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String name = m.group(1) != null ? m.group(1) : m.group(2);
      String value = values.get(name);
      if (value == null) {
        throw new IllegalArgumentException("no value for $" + name + " in " + text);
      }
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static final Pattern LABEL_VALUES = Pattern.compile("^label_values\\((?:(.*),\\s*)?(\\w+)\\)$");

  /** A label_values(selector, label) query split into selector (may be empty) and label. */
  record LabelValues(String selector, String label) {}

  static LabelValues parseLabelValues(String query) {
    Matcher m = LABEL_VALUES.matcher(query.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a label_values(selector, label) query: " + query);
    }
    return new LabelValues(m.group(1) == null ? "" : m.group(1).trim(), m.group(2));
  }
}
