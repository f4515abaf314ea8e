package dev.gputop.inference.engine;

import dev.gputop.inference.engine.DiscoveryRule.Command;
import dev.gputop.inference.engine.DiscoveryRule.Endpoint;
import dev.gputop.inference.engine.DiscoveryRule.Kind;
import dev.gputop.inference.engine.DiscoveryRule.Role;
import dev.gputop.config.internal.YamlTree;
import dev.gputop.config.internal.YamlTree.Node;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads one engine profile file (YAML, format in docs/engines/README.md) into an {@link
 * EngineProfile}, validating it the way the configuration is validated: an unknown key, a wrong
 * type, a metric a concept can't read or a dangling reference throws {@link ProfileException}
 * naming the file, the dotted key and its line. Stateless and thread-safe.
 */
final class ProfileLoader {

  private static final Set<String> TOP_KEYS =
      Set.of(
          "engine", "name", "priority", "prefixes", "wrappers", "notRead", "markers", "modelLabels", "labels",
          "concepts", "discovery");
  private static final Set<String> WRAPPER_KEYS = Set.of("prefix", "sanitize", "counterGauges", "labels");
  private static final Set<String> LABEL_KEYS = Set.of("split", "rank", "totals", "noModel");
  private static final Set<String> TOTAL_KEYS = Set.of("label", "value", "metrics");
  private static final Set<String> SOURCE_KEYS =
      Set.of(
          "gauge", "counter", "sample", "histogram", "sum", "where", "scale", "added", "deprecated",
          "removed", "note", "when", "partsOf");
  private static final List<String> FORM_KEYS = List.of("gauge", "counter", "sample", "histogram", "sum");
  private static final Set<String> DISCOVERY_KEYS = Set.of("endpoints", "commands");
  private static final Set<String> ENDPOINT_KEYS =
      Set.of("portFlags", "defaultPort", "hostFlags", "defaultHost", "portEnv", "hostEnv", "path");
  private static final Set<String> COMMAND_KEYS =
      Set.of("program", "module", "title", "titleRegex", "subcommand", "role", "endpoint");
  private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  private static final Pattern PREFIX = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

  /** Reads a profile from YAML text; {@code origin} names it in errors. */
  public EngineProfile parse(String yaml, String origin) {
    Node root = YamlTree.parse(yaml, "", (key, line, reason) -> new ProfileException(origin, key, line, reason));
    if (root == null) {
      throw new ProfileException(origin, "(root)", 1, "empty profile");
    }
    return profile(root, origin);
  }

  /** Reads a profile from an already parsed tree (an inline profile in agent.yaml). */
  EngineProfile profile(Node root, String origin) {
    return new Reader(origin).profile(root);
  }

  /** The state of reading one file: its name, for every error. */
  private static final class Reader {
    private final String origin;

    Reader(String origin) {
      this.origin = origin;
    }

    private ProfileException error(Node n, String reason) {
      return new ProfileException(origin, n.key().isEmpty() ? "(root)" : n.key(), n.line(), reason);
    }

    private Map<String, Node> map(Node n, Set<String> known) {
      if (!n.isMap()) {
        throw error(n, "expected a mapping of keys");
      }
      for (Node child : n.map().values()) {
        String k = child.key().substring(child.key().lastIndexOf('.') + 1);
        if (!known.contains(k)) {
          throw error(child, "unknown key; known keys: " + sorted(known));
        }
      }
      return n.map();
    }

    private static String sorted(Set<String> keys) {
      return new java.util.TreeSet<>(keys).toString();
    }

    private String string(Node n) {
      if (n.value() == null || n.isMap() || n.isList()) {
        throw error(n, "expected a text value");
      }
      return n.text();
    }

    private String required(Map<String, Node> m, String key, Node parent) {
      Node n = m.get(key);
      if (n == null) {
        throw new ProfileException(origin, (parent.key().isEmpty() ? "" : parent.key() + ".") + key, parent.line(), "missing");
      }
      return string(n);
    }

    private int integer(Node n, int min, int max) {
      String s = string(n);
      try {
        int v = Integer.parseInt(s.trim());
        if (v < min || v > max) {
          throw error(n, v + " is out of range " + min + "–" + max);
        }
        return v;
      } catch (NumberFormatException e) {
        throw error(n, "'" + s + "' is not a whole number");
      }
    }

