package dev.gputop.inference.engine;

import dev.gputop.inference.engine.MappingTrace.ConceptDecision;
import dev.gputop.inference.engine.MappingTrace.SeriesDecision;
import dev.gputop.inference.engine.MappingTrace.SourceDecision;
import dev.gputop.inference.engine.MappingTrace.SourceStatus;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.Histogram;
import dev.gputop.inference.parse.Labels;
import dev.gputop.inference.parse.MetricFamily;
import dev.gputop.inference.parse.MetricType;
import dev.gputop.inference.parse.Sample;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Recognizes the engine behind an exposition from its metric names and reduces the exposition to
 * the series of each concept ({@link ServerScrape}), using the engine's {@link EngineProfile}.
 *
 * <p>Recognition: the profile with the lowest {@link EngineProfile#priority()} one of whose
 * prefixes starts a family (or sample) name, or one of whose markers is a family name. So a vLLM
 * fork that also writes TGI-style names is vLLM; an endpoint that no profile recognizes is
 * {@link Engine#UNKNOWN}.
 *
 * <p>Mapping, per concept: the profile's sources in preference order, the first one with a
 * series left after its rules is read. A source's series are filtered ({@code where}), total
 * rows keep only the total ({@link TotalRowRule}), rank labels keep the lowest rank, NaN values
 * and repeated label sets are dropped, and values are scaled to the concept's unit. Every other
 * label splits the concept and its series are summed by the statistics. Histograms come grouped,
 * with parsed bounds, from the parser.
 *
 * <p>Immutable and thread-safe; one instance serves every server.
 */
public final class EngineMapper {

  private final EngineProfiles profiles;
  /** The profiles compiled for matching, in recognition order. */
  private final List<Compiled> compiled;
  private final Map<Engine, Compiled> byEngine = new HashMap<>();

  /** A mapper for the built-in profiles. */
  public EngineMapper() {
    this(EngineProfiles.builtIn());
  }

  /** A mapper for these profiles (the built-in ones with the user's added or overridden). */
  public EngineMapper(EngineProfiles profiles) {
    this.profiles = profiles;
    List<Compiled> list = new ArrayList<>();
    for (EngineProfile p : profiles.all()) {
      Compiled c = new Compiled(p);
      list.add(c);
      byEngine.put(p.engine(), c);
    }
    this.compiled = List.copyOf(list);
  }

  /** The profiles this mapper uses. */
  public EngineProfiles profiles() {
    return profiles;
  }

  /** The engine whose metric names the exposition carries, by the built-in profiles. */
  public static Engine recognize(Exposition exposition) {
    return BuiltIn.MAPPER.engineOf(exposition);
  }

  /** The engine whose metric names the exposition carries. */
  public Engine engineOf(Exposition exposition) {
    Compiled c = recognizeProfile(exposition);
    return c == null ? Engine.UNKNOWN : c.profile.engine();
  }

  private static final class BuiltIn {
    static final EngineMapper MAPPER = new EngineMapper();
  }

  private Compiled recognizeProfile(Exposition exposition) {
    List<MetricFamily> families = exposition.families();
    for (Compiled c : compiled) {
      for (int i = 0, n = families.size(); i < n; i++) {
        MetricFamily f = families.get(i);
        if (c.recognizes(f.name())) {
          return c;
        }
        // A family's samples may carry the prefix when the family name doesn't (untyped).
        if (!f.samples().isEmpty() && c.recognizes(f.samples().get(0).name())) {
          return c;
        }
      }
    }
    return null;
  }

  /** Recognizes the engine and reads every concept its profile maps. */
  public ServerScrape map(Exposition exposition) {
    return map(exposition, null);
  }

  /**
   * Recognizes the engine and reads every concept its profile maps, writing every decision into
   * {@code trace} when it is not null ({@code explain}).
   */
  ServerScrape map(Exposition exposition, MappingTrace trace) {
    Compiled c = recognizeProfile(exposition);
    if (c == null) {
      return ServerScrape.unknown();
    }
    if (trace != null) {
      trace.profile(c.profile);
    }
    Reading reading = c.collect(exposition);
    List<Object>[] collected = reading.out;
    ReadLabels done = new ReadLabels(); // reset for each source's rows
    Map<Concept, ConceptValues> concepts = new EnumMap<>(Concept.class);
    TreeSet<String> models = new TreeSet<>();
    EngineProfile profile = c.profile;
    for (int ci = 0; ci < c.conceptOrder.length; ci++) {
      Concept concept = c.conceptOrder[ci];
      List<SourceDecision> decisions = trace == null ? null : new ArrayList<>();
      ConceptValues chosen = null;
      List<?> chosenList = null;
      Source[] sources = c.sourcesOf[ci];
      for (int si = 0; si < sources.length; si++) {
        Source source = sources[si];
        if (chosen != null) {
          if (decisions != null) {
            decisions.add(new SourceDecision(source, SourceStatus.NOT_NEEDED, List.of()));
          }
          continue;
        }
        List<SeriesDecision> seen = decisions == null ? null : new ArrayList<>();
        boolean any = false;
        ConceptValues cv;
        List<?> read = null;
        if (source.form() == Source.Form.HISTOGRAM) {
          @SuppressWarnings("unchecked")
          List<Histogram> list = (List<Histogram>) (List<?>) collected[c.leafIndex(source)];
          any = list != null;
          List<HistogramSeries> h = any ? histograms(c, source, list, seen, done) : null;
          read = h;
          cv = any ? ConceptValues.ofHistograms(concept, source, h) : null;
        } else {
          List<Series> series = null;
          Source[] leaves = c.leavesOf[ci][si];
          for (int li = 0; li < leaves.length; li++) {
            Source leaf = leaves[li];
            @SuppressWarnings("unchecked")
            List<Sample> samples = (List<Sample>) (List<?>) collected[c.leafIndex(leaf)];
            if (samples != null) {
              any = true;
              if (series == null) {
                series = new ArrayList<>(samples.size());
              }
              series(c, leaf, samples, seen, series, done);
            }
          }
          read = series;
          cv = any ? ConceptValues.ofSeries(concept, source, series) : null;
        }
        boolean empty = cv == null || (cv.series().isEmpty() && cv.histograms().isEmpty());
        if (decisions != null) {
          SourceStatus status = !any ? SourceStatus.NO_SAMPLES : empty ? SourceStatus.ALL_SKIPPED : SourceStatus.READ;
          decisions.add(new SourceDecision(source, status, seen));
        }
        if (!empty) {
          chosen = cv;
          chosenList = read;
        }
      }
      if (decisions != null) {
        trace.add(new ConceptDecision(concept, decisions));
      }
      if (chosen != null) {
        concepts.put(concept, chosen);
        String last = "";
        for (int i = 0, n = chosenList.size(); i < n; i++) {
          Object x = chosenList.get(i);
          String model = x instanceof Series ? ((Series) x).model() : ((HistogramSeries) x).model();
          if (!model.isEmpty() && !model.equals(last)) {
            models.add(model);
            last = model;
          }
        }
      }
    }
    return new ServerScrape(profile.engine(), concepts, List.copyOf(models),
        drift(c, reading, concepts));
  }

  /**
   * The scrape's drift: the engine's families no rule reads (counted in {@link Compiled#collect}),
   * and each expected concept none of whose sources' families the exposition has.
   *
   * <p>A concept is expected from a server of the version it runs when its newest source is
   * current (not removed), unconditional (no {@code when}) and either as old as the profile
   * knows (no {@code added}) or added in a release the server shows it runs: another source
   * present in the exposition was added in the same release. So TensorRT-LLM 1.1 is not asked
   * for the 2026 names, but a 2026 server without one of them is.
   */
  private static Drift drift(Compiled c, Reading reading, Map<Concept, ConceptValues> concepts) {
    Set<String> releases = new HashSet<>();
    for (int i = 0; i < c.leaves.size(); i++) {
      String added = c.leaves.get(i).history().added();
      if (reading.present[i] && added != null) {
        releases.add(added);
      }
    }
    List<Drift.Missing> missing = null;
    for (int ci = 0; ci < c.conceptOrder.length; ci++) {
      Concept concept = c.conceptOrder[ci];
      Source newest = c.sourcesOf[ci][0];
      Source.History h = newest.history();
      boolean expected = h.when() == null && h.removed() == null
          && (h.added() == null || releases.contains(h.added()));
      if (concepts.containsKey(concept) || !expected) {
        continue;
      }
      boolean present = false;
      for (Source[] leaves : c.leavesOf[ci]) {
        for (Source leaf : leaves) {
          present |= reading.present[c.leafIndex(leaf)];
        }
      }
      if (!present) {
        if (missing == null) {
          missing = new ArrayList<>(4);
        }
        missing.add(new Drift.Missing(concept, newest.describe(), newest.history().added()));
      }
    }
    if (missing == null && reading.unreadCount == 0 && reading.duplicates == null) {
      return Drift.NONE;
    }
    return new Drift(reading.unreadCount, reading.unread == null ? List.of() : reading.unread,
        missing == null ? List.of() : missing, reading.duplicates == null ? List.of() : reading.duplicates);
  }

  /** What {@link Compiled#collect} found in one exposition. */
  private static final class Reading {
    /** Per leaf, its samples (or the parser's histograms); null: none. */
    List<Object>[] out;
    /** Per leaf, whether the exposition has a family it reads (with or without samples). */
    boolean[] present;
    int unreadCount;
    List<String> unread;
    List<String> duplicates;

    void unread(String family) {
      unreadCount++;
      if (unread == null) {
        unread = new ArrayList<>(4);
      }
      if (unread.size() < Drift.MAX_NAMES) {
        unread.add(family);
      }
    }

    void duplicate(String family) {
      if (duplicates == null) {
        duplicates = new ArrayList<>(4);
      }
      if (duplicates.size() < Drift.MAX_NAMES) {
        duplicates.add(family);
      }
    }
  }

  // ---------------------------------------------------------------- rows and rules

  /** One series of a source on its way through the rules. */
  private static final class Row {
    final String name;
    final Labels written;
    Labels labels;
    final double value;
    final Histogram histogram;
    /** Null while the row is read; else why it was skipped. */
    String skipped;
    String note;

    Row(String name, Labels labels, double value, Histogram histogram) {
      this.name = name;
      this.written = labels;
      this.labels = labels;
      this.value = value;
      this.histogram = histogram;
    }
  }

  /**
   * The label sets read so far from one source: scanned while few (the usual case), hashed beyond.
   * One per {@code map} call, {@link #reset()} for each source.
   */
  private static final class ReadLabels {
    private final Labels[] few = new Labels[12];
    private int n;
    private Set<Labels> many;

    /** Forgets the label sets read, for the next source. */
    ReadLabels reset() {
      java.util.Arrays.fill(few, 0, n, null);
      n = 0;
      many = null;
      return this;
    }

    /** Adds {@code labels}; false when an equal set was read already. */
    boolean add(Labels labels) {
      if (many != null) {
        return many.add(labels);
      }
      for (int i = 0; i < n; i++) {
        if (few[i].equals(labels)) {
          return false;
        }
      }
      if (n < few.length) {
        few[n++] = labels;
        return true;
      }
      many = new HashSet<>(Arrays.asList(few));
      return many.add(labels);
    }
  }

  /** Appends the gauge and counter series of one (non-sum) source, after its rules, to {@code out}. */
  private static void series(Compiled c, Source source, List<Sample> samples, List<SeriesDecision> seen,
      List<Series> out, ReadLabels done) {
    done.reset();
    if (seen == null && c.plain(source)) {
      // No rule can skip or relabel a row, and nobody asks why: the same reading without rows.
      for (int i = 0, n = samples.size(); i < n; i++) {
        Sample s = samples.get(i);
        double value = s.value();
        // NaN is skipped; a repeated label set is a duplicate line: the first one wins.
        if (!Double.isNaN(value) && done.add(s.labels())) {
          out.add(series(c, source, s.labels(), value));
        }
      }
      return;
    }
    List<Row> rows = new ArrayList<>(samples.size());
    for (int i = 0, n = samples.size(); i < n; i++) {
      Sample s = samples.get(i);
      rows.add(new Row(s.name(), s.labels(), s.value(), null));
    }
    applyRules(c, source, rows);
    for (int i = 0, n = rows.size(); i < n; i++) {
      Row r = rows.get(i);
      if (r.skipped == null && Double.isNaN(r.value)) {
        r.skipped = "skipped: NaN";
      }
      // A repeated label set is a duplicate line: the first one wins.
      if (r.skipped == null && !done.add(r.labels)) {
        r.skipped = "skipped: repeats an earlier line's labels";
      }
      if (r.skipped == null) {
        out.add(series(c, source, r.labels, r.value));
      }
    }
    record(seen, rows, source);
  }

  private static Series series(Compiled c, Source source, Labels labels, double value) {
    double v = source.scale() == 1.0 ? value : value * source.scale();
    return new Series(new SeriesKey(source.name(), labels), model(c, labels), v);
  }

  /** The parser's histograms of a source, after its rules. */
  private static List<HistogramSeries> histograms(
      Compiled c, Source source, List<Histogram> list, List<SeriesDecision> seen, ReadLabels done) {
    done.reset();
    List<HistogramSeries> out = new ArrayList<>(list.size());
    if (seen == null && c.plain(source)) {
      // As for series: no rule applies, so no rows.
      for (int i = 0, n = list.size(); i < n; i++) {
        Histogram h = list.get(i);
        if (!(h.bounds().length == 0 && Double.isNaN(h.count())) && done.add(h.labels())) {
          out.add(histogram(c, source, h.labels(), h));
        }
      }
      return out;
    }
    List<Row> rows = new ArrayList<>(list.size());
    for (int i = 0, n = list.size(); i < n; i++) {
      Histogram h = list.get(i);
      rows.add(new Row(source.name(), h.labels(), h.count(), h));
    }
    applyRules(c, source, rows);
    for (int i = 0, n = rows.size(); i < n; i++) {
      Row r = rows.get(i);
      Histogram h = r.histogram;
      if (r.skipped == null && h.bounds().length == 0 && Double.isNaN(h.count())) {
        r.skipped = "skipped: neither buckets nor _count";
      }
      if (r.skipped == null && !done.add(r.labels)) {
        r.skipped = "skipped: repeats an earlier series' labels";
      }
      if (r.skipped == null) {
        out.add(histogram(c, source, r.labels, h));
      }
    }
    record(seen, rows, source);
    return out;
  }

  private static HistogramSeries histogram(Compiled c, Source source, Labels labels, Histogram h) {
    double[] bounds = h.bounds();
    double sum = h.sum();
    if (source.scale() != 1.0) {
      bounds = bounds.clone();
      for (int i = 0; i < bounds.length; i++) {
        bounds[i] *= source.scale();
      }
      sum *= source.scale();
    }
    return new HistogramSeries(new SeriesKey(source.name(), labels), model(c, labels), bounds,
        h.cumulative(), sum, h.count());
  }

  private static void record(List<SeriesDecision> seen, List<Row> rows, Source source) {
    if (seen == null) {
      return;
    }
    for (Row r : rows) {
      String rule;
      if (r.skipped != null) {
        rule = r.skipped;
      } else {
        rule = r.note != null ? r.note : "read";
        if (source.scale() != 1.0) {
          rule += ", × " + source.scale();
        }
      }
      seen.add(new SeriesDecision(r.name, r.written, r.value, r.skipped == null, rule));
    }
  }

  /** Filters, total rows and rank folding, in this order; skipped rows get their reason. */
  private static void applyRules(Compiled c, Source source, List<Row> rows) {
    if (!source.where().isEmpty()) {
      for (int i = 0, n = rows.size(); i < n; i++) {
        Row r = rows.get(i);
        if (!c.accepts(source, r.labels)) {
          r.skipped = c.filterSkip(source);
        }
      }
    }
    List<TotalRowRule> totalRows = c.totalRows(source);
    for (int i = 0, n = totalRows.size(); i < n; i++) {
      TotalRowRule rule = totalRows.get(i);
      totalRows(rule, c.totalRowTexts(rule), rows);
    }
    if (c.rankLabels.length > 0) {
      foldRanks(c.rankLabels, c.rankNote, rows);
    }
  }

  private static String filterText(Source source) {
    String d = source.describe();
    int at = d.indexOf(" where ");
    return at < 0 ? d : d.substring(at + " where ".length());
  }

  /**
   * Of the rows that differ only in the rule's label, the total row alone is read when it is
   * there; its siblings are skipped, so nothing is counted twice.
   */
  private static void totalRows(TotalRowRule rule, String[] texts, List<Row> rows) {
    boolean hasLabel = false;
    for (Row r : rows) {
      if (r.skipped == null && r.labels.get(rule.label()) != null) {
        hasLabel = true;
        break;
      }
    }
    if (!hasLabel) {
      return;
    }
    Map<SeriesKey, Row> totals = new HashMap<>();
    for (Row r : rows) {
      if (r.skipped == null && isTotal(rule, r.labels)) {
        totals.putIfAbsent(groupKey(r.name, r.labels.without(rule.label())), r);
      }
    }
    if (totals.isEmpty()) {
      return;
    }
    for (Row r : rows) {
      if (r.skipped != null) {
        continue;
      }
      Row total = totals.get(groupKey(r.name, r.labels.without(rule.label())));
      if (total == null) {
        continue;
      }
      if (total == r) {
        r.note = texts[0];
      } else if (!isTotal(rule, r.labels)) {
        r.skipped = texts[1];
      }
    }
  }

  private static boolean isTotal(TotalRowRule rule, Labels labels) {
    String v = labels.get(rule.label());
    return rule.value().equals(v == null ? "" : v);
  }

  private static SeriesKey groupKey(String name, Labels labels) {
    return new SeriesKey(name, labels);
  }

  /**
   * Drops the rank labels from every row; of rows that then collide (same name and remaining
   * labels), keeps the one with the lowest ranks, because every rank reports the same batch.
   */
  private static void foldRanks(String[] rankLabels, String rankNote, List<Row> rows) {
    Map<SeriesKey, Row> lowest = new HashMap<>();
    Map<Row, Long> rankOf = new HashMap<>();
    for (Row r : rows) {
      if (r.skipped != null) {
        continue;
      }
      long rank = 0;
      boolean has = false;
      for (String l : rankLabels) {
        String v = r.labels.get(l);
        rank = rank * 65536 + rankValue(v);
        has |= v != null;
      }
      if (!has) {
        continue;
      }
      Labels stripped = r.labels.without(rankLabels);
      SeriesKey key = groupKey(r.name, stripped);
      Row best = lowest.get(key);
      r.labels = stripped;
      rankOf.put(r, rank);
      if (best == null) {
        lowest.put(key, r);
      } else if (rank < rankOf.get(best)) {
        best.skipped = "skipped: another rank of the same batch is read";
        lowest.put(key, r);
      } else {
        r.skipped = "skipped: another rank of the same batch is read";
      }
    }
    for (Row r : lowest.values()) {
      if (r.note == null) {
        r.note = rankNote;
      }
    }
  }

  private static long rankValue(String v) {
    if (v == null) {
      return 0;
    }
    try {
      int i = Integer.parseInt(v);
      return i < 0 || i > 65534 ? 65535 : i;
    } catch (NumberFormatException e) {
      return 65535;
    }
  }

  /** The leaves of both, each once. */
  private static int[] union(int[] a, int[] b) {
    return java.util.stream.IntStream.concat(java.util.Arrays.stream(a), java.util.Arrays.stream(b))
        .distinct().toArray();
  }

  private static String withoutTotal(String name) {
    return name.endsWith("_total") ? name.substring(0, name.length() - "_total".length()) : name;
  }

  private static String model(Compiled c, Labels labels) {
    for (String l : c.modelLabels) {
      String v = labels.get(l);
      if (v != null) {
        // A value that names no model (TensorRT-LLM's "undefined") leaves the series to the server.
        return c.profile.noModelValues().contains(v) ? "" : v;
      }
    }
    return "";
  }

  // ---------------------------------------------------------------- compiled profile

  /** A profile's names arranged for matching one exposition quickly. */
  private static final class Compiled {
    final EngineProfile profile;
    final String[] wire;
    final String[] canonical;
    final Set<String> markers;
    final String[] rankLabels;
    /** Every source read from the wire (sums' parts, never sums), deduplicated. */
    final List<Source> leaves = new ArrayList<>();
    /** Canonical sample name → indexes of the gauge, counter and sample leaves that read it. */
    final Map<String, int[]> scalarSlots = new HashMap<>();
    /** Canonical histogram name → indexes of the histogram leaves that read it. */
    final Map<String, int[]> histogramSlots = new HashMap<>();
    /**
     * Per family name, the scalar leaves a family of that name makes present: those of its
     * samples' names ({@code family}, {@code _total}, {@code _sum}, {@code _count}); made once, so
     * the drift check of a scrape looks each family up instead of building four names.
     */
    final Map<String, int[]> scalarLeavesOfFamily = new HashMap<>();
    /**
     * Canonical names of the typed families that can hold a leaf's samples (with and without
     * {@code _total}, histograms by base name), so other families of the engine (token-count
     * histograms, {@code _created} gauges, ...) are skipped whole.
     */
    final Set<String> families = new HashSet<>();
    final Map<Source, List<TotalRowRule>> totalRows = new HashMap<>();
    /** Each filtered leaf's reason for a row it rejects (the texts are built once, not per row). */
    final Map<Source, String> filterSkips = new java.util.IdentityHashMap<>();
    /** Each total-row rule's note for the total and reason for its siblings. */
    final Map<TotalRowRule, String[]> totalRowTexts = new java.util.IdentityHashMap<>();
    final String rankNote;
    final String[] modelLabels;
    /** The families the profile knows and reads for no concept, without {@code _total}. */
    final Set<String> notRead;
    /**
     * By wire prefix: whether the wrapper that writes it (Ray) also writes gauge copies of
     * counters that must not be read. Found once, not by matching each family against the
     * wrappers' rules.
     */
    final boolean[] ignoresCounterGaugesOf;
    /** The profile's concepts in its order, each with its sources in preference order and their leaves. */
    final Concept[] conceptOrder;
    final Source[][] sourcesOf;
    final Source[][][] leavesOf;
    /** Every source instance of the profile (sums' parts too) → its leaf index. */
    final Map<Source, Integer> leafIndex = new java.util.IdentityHashMap<>();
    /** By leaf index: no filter, no total rows and no rank labels, so no rule touches its rows. */
    final boolean[] plain;
    /** By leaf index: the filter's labels and, for each, the values it accepts ({@link Source#accepts}). */
    final String[][] whereLabels;
    final List<?>[][] whereValues;

    Compiled(EngineProfile p) {
      this.profile = p;
      String[] w = p.prefixAliases().keySet().toArray(new String[0]);
      // Longest first, so that "sglang_" and "sglang:" or "vllm:" and "ray_vllm:" never shadow.
      Arrays.sort(w, (a, b) -> a.length() != b.length() ? b.length() - a.length() : a.compareTo(b));
      this.wire = w;
      this.canonical = new String[w.length];
      for (int i = 0; i < w.length; i++) {
        canonical[i] = p.prefixAliases().get(w[i]);
      }
      this.markers = Set.copyOf(p.markers());
      this.rankLabels = p.rankLabels().toArray(new String[0]);
      this.rankNote = "read: one rank (lowest " + String.join(", ", rankLabels) + ") of the same batch";
      this.modelLabels = p.modelLabels().toArray(new String[0]);
      Set<String> known = new HashSet<>();
      for (String name : p.notRead()) {
        known.add(withoutTotal(name));
      }
      this.notRead = Set.copyOf(known);
      this.ignoresCounterGaugesOf = new boolean[wire.length];
      for (int i = 0; i < wire.length; i++) {
        // The longest wire prefix of a name is a wrapper's exactly when the name is (a shorter
        // alias that also starts the name is a prefix of it).
        Wrapper wr = p.wrapperOf(wire[i]);
        ignoresCounterGaugesOf[i] = wr != null && wr.ignoreCounterGauges();
      }
      int nc = p.concepts().size();
      this.conceptOrder = new Concept[nc];
      this.sourcesOf = new Source[nc][];
      this.leavesOf = new Source[nc][][];
      int ci = 0;
      for (Map.Entry<Concept, List<Source>> e : p.concepts().entrySet()) {
        conceptOrder[ci] = e.getKey();
        sourcesOf[ci] = e.getValue().toArray(new Source[0]);
        leavesOf[ci] = new Source[sourcesOf[ci].length][];
        for (int si = 0; si < sourcesOf[ci].length; si++) {
          leavesOf[ci][si] = sourcesOf[ci][si].leaves().toArray(new Source[0]);
        }
        ci++;
      }
      for (List<Source> sources : p.concepts().values()) {
        for (Source s : sources) {
          for (Source leaf : s.leaves()) {
            if (!leaf.where().isEmpty()) {
              filterSkips.putIfAbsent(leaf, "skipped: filter " + filterText(leaf));
            }
            int existing = leaves.indexOf(leaf);
            if (existing >= 0) {
              leafIndex.put(leaf, existing);
              continue;
            }
            int index = leaves.size();
            leafIndex.put(leaf, index);
            leaves.add(leaf);
            totalRows.put(leaf, p.totalRowsOf(leaf.name()));
            for (TotalRowRule rule : totalRows.get(leaf)) {
              totalRowTexts.put(rule, describeTotalRow(rule));
            }
            if (leaf.form() == Source.Form.HISTOGRAM) {
              add(histogramSlots, leaf.name(), index);
              families.add(leaf.name());
            } else {
              for (String name : leaf.sampleNames()) {
                add(scalarSlots, name, index);
                families.add(name);
                for (String suffix : new String[] {"_total", "_bucket", "_sum", "_count"}) {
                  if (name.endsWith(suffix)) {
                    families.add(name.substring(0, name.length() - suffix.length()));
                  }
                }
              }
            }
          }
        }
      }
      for (Map.Entry<String, int[]> e : scalarSlots.entrySet()) {
        String name = e.getKey();
        for (String suffix : new String[] {"", "_total", "_sum", "_count"}) {
          if (name.endsWith(suffix)) {
            presentWith(name.substring(0, name.length() - suffix.length()), e.getValue());
          }
        }
        // A family written with _total whose samples a source names without it.
        presentWith(name + "_total", e.getValue());
      }
      int n = leaves.size();
      this.plain = new boolean[n];
      this.whereLabels = new String[n][];
      this.whereValues = new List<?>[n][];
      for (int i = 0; i < n; i++) {
        Source leaf = leaves.get(i);
        plain[i] = leaf.where().isEmpty() && totalRows(leaf).isEmpty() && rankLabels.length == 0;
        whereLabels[i] = leaf.where().keySet().toArray(new String[0]);
        whereValues[i] = leaf.where().values().toArray(new List<?>[0]);
      }
    }

    private void presentWith(String family, int[] slots) {
      int[] known = scalarLeavesOfFamily.get(family);
      scalarLeavesOfFamily.put(family, known == null ? slots.clone() : union(known, slots));
    }

    /** Whether no rule touches the rows of {@code leaf}. */
    boolean plain(Source leaf) {
      return plain[leafIndex(leaf)];
    }

    /** {@link Source#accepts} from arrays made once (no iterator per row). */
    boolean accepts(Source leaf, Labels labels) {
      int i = leafIndex(leaf);
      String[] names = whereLabels[i];
      List<?>[] values = whereValues[i];
      for (int k = 0; k < names.length; k++) {
        String v = labels.get(names[k]);
        // In Prometheus an empty label value is the same as no label.
        if (!values[k].contains(v == null ? "" : v)) {
          return false;
        }
      }
      return true;
    }

    private static void add(Map<String, int[]> slots, String name, int index) {
      int[] old = slots.get(name);
      if (old == null) {
        slots.put(name, new int[] {index});
      } else {
        int[] n = Arrays.copyOf(old, old.length + 1);
        n[old.length] = index;
        slots.put(name, n);
      }
    }

    static String[] describeTotalRow(TotalRowRule rule) {
      return new String[] {
          "read: total row " + rule.label() + "=\"" + rule.value() + "\" of its siblings",
          "skipped: part of the total row " + rule.label() + "=\"" + rule.value() + "\""};
    }

    String[] totalRowTexts(TotalRowRule rule) {
      String[] texts = totalRowTexts.get(rule);
      return texts != null ? texts : describeTotalRow(rule);
    }

    String filterSkip(Source leaf) {
      String text = filterSkips.get(leaf);
      return text != null ? text : "skipped: filter " + filterText(leaf);
    }

    int leafIndex(Source leaf) {
      return leafIndex.get(leaf);
    }

    List<TotalRowRule> totalRows(Source leaf) {
      List<TotalRowRule> r = totalRows.get(leaf);
      return r == null ? List.of() : r;
    }

    boolean recognizes(String name) {
      for (String w : wire) {
        if (name.startsWith(w)) {
          return true;
        }
      }
      return !markers.isEmpty() && markers.contains(name);
    }

    /** The name with a wire prefix rewritten to its canonical one (the name when none applies). */
    String canonical(String name) {
      for (int i = 0; i < wire.length; i++) {
        if (name.startsWith(wire[i])) {
          return wire[i].equals(canonical[i]) ? name : canonical[i] + name.substring(wire[i].length());
        }
      }
      return name;
    }

    /**
     * Per leaf, the samples (or the parser's histograms) the exposition has for it, and what
     * drifted. A leaf that reads one family whole gets the parser's own immutable list of it, not
     * a copy; the lists are only read.
     */
    @SuppressWarnings("unchecked")
    Reading collect(Exposition exposition) {
      Reading reading = new Reading();
      List<Object>[] out = new List[leaves.size()];
      reading.out = out;
      reading.present = new boolean[leaves.size()];
      List<MetricFamily> all = exposition.families();
      Set<String> counters = null;
      for (int fi = 0, fn = all.size(); fi < fn; fi++) {
        MetricFamily f = all.get(fi);
        List<Sample> samples = f.samples();
        int prefix = wireIndex(f.name());
        boolean engines = prefix >= 0;
        if (engines && f.type() == MetricType.GAUGE && ignoresCounterGaugesOf[prefix]) {
          if (counters == null) {
            counters = counterNames(all);
          }
          if (counters.contains(f.name() + "_total")) {
            // The wrapper's gauge copy of the counter beside it: the same value, read once.
            reading.duplicate(f.name());
            continue;
          }
        }
        String family = canonical(f.name());
        List<Histogram> histograms = f.histograms();
        // An undeclared x_bucket family is an excerpt of histogram x.
        String base = f.type() == MetricType.UNTYPED && family.endsWith("_bucket") && !histograms.isEmpty()
            ? family.substring(0, family.length() - "_bucket".length())
            : family;
        int[] histogramLeaves = histogramSlots.get(base);
        boolean read = histogramLeaves != null || families.contains(family);
        if (engines) {
          if (read) {
            markPresent(reading.present, histogramLeaves, family);
          } else if (!family.endsWith("_created") && !notRead.contains(withoutTotal(base))) {
            reading.unread(f.name());
          }
        }
        if (samples.isEmpty()) {
          continue;
        }
        if (!histograms.isEmpty() && histogramLeaves != null) {
          // Grouped by the parser.
          for (int leaf : histogramLeaves) {
            addAll(out, leaf, (List<Object>) (List<?>) histograms);
          }
        }
        // Skip whole families of other exporters (python_, process_, http_) and families of the
        // engine that no source reads. Untyped families are named after their samples.
        if (!families.contains(family)) {
          continue;
        }
        // Usually every sample of the family goes to the same leaves (a gauge's or a counter's
        // samples share one name): then they take the family's list whole.
        int[] common = null;
        int[] slots = null;
        int si = 0;
        int sn = samples.size();
        for (; si < sn; si++) {
          slots = scalarSlots.get(slotName(f, family, samples.get(si).name()));
          if (slots == null || (common != null && slots != common)) {
            break;
          }
          common = slots;
        }
        if (si == sn) {
          for (int leaf : common) {
            addAll(out, leaf, (List<Object>) (List<?>) samples);
          }
          continue;
        }
        // Else the first si samples go to common's leaves, then each sample to its own.
        for (int k = 0; k < si; k++) {
          for (int leaf : common) {
            owned(out, leaf).add(samples.get(k));
          }
        }
        for (int k = si; k < sn; k++) {
          Sample s = samples.get(k);
          int[] own = k == si ? slots : scalarSlots.get(slotName(f, family, s.name()));
          if (own == null) {
            continue;
          }
          for (int leaf : own) {
            owned(out, leaf).add(s);
          }
        }
      }
      return reading;
    }

    /** The index of the longest of the engine's wire prefixes a family name carries, or -1. */
    private int wireIndex(String name) {
      for (int i = 0; i < wire.length; i++) {
        if (name.startsWith(wire[i])) {
          return i;
        }
      }
      return -1;
    }

    /** Marks the leaves that read a family present (it is exported, with samples or not). */
    private void markPresent(boolean[] present, int[] histogramLeaves, String family) {
      if (histogramLeaves != null) {
        for (int leaf : histogramLeaves) {
          present[leaf] = true;
        }
      }
      int[] slots = scalarLeavesOfFamily.get(family);
      if (slots != null) {
        for (int leaf : slots) {
          present[leaf] = true;
        }
      }
    }

    /** The names of the counter families and of their samples, for telling gauge copies apart. */
    private static Set<String> counterNames(List<MetricFamily> all) {
      Set<String> out = new HashSet<>();
      for (MetricFamily f : all) {
        if (f.type() == MetricType.COUNTER) {
          out.add(f.name());
          if (!f.samples().isEmpty()) {
            out.add(f.samples().get(0).name());
          }
        }
      }
      return out;
    }

    /** The name a sample's slots are found under: its family's canonical name, or its own. */
    private String slotName(MetricFamily f, String family, String name) {
      return name == f.name() ? family : canonical(name);
    }

    /** Appends {@code items} to a leaf's list; a leaf without one takes {@code items} itself. */
    private static void addAll(List<Object>[] out, int leaf, List<Object> items) {
      if (out[leaf] == null) {
        out[leaf] = items;
      } else {
        owned(out, leaf).addAll(items);
      }
    }

    /** The leaf's list, made or copied into one of its own when it is absent or the parser's. */
    private static List<Object> owned(List<Object>[] out, int leaf) {
      List<Object> l = out[leaf];
      if (l == null) {
        l = new LeafList(List.of());
        out[leaf] = l;
      } else if (!(l instanceof LeafList)) {
        l = new LeafList(l);
        out[leaf] = l;
      }
      return l;
    }

    /** A list {@link #collect} made for a leaf (never one of the parser's, which it only reads). */
    private static final class LeafList extends ArrayList<Object> {
      LeafList(List<Object> first) {
        super(first.isEmpty() ? 10 : first.size() + 10);
        addAll(first);
      }
    }
  }
}
