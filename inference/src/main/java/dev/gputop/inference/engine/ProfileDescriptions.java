package dev.gputop.inference.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Engine profiles as people read them ({@code gputop-agent engines}): a text listing and a
 * JSON-ready tree of maps and lists. Stateless.
 */
public final class ProfileDescriptions {

  private ProfileDescriptions() {}

  /** Every profile as text, in recognition order. */
  public static String text(EngineProfiles profiles) {
    StringBuilder sb = new StringBuilder();
    for (EngineProfile p : profiles.all()) {
      if (sb.length() > 0) {
        sb.append('\n');
      }
      sb.append(p.engine().id()).append(" — ").append(p.name()).append(" (priority ").append(p.priority())
          .append(", ").append(p.origin()).append(")\n");
      List<String> prefixes = new ArrayList<>();
      p.prefixAliases().forEach((w, c) -> prefixes.add(w.equals(c) ? w : w + " → " + c));
      line(sb, "prefixes", String.join(", ", prefixes));
      for (Wrapper w : p.wrappers()) {
        line(sb, "wrapper", w.name() + ": " + w.prefix() + " + the name"
            + (w.sanitize() == null ? "" : " with " + w.sanitize().pattern() + " → _")
            + (w.ignoreCounterGauges() ? ", its gauge copies of counters skipped" : "")
            + (w.labels().isEmpty() ? "" : ", adds " + String.join(", ", w.labels())));
      }
      if (!p.markers().isEmpty()) {
        line(sb, "markers", String.join(", ", p.markers()));
      }
      if (!p.notRead().isEmpty()) {
        line(sb, "known, not read", p.notRead().size() + " families (not drift)");
      }
      line(sb, "model labels", p.modelLabels().isEmpty() ? "(one model per server)" : String.join(", ", p.modelLabels()));
      if (!p.splitLabels().isEmpty()) {
        line(sb, "summed labels", String.join(", ", p.splitLabels()));
      }
      if (!p.rankLabels().isEmpty()) {
        line(sb, "one rank read", String.join(", ", p.rankLabels()));
      }
      for (TotalRowRule t : p.totalRows()) {
        line(sb, "total row", t.describe());
      }
      sb.append("  concepts:\n");
      for (Map.Entry<Concept, List<Source>> e : p.concepts().entrySet()) {
        boolean first = true;
        for (Source s : e.getValue()) {
          String history = s.history().describe();
          sb.append(String.format("    %-20s %s%s%n", first ? e.getKey().key() : "  else", s.describe(),
              history.isEmpty() ? "" : " (" + history + ")"));
          first = false;
        }
      }
      if (!p.discovery().commands().isEmpty()) {
        sb.append("  discovery:\n");
        for (DiscoveryRule.Command c : p.discovery().commands()) {
          sb.append("    ").append(command(c)).append(" (").append(c.role().name().toLowerCase(java.util.Locale.ROOT)).append(')');
          if (c.endpoint() != null) {
            sb.append(" → ").append(endpoint(c.endpoint()));
          }
          sb.append('\n');
        }
      }
    }
    return sb.toString();
  }

  private static void line(StringBuilder sb, String what, String value) {
    sb.append("  ").append(what).append(": ").append(value).append('\n');
  }

  /** A command pattern as {@code ps} would show it: {@code vllm serve}, {@code -m sglang.launch_server*}. */
  public static String command(DiscoveryRule.Command c) {
    switch (c.kind()) {
      case MODULE:
        return "-m " + c.pattern() + "*";
      case TITLE:
        return "title " + c.pattern() + "*";
      case TITLE_REGEX:
        return "title /" + c.pattern() + "/";
      default:
        return c.subcommand() == null ? c.pattern() : c.pattern() + " " + c.subcommand();
    }
  }

  private static String endpoint(DiscoveryRule.Endpoint e) {
    StringBuilder sb = new StringBuilder();
    sb.append("port ").append(e.portFlags().isEmpty() ? "" : String.join("/", e.portFlags()) + " ");
    if (!e.portEnv().isEmpty()) {
      sb.append("or $").append(String.join("/$", e.portEnv())).append(' ');
    }
    sb.append("(default ").append(e.defaultPort()).append("), host ");
    if (!e.hostFlags().isEmpty()) {
      sb.append(String.join("/", e.hostFlags())).append(' ');
    }
    if (!e.hostEnv().isEmpty()) {
      sb.append("or $").append(String.join("/$", e.hostEnv())).append(' ');
    }
    return sb.append("(default ").append(e.defaultHost()).append("), path ").append(e.path()).toString();
  }