    private List<String> strings(Node n, Pattern allowed, String what) {
      if (n == null || n.value() == null) {
        return List.of();
      }
      if (!n.isList()) {
        throw error(n, "expected a list of " + what);
      }
      List<String> out = new ArrayList<>();
      for (Node item : n.list()) {
        String s = string(item);
        if (allowed != null && !allowed.matcher(s).matches()) {
          throw error(item, "'" + s + "' is not a valid " + what);
        }
        if (out.contains(s)) {
          throw error(item, "'" + s + "' is listed twice");
        }
        out.add(s);
      }
      return out;
    }

    EngineProfile profile(Node root) {
      Map<String, Node> m = map(root, TOP_KEYS);
      String id = required(m, "engine", root);
      Engine engine;
      try {
        engine = Engine.of(id);
      } catch (IllegalArgumentException e) {
        throw error(m.get("engine"), e.getMessage());
      }
      if (engine == Engine.UNKNOWN) {
        throw error(m.get("engine"), "'unknown' is the engine of endpoints no profile recognizes");
      }
      String name = required(m, "name", root);
      if (m.get("priority") == null) {
        throw new ProfileException(origin, "priority", root.line(), "missing");
      }
      int priority = integer(m.get("priority"), 0, 1_000_000);
      Map<String, String> prefixes = prefixes(m.get("prefixes"), root);
      List<Wrapper> wrappers = wrappers(m.get("wrappers"), prefixes);
      List<String> markers = strings(m.get("markers"), METRIC_NAME, "metric name");
      List<String> modelLabels = strings(m.get("modelLabels"), LABEL_NAME, "label name");
      List<String> split = List.of();
      List<String> rank = List.of();
      List<TotalRowRule> totals = List.of();
      List<String> noModel = List.of();
      Node labelsNode = m.get("labels");
      if (labelsNode != null && labelsNode.value() != null) {
        Map<String, Node> labels = map(labelsNode, LABEL_KEYS);
        noModel = strings(labels.get("noModel"), null, "label value");
        if (!noModel.isEmpty() && modelLabels.isEmpty()) {
          throw error(labels.get("noModel"), "values that name no model need modelLabels to name one");
        }
        split = strings(labels.get("split"), LABEL_NAME, "label name");
        rank = strings(labels.get("rank"), LABEL_NAME, "label name");
        totals = totals(labels.get("totals"));
        for (String r : rank) {
          if (split.contains(r) || modelLabels.contains(r)) {
            throw error(labels.get("rank"), "'" + r + "' can't be both a rank label and a summed or model label");
          }
        }
      }
      Node conceptsNode = m.get("concepts");
      if (conceptsNode == null) {
        throw new ProfileException(origin, "concepts", root.line(), "missing");
      }
      Map<Concept, List<Source>> concepts = concepts(conceptsNode, prefixes, markers);
      checkWrappable(m.get("wrappers"), wrappers, prefixes, concepts);
      List<String> notRead = notRead(m.get("notRead"), prefixes, concepts);
      split = withWrapperLabels(split, wrappers, rank, modelLabels, m.get("wrappers"));
      Set<String> sourceNames = new LinkedHashSet<>();
      for (List<Source> list : concepts.values()) {
        for (Source s : list) {
          for (Source leaf : s.leaves()) {
            sourceNames.add(leaf.name());
          }
        }
      }
      for (int i = 0; i < totals.size(); i++) {
        for (String metric : totals.get(i).metrics()) {
          if (!sourceNames.contains(metric)) {
            Node t = labelsNode.map().get("totals").list().get(i);
            throw error(t.map().get("metrics"), "'" + metric + "' is not a source of any concept in this profile");
          }
        }
      }
      DiscoveryRule discovery = DiscoveryRule.NONE;
      Node d = m.get("discovery");
      if (d != null && d.value() != null) {
        discovery = discovery(d);
      }
      return new EngineProfile(
          engine, name, priority, prefixes, wrappers, notRead, markers, modelLabels, noModel, rank, split, totals,
          concepts, discovery, origin);
    }

