package dev.gputop.inference.engine;

import dev.gputop.config.internal.TerminalText;
import dev.gputop.inference.engine.MappingTrace.ConceptDecision;
import dev.gputop.inference.engine.MappingTrace.SeriesDecision;
import dev.gputop.inference.engine.MappingTrace.SourceDecision;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.MetricFamily;
import dev.gputop.inference.parse.MetricType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where each number of one scrape comes from ({@code gputop-agent explain}): for every concept,
 * the source series that fed it with the rule that read, summed or skipped each, or why none did
 * (the profile maps nothing, not exported, declared without samples, of another type, every
 * series skipped). Built from a {@link MappingTrace}; immutable once built.
 */
public final class Explanation {

  private final EngineProfile profile;
  private final Exposition exposition;
  private final MappingTrace trace;
  private final Drift drift;

  private Explanation(EngineProfile profile, Exposition exposition, MappingTrace trace, Drift drift) {
    this.profile = profile;
    this.exposition = exposition;
    this.trace = trace;
    this.drift = drift;
  }

  /** Maps the exposition with {@code mapper}, recording every decision. */
  public static Explanation of(Exposition exposition, EngineMapper mapper) {
    MappingTrace trace = new MappingTrace();
    ServerScrape scrape = mapper.map(exposition, trace);
    return new Explanation(trace.profile(), exposition, trace, scrape.drift());
  }

  /** What the scrape shows of the engine having moved on from its profile. */
  public Drift drift() {
    return drift;
  }

  /**
   * The drift as a block of text: the engine's families no rule reads, the concepts expected
   * but not exported, and the wrapper's duplicates skipped; empty when there is nothing to say.
   */
  public String driftText() {
    if (profile == null || (drift.isEmpty() && drift.duplicates().isEmpty())) {
      return "";
    }
    StringBuilder sb = new StringBuilder("\ndrift:\n");
    if (drift.unreadCount() > 0) {
      sb.append("  unread families (the engine's, no rule reads them): ").append(drift.unreadCount()).append('\n');
      for (String name : drift.unread()) {
        sb.append("    ").append(name).append('\n');
      }
      if (drift.unreadCount() > drift.unread().size()) {
        sb.append("    … and ").append(drift.unreadCount() - drift.unread().size()).append(" more\n");
      }
    }
    for (Drift.Missing m : drift.missing()) {
      sb.append("  missing ").append(m.concept().key()).append(": expected ").append(m.expected())
          .append(m.since() == null ? "" : " (added " + m.since() + ")").append(", not exported\n");
    }
    if (!drift.duplicates().isEmpty()) {
      sb.append("  skipped as a wrapper's duplicates (counters written again as gauges): ")
          .append(String.join(", ", drift.duplicates())).append('\n');
    }
    return sb.toString();
  }

  /** The profile that recognized the endpoint, or null. */
  public EngineProfile profile() {
    return profile;
  }

  /** The explanation as text. */
  public String text() {
    StringBuilder sb = new StringBuilder();
    if (profile == null) {
      sb.append("engine: unknown (no profile's prefixes or markers start any of the ")
          .append(exposition.families().size()).append(" families): every value is N/A\n");
      return sb.toString();
    }
    sb.append("engine: ").append(profile.engine().id()).append(" (").append(profile.name()).append(", ")
        .append(profile.origin()).append(")\n");
    Map<Concept, ConceptDecision> byConcept = new LinkedHashMap<>();
    for (ConceptDecision d : trace.concepts()) {
      byConcept.put(d.concept(), d);
    }
    for (Concept c : Concept.values()) {
      sb.append('\n').append(c.key()).append(": ");
      ConceptDecision d = byConcept.get(c);
      if (d == null) {
        sb.append("N/A — the ").append(profile.engine().id()).append(" profile maps no metric to it\n");
        continue;
      }
      SourceDecision read = null;
      for (SourceDecision s : d.sources()) {
        if (s.status() == MappingTrace.SourceStatus.READ) {
          read = s;
        }
      }
      sb.append(read == null ? "N/A — no source had a series to read\n" : "from " + read.source().describe() + "\n");
      for (SourceDecision s : d.sources()) {
        sb.append("  ").append(s.source().describe()).append(": ").append(status(s)).append('\n');
        for (SeriesDecision series : s.series()) {
          // The server's own names and label values: escaped for the terminal (newlines too).
          sb.append("    ").append(series.read() ? "+ " : "- ").append(TerminalText.value(series.name()))
              .append(series.labels().size() == 0 ? "" : TerminalText.value(series.labels().toString())).append(' ')
              .append(number(series.value())).append("  ").append(series.rule()).append('\n');
        }
      }
    }
    sb.append(driftText());
    return sb.toString();
  }