  /** Every profile as maps and lists, for JSON. */
  public static List<Map<String, Object>> tree(EngineProfiles profiles) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (EngineProfile p : profiles.all()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("engine", p.engine().id());
      m.put("name", p.name());
      m.put("priority", p.priority());
      m.put("origin", p.origin());
      m.put("prefixes", p.prefixAliases());
      List<Map<String, Object>> wrappers = new ArrayList<>();
      for (Wrapper w : p.wrappers()) {
        Map<String, Object> wm = new LinkedHashMap<>();
        wm.put("name", w.name());
        wm.put("prefix", w.prefix());
        wm.put("sanitize", w.sanitize() == null ? null : w.sanitize().pattern());
        wm.put("counterGauges", w.ignoreCounterGauges() ? "ignore" : "read");
        wm.put("labels", w.labels());
        wrappers.add(wm);
      }
      m.put("wrappers", wrappers);
      m.put("notRead", p.notRead());
      m.put("markers", p.markers());
      m.put("modelLabels", p.modelLabels());
      Map<String, Object> labels = new LinkedHashMap<>();
      labels.put("split", p.splitLabels());
      labels.put("rank", p.rankLabels());
      List<Map<String, Object>> totals = new ArrayList<>();
      for (TotalRowRule t : p.totalRows()) {
        Map<String, Object> tm = new LinkedHashMap<>();
        tm.put("label", t.label());
        tm.put("value", t.value());
        tm.put("metrics", t.metrics());
        totals.add(tm);
      }
      labels.put("totals", totals);
      m.put("labels", labels);
      Map<String, Object> concepts = new LinkedHashMap<>();
      for (Map.Entry<Concept, List<Source>> e : p.concepts().entrySet()) {
        List<Map<String, Object>> sources = new ArrayList<>();
        for (Source s : e.getValue()) {
          sources.add(source(s));
        }
        concepts.put(e.getKey().key(), sources);
      }
      m.put("concepts", concepts);
      List<Map<String, Object>> commands = new ArrayList<>();
      for (DiscoveryRule.Command c : p.discovery().commands()) {
        Map<String, Object> cm = new LinkedHashMap<>();
        cm.put("role", c.role().name().toLowerCase(java.util.Locale.ROOT));
        cm.put("kind", c.kind() == DiscoveryRule.Kind.TITLE_REGEX ? "titleRegex" : c.kind().name().toLowerCase(java.util.Locale.ROOT));
        cm.put("pattern", c.pattern());
        cm.put("subcommand", c.subcommand());
        if (c.endpoint() != null) {
          DiscoveryRule.Endpoint e = c.endpoint();
          Map<String, Object> em = new LinkedHashMap<>();
          em.put("portFlags", e.portFlags());
          em.put("defaultPort", e.defaultPort());
          em.put("hostFlags", e.hostFlags());
          em.put("defaultHost", e.defaultHost());
          em.put("portEnv", e.portEnv());
          em.put("hostEnv", e.hostEnv());
          em.put("path", e.path());
          cm.put("endpoint", em);
        }
        commands.add(cm);
      }
      m.put("discovery", Map.of("commands", commands));
      out.add(m);
    }
    return out;
  }

  /** One source as maps and lists. */
  public static Map<String, Object> source(Source s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("form", s.form().key());
    if (s.form() == Source.Form.SUM) {
      List<Map<String, Object>> parts = new ArrayList<>();
      for (Source p : s.parts()) {
        parts.add(source(p));
      }
      m.put("parts", parts);
    } else {
      m.put("name", s.name());
    }
    if (!s.where().isEmpty()) {
      m.put("where", s.where());
    }
    if (s.scale() != 1.0) {
      m.put("scale", s.scale());
    }
    Source.History h = s.history();
    if (h.added() != null) {
      m.put("added", h.added());
    }
    if (h.deprecated() != null) {
      m.put("deprecated", h.deprecated());
    }
    if (h.removed() != null) {
      m.put("removed", h.removed());
    }
    if (h.note() != null) {
      m.put("note", h.note());
    }
    if (h.when() != null) {
      m.put("when", h.when());
    }
    return m;
  }
}