    private Map<String, String> prefixes(Node n, Node root) {
      if (n == null) {
        throw new ProfileException(origin, "prefixes", root.line(), "missing");
      }
      if (!n.isMap() || n.map().isEmpty()) {
        throw error(n, "expected a mapping of wire prefix to canonical prefix, e.g. \"ray_vllm:\": \"vllm:\"");
      }
      Map<String, String> out = new LinkedHashMap<>();
      for (Map.Entry<String, Node> e : n.map().entrySet()) {
        String wire = e.getKey();
        String canonical = string(e.getValue());
        if (!PREFIX.matcher(wire).matches()) {
          throw error(e.getValue(), "'" + wire + "' is not a metric-name prefix");
        }
        if (!PREFIX.matcher(canonical).matches()) {
          throw error(e.getValue(), "'" + canonical + "' is not a metric-name prefix");
        }
        out.put(wire, canonical);
      }
      for (Map.Entry<String, String> e : out.entrySet()) {
        if (!e.getValue().equals(out.get(e.getValue()))) {
          throw error(n.map().get(e.getKey()),
              "the canonical prefix '" + e.getValue() + "' must also be listed, mapping to itself");
        }
      }
      return out;
    }

    /**
     * The profile's wrappers; each adds, for every canonical prefix, the prefix it writes the
     * engine's names under ({@code ray_} + {@code vllm:} sanitized = {@code ray_vllm_}) to {@code
     * prefixes}, mapping to the canonical one.
     */
    private List<Wrapper> wrappers(Node n, Map<String, String> prefixes) {
      if (n == null || n.value() == null) {
        return List.of();
      }
      if (!n.isMap() || n.map().isEmpty()) {
        throw error(n, "expected a mapping of wrapper name to its rule, e.g. ray: {prefix: \"ray_\", sanitize: \"[^a-zA-Z0-9_]\"}");
      }
      List<String> canonicals = new ArrayList<>(new LinkedHashSet<>(prefixes.values()));
      List<Wrapper> out = new ArrayList<>();
      for (Map.Entry<String, Node> e : n.map().entrySet()) {
        Node w = e.getValue();
        Map<String, Node> wm = map(w, WRAPPER_KEYS);
        String prefix = required(wm, "prefix", w);
        if (!PREFIX.matcher(prefix).matches()) {
          throw error(wm.get("prefix"), "'" + prefix + "' is not a metric-name prefix");
        }
        Pattern sanitize = null;
        if (wm.get("sanitize") != null) {
          String re = string(wm.get("sanitize"));
          try {
            sanitize = Pattern.compile(re);
          } catch (PatternSyntaxException ex) {
            throw error(wm.get("sanitize"), "not a regular expression: " + ex.getDescription());
          }
        }
        boolean ignore = false;
        if (wm.get("counterGauges") != null) {
          String v = string(wm.get("counterGauges"));
          if (!v.equals("ignore") && !v.equals("read")) {
            throw error(wm.get("counterGauges"), "'" + v + "' is not one of ignore, read");
          }
          ignore = v.equals("ignore");
        }
        Wrapper wrapper = new Wrapper(e.getKey(), prefix, sanitize, ignore,
            strings(wm.get("labels"), LABEL_NAME, "label name"));
        for (String canonical : canonicals) {
          String wire = wrapper.wrap(canonical);
          if (!PREFIX.matcher(wire).matches()) {
            throw error(w, "wrapping '" + canonical + "' gives '" + wire + "', not a metric-name prefix");
          }
          String earlier = prefixes.putIfAbsent(wire, canonical);
          if (earlier != null && !earlier.equals(canonical)) {
            throw error(w, "wrapping '" + canonical + "' gives '" + wire + "', already the prefix of '" + earlier + "'");
          }
        }
        out.add(wrapper);
      }
      return out;
    }

    /**
     * A wrapper's names are read back by their prefix alone, so the part of a source's name after
     * its canonical prefix must be one the wrapper writes unchanged.
     */
    private void checkWrappable(Node n, List<Wrapper> wrappers, Map<String, String> prefixes,
        Map<Concept, List<Source>> concepts) {
      for (Wrapper w : wrappers) {
        for (List<Source> list : concepts.values()) {
          for (Source s : list) {
            for (Source leaf : s.leaves()) {
              for (String canonical : new LinkedHashSet<>(prefixes.values())) {
                if (leaf.name().startsWith(canonical) && w.changes(leaf.name().substring(canonical.length()))) {
                  throw error(n.map().get(w.name()), "the " + w.name() + " wrapper would rewrite '" + leaf.name()
                      + "' past its prefix, and it could not be read back");
                }
              }
            }
          }
        }
      }
    }