  /** The explanation as maps and lists, for JSON. */
  public Map<String, Object> tree() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("engine", profile == null ? "unknown" : profile.engine().id());
    out.put("profile", profile == null ? null : profile.origin());
    List<Map<String, Object>> concepts = new ArrayList<>();
    Map<Concept, ConceptDecision> byConcept = new LinkedHashMap<>();
    for (ConceptDecision d : trace.concepts()) {
      byConcept.put(d.concept(), d);
    }
    for (Concept c : Concept.values()) {
      Map<String, Object> cm = new LinkedHashMap<>();
      cm.put("concept", c.key());
      ConceptDecision d = byConcept.get(c);
      List<Map<String, Object>> sources = new ArrayList<>();
      if (d != null) {
        for (SourceDecision s : d.sources()) {
          Map<String, Object> sm = new LinkedHashMap<>(ProfileDescriptions.source(s.source()));
          sm.put("status", s.status().name().toLowerCase(Locale.ROOT));
          sm.put("why", status(s));
          List<Map<String, Object>> series = new ArrayList<>();
          for (SeriesDecision x : s.series()) {
            Map<String, Object> xm = new LinkedHashMap<>();
            xm.put("name", x.name());
            Map<String, String> labels = new LinkedHashMap<>();
            for (int i = 0; i < x.labels().size(); i++) {
              labels.put(x.labels().name(i), x.labels().value(i));
            }
            xm.put("labels", labels);
            xm.put("value", Double.isFinite(x.value()) ? x.value() : String.valueOf(x.value()));
            xm.put("read", x.read());
            xm.put("rule", x.rule());
            series.add(xm);
          }
          sm.put("series", series);
          sources.add(sm);
        }
      }
      cm.put("mapped", d != null);
      cm.put("sources", sources);
      concepts.add(cm);
    }
    out.put("concepts", concepts);
    out.put("drift", driftTree());
    return out;
  }

  /** The drift for JSON: {@code unreadFamilies {count, names}}, {@code missing}, {@code duplicates}. */
  public Map<String, Object> driftTree() {
    Map<String, Object> d = new LinkedHashMap<>();
    Map<String, Object> unread = new LinkedHashMap<>();
    unread.put("count", drift.unreadCount());
    unread.put("names", drift.unread());
    d.put("unreadFamilies", unread);
    List<Map<String, Object>> missing = new ArrayList<>();
    for (Drift.Missing m : drift.missing()) {
      Map<String, Object> mm = new LinkedHashMap<>();
      mm.put("concept", m.concept().key());
      mm.put("expected", m.expected());
      mm.put("since", m.since());
      missing.add(mm);
    }
    d.put("missing", missing);
    d.put("duplicates", drift.duplicates());
    return d;
  }

  private String status(SourceDecision s) {
    switch (s.status()) {
      case READ:
        return "read";
      case NOT_NEEDED:
        return "not read: an earlier source of this concept had series";
      case ALL_SKIPPED:
        return "every series skipped by the rules";
      default:
        return absent(s.source());
    }
  }

  /** Why a source had no samples: not exported, declared without samples, or another type. */
  private String absent(Source source) {
    List<String> reasons = new ArrayList<>();
    for (Source leaf : source.leaves()) {
      reasons.add((source.form() == Source.Form.SUM ? leaf.name() + ": " : "") + absentLeaf(leaf));
    }
    return String.join("; ", reasons);
  }

  private String absentLeaf(Source leaf) {
    for (MetricFamily f : exposition.families()) {
      String name = profile.canonicalName(f.name());
      if (name == null) {
        name = f.name();
      }
      boolean same = name.equals(leaf.name()) || name.equals(leaf.name() + "_total")
          || (leaf.form() == Source.Form.HISTOGRAM && name.equals(leaf.name() + "_bucket"));
      if (!same) {
        continue;
      }
      if (f.samples().isEmpty()) {
        return "not observed yet (" + f.name() + " is declared without samples)";
      }
      if (leaf.form() == Source.Form.HISTOGRAM && f.histograms().isEmpty()) {
        return "wrong type: " + f.name() + " is a " + typeName(f.type()) + ", not a histogram";
      }
      if (leaf.form() != Source.Form.HISTOGRAM
          && (f.type() == MetricType.HISTOGRAM || f.type() == MetricType.SUMMARY)) {
        return "wrong type: " + f.name() + " is a " + typeName(f.type()) + ", not a " + leaf.form().key();
      }
    }
    return "not exported";
  }

  private static String typeName(MetricType t) {
    return t.name().toLowerCase(Locale.ROOT).replace("_", "");
  }

  private static String number(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return Double.toString(v);
  }
}