    /** The families the profile knows and reads for no concept: each the engine's, none a source. */
    private List<String> notRead(Node n, Map<String, String> prefixes, Map<Concept, List<Source>> concepts) {
      List<String> names = strings(n, METRIC_NAME, "metric name");
      for (int i = 0; i < names.size(); i++) {
        String name = names.get(i);
        Node item = n.list().get(i);
        boolean engines = false;
        for (Map.Entry<String, String> e : prefixes.entrySet()) {
          if (name.startsWith(e.getKey()) && !e.getKey().equals(e.getValue())) {
            throw error(item, "'" + name + "' starts with the alias prefix '" + e.getKey()
                + "'; write the canonical one, '" + e.getValue() + "'");
          }
          engines |= name.startsWith(e.getValue());
        }
        if (!engines) {
          throw error(item, "'" + name + "' has none of the profile's prefixes " + new LinkedHashSet<>(prefixes.values()));
        }
        for (List<Source> list : concepts.values()) {
          for (Source s : list) {
            for (Source leaf : s.leaves()) {
              if (leaf.name().equals(name)) {
                throw error(item, "'" + name + "' is a source of a concept: it is read");
              }
            }
          }
        }
      }
      return names;
    }

    /** The split labels with the wrappers' own labels added (they only tell replicas apart). */
    private List<String> withWrapperLabels(List<String> split, List<Wrapper> wrappers, List<String> rank,
        List<String> modelLabels, Node wrappersNode) {
      if (wrappers.isEmpty()) {
        return split;
      }
      LinkedHashSet<String> out = new LinkedHashSet<>(split);
      for (Wrapper w : wrappers) {
        for (String l : w.labels()) {
          if (rank.contains(l) || modelLabels.contains(l)) {
            throw error(wrappersNode.map().get(w.name()), "'" + l + "' is a label of the " + w.name() + " wrapper, summed: not a rank or model label");
          }
          out.add(l);
        }
      }
      return List.copyOf(out);
    }

    private List<TotalRowRule> totals(Node n) {
      if (n == null || n.value() == null) {
        return List.of();
      }
      if (!n.isList()) {
        throw error(n, "expected a list of total-row rules");
      }
      List<TotalRowRule> out = new ArrayList<>();
      for (Node item : n.list()) {
        Map<String, Node> m = map(item, TOTAL_KEYS);
        String label = required(m, "label", item);
        if (!LABEL_NAME.matcher(label).matches()) {
          throw error(m.get("label"), "'" + label + "' is not a label name");
        }
        String value = m.get("value") == null || m.get("value").value() == null ? "" : string(m.get("value"));
        out.add(new TotalRowRule(label, value, strings(m.get("metrics"), METRIC_NAME, "metric name")));
      }
      return out;
    }

    private Map<Concept, List<Source>> concepts(
        Node n, Map<String, String> prefixes, List<String> markers) {
      if (!n.isMap()) {
        throw error(n, "expected a mapping of concept to its sources");
      }
      Map<Concept, List<Source>> out = new EnumMap<>(Concept.class);
      for (Map.Entry<String, Node> e : n.map().entrySet()) {
        Node list = e.getValue();
        Concept concept = Concept.ofKey(e.getKey());
        if (concept == null) {
          List<String> keys = new ArrayList<>();
          for (Concept c : Concept.values()) {
            keys.add(c.key());
          }
          throw error(list, "unknown concept; known concepts: " + keys);
        }
        if (!list.isList() || list.list().isEmpty()) {
          throw error(list, "expected a list of sources, preferred first");
        }
        List<Source> sources = new ArrayList<>();
        for (Node item : list.list()) {
          Source s = source(item, concept, prefixes, markers, false);
          for (Source earlier : sources) {
            if (earlier.equals(s)) {
              throw error(item, "the same source is listed twice");
            }
          }
          sources.add(s);
        }
        checkPartsOf(list, sources);
        out.put(concept, sources);
      }
      return out;
    }

    /** A source declared as the parts of a total must come after that total. */
    private void checkPartsOf(Node list, List<Source> sources) {
      for (int i = 0; i < list.list().size(); i++) {
        Node item = list.list().get(i);
        Node partsOf = item.map().get("partsOf");
        if (partsOf == null) {
          continue;
        }
        String total = string(partsOf);
        int at = -1;
        for (int j = 0; j < sources.size(); j++) {
          if (sources.get(j).name().equals(total)) {
            at = j;
          }
        }
        if (at < 0) {
          throw error(partsOf, "'" + total + "' is not a source of this concept");
        }
        if (at > i) {
          throw error(partsOf,
              "the parts must be listed after their total '" + total + "', so that they are read only when it is absent");
        }
      }
    }

    private Source source(
        Node item, Concept concept, Map<String, String> prefixes, List<String> markers, boolean inSum) {
      Map<String, Node> m = map(item, SOURCE_KEYS);
      String formKey = null;
      for (String k : FORM_KEYS) {
        if (m.containsKey(k)) {
          if (formKey != null) {
            throw error(m.get(k), "a source has one of " + FORM_KEYS + ", not both '" + formKey + "' and '" + k + "'");
          }
          formKey = k;
        }
      }
      if (formKey == null) {
        throw error(item, "a source needs one of " + FORM_KEYS);
      }
      Node formNode = m.get(formKey);
      Source.Form form = Source.Form.valueOf(formKey.toUpperCase(Locale.ROOT));
      checkForm(formNode, concept, form, inSum);
      Source s;
      if (form == Source.Form.SUM) {
        if (inSum) {
          throw error(formNode, "a sum can't contain a sum");
        }
        if (!formNode.isList() || formNode.list().size() < 2) {
          throw error(formNode, "expected a list of at least two sources to add up");
        }
        List<Source> parts = new ArrayList<>();
        for (Node p : formNode.list()) {
          parts.add(source(p, concept, prefixes, markers, true));
        }
        s = Source.sum(parts);
        for (String k : List.of("where", "scale")) {
          if (m.containsKey(k)) {
            throw error(m.get(k), "give '" + k + "' on the parts of a sum");
          }
        }
      } else {
        String name = string(formNode);
        if (!METRIC_NAME.matcher(name).matches()) {
          throw error(formNode, "'" + name + "' is not a metric name");
        }
        for (Map.Entry<String, String> e : prefixes.entrySet()) {
          if (!e.getKey().equals(e.getValue()) && name.startsWith(e.getKey())) {
            throw error(formNode, "'" + name + "' starts with the alias prefix '" + e.getKey()
                + "'; write the canonical one, '" + e.getValue() + "'");
          }
        }
        s = new Source(name, form);
        Node where = m.get("where");
        if (where != null) {
          if (!where.isMap() || where.map().isEmpty()) {
            throw error(where, "expected a mapping of label to the value (or list of values) it must have");
          }
          for (Map.Entry<String, Node> w : where.map().entrySet()) {
            if (!LABEL_NAME.matcher(w.getKey()).matches()) {
              throw error(w.getValue(), "'" + w.getKey() + "' is not a label name");
            }
            Node wv = w.getValue();
            List<String> values;
            if (wv.value() == null) {
              values = List.of("");
            } else if (wv.isList()) {
              values = strings(wv, null, "label value");
              if (values.isEmpty()) {
                throw error(wv, "expected at least one value");
              }
            } else {
              values = List.of(string(wv));
            }
            s = s.where(w.getKey(), values);
          }
        }
        Node scale = m.get("scale");
        if (scale != null) {
          double f;
          try {
            f = Double.parseDouble(string(scale).trim());
          } catch (NumberFormatException e) {
            throw error(scale, "'" + scale.value() + "' is not a number");
          }
          if (!(f > 0) || Double.isInfinite(f)) {
            throw error(scale, "a scale is a positive number (e.g. 1e-6 for microseconds to seconds)");
          }
          s = s.scaled(f);
        }
      }
      Source.History h =
          new Source.History(
              optional(m.get("added")), optional(m.get("deprecated")), optional(m.get("removed")),
              optional(m.get("note")), optional(m.get("when")));
      if (m.containsKey("partsOf") && inSum) {
        throw error(m.get("partsOf"), "give partsOf on the sum, not its parts");
      }
      return s.withHistory(h);
    }

    private String optional(Node n) {
      return n == null || n.value() == null ? null : string(n);
    }

    private void checkForm(Node n, Concept concept, Source.Form form, boolean inSum) {
      boolean ok;
      switch (concept.kind()) {
        case GAUGE:
          ok = form == Source.Form.GAUGE || (form == Source.Form.SUM && !inSum);
          break;
        case COUNTER:
          ok = form == Source.Form.COUNTER || form == Source.Form.SAMPLE || (form == Source.Form.SUM && !inSum);
          break;
        default:
          ok = form == Source.Form.HISTOGRAM;
          break;
      }
      if (!ok) {
        String allowed = concept.kind() == Concept.Kind.GAUGE
            ? "gauge (or a sum of gauges)"
            : concept.kind() == Concept.Kind.COUNTER
                ? "counter or sample (or a sum of them)"
                : "histogram";
        throw error(n, "concept " + concept.key() + " reads a " + allowed + ", not a " + form.key());
      }
    }

    private DiscoveryRule discovery(Node n) {
      Map<String, Node> m = map(n, DISCOVERY_KEYS);
      Map<String, Endpoint> endpoints = new LinkedHashMap<>();
      Node eps = m.get("endpoints");
      if (eps != null && eps.value() != null) {
        if (!eps.isMap()) {
          throw error(eps, "expected a mapping of endpoint name to its rule");
        }
        for (Map.Entry<String, Node> e : eps.map().entrySet()) {
          endpoints.put(e.getKey(), endpoint(e.getValue()));
        }
      }
      List<Command> commands = new ArrayList<>();
      Node cmds = m.get("commands");
      if (cmds != null && cmds.value() != null) {
        if (!cmds.isList()) {
          throw error(cmds, "expected a list of command patterns, most specific first");
        }
        for (Node c : cmds.list()) {
          commands.add(command(c, endpoints));
        }
      }
      return new DiscoveryRule(commands);
    }

    private Endpoint endpoint(Node n) {
      Map<String, Node> m = map(n, ENDPOINT_KEYS);
      if (m.get("defaultPort") == null) {
        throw new ProfileException(origin, n.key() + ".defaultPort", n.line(), "missing");
      }
      int port = integer(m.get("defaultPort"), 1, 65535);
      String path = m.get("path") == null ? "/metrics" : string(m.get("path"));
      if (!path.startsWith("/")) {
        throw error(m.get("path"), "a path starts with '/'");
      }
      String host = m.get("defaultHost") == null ? "127.0.0.1" : string(m.get("defaultHost"));
      return new Endpoint(
          strings(m.get("portFlags"), null, "flag"), port, strings(m.get("hostFlags"), null, "flag"), host,
          strings(m.get("portEnv"), null, "variable"), strings(m.get("hostEnv"), null, "variable"), path);
    }

    private Command command(Node n, Map<String, Endpoint> endpoints) {
      Map<String, Node> m = map(n, COMMAND_KEYS);
      Kind kind = null;
      String pattern = null;
      for (String k : List.of("program", "module", "title", "titleRegex")) {
        if (m.containsKey(k)) {
          if (kind != null) {
            throw error(m.get(k), "a command has one of program, module, title, titleRegex");
          }
          kind = k.equals("titleRegex") ? Kind.TITLE_REGEX : Kind.valueOf(k.toUpperCase(Locale.ROOT));
          pattern = string(m.get(k));
          if (pattern.isEmpty()) {
            throw error(m.get(k), "empty pattern");
          }
        }
      }
      if (kind == null) {
        throw error(n, "a command needs one of program, module, title, titleRegex");
      }
      if (kind == Kind.TITLE_REGEX) {
        try {
          Pattern.compile(pattern);
        } catch (PatternSyntaxException e) {
          throw error(m.get("titleRegex"), "not a regular expression: " + e.getDescription());
        }
      }
      String sub = m.get("subcommand") == null ? null : string(m.get("subcommand"));
      if (sub != null && kind != Kind.PROGRAM) {
        throw error(m.get("subcommand"), "only a program has a subcommand");
      }
      Role role = Role.SERVER;
      if (m.get("role") != null) {
        String r = string(m.get("role"));
        try {
          role = Role.valueOf(r.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw error(m.get("role"), "'" + r + "' is not one of server, supervisor, helper");
        }
      }
      Endpoint endpoint = null;
      Node ep = m.get("endpoint");
      if (role == Role.HELPER) {
        if (ep != null) {
          throw error(ep, "a helper process has no endpoint");
        }
      } else {
        if (ep == null) {
          throw new ProfileException(origin, n.key() + ".endpoint", n.line(),
              "missing: a " + role.name().toLowerCase(Locale.ROOT) + " names one of " + endpoints.keySet());
        }
        endpoint = endpoints.get(string(ep));
        if (endpoint == null) {
          throw error(ep, "no endpoint '" + ep.value() + "' under discovery.endpoints " + endpoints.keySet());
        }
      }
      return new Command(role, kind, pattern, sub, endpoint);
    }
  }
}
