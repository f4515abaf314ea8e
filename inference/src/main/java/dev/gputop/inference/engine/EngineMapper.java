package dev.gputop.inference.engine;

import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.Labels;
import dev.gputop.inference.parse.MetricFamily;
import dev.gputop.inference.parse.Sample;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Recognizes the engine behind an exposition from its metric names and reduces the exposition to
 * the series of each concept ({@link ServerScrape}), using the engine's {@link EngineProfile}.
 *
 * <p>Recognition: the first profile (in {@link EngineProfiles#ALL} order: vLLM, SGLang,
 * llama.cpp, TGI) one of whose prefixes starts a family name. So a vLLM fork that also writes
 * TGI-style names is vLLM; an endpoint with none of the prefixes is {@link Engine#UNKNOWN}.
 *
 * <p>Stateless and thread-safe; one instance serves every server.
 */
public final class EngineMapper {

  private static final double[] NO_DOUBLES = new double[0];

  /** Per profile: canonical sample name → the sources that read it. */
  private final Map<Engine, Map<String, List<Source>>> slotsByEngine = new EnumMap<>(Engine.class);

  /**
   * Per profile: the canonical names of the typed families that can hold a source's samples
   * (with and without {@code _total}, histograms by base name), so that the other families of
   * the engine (token-count histograms, {@code _created} gauges, ...) are skipped whole.
   */
  private final Map<Engine, java.util.Set<String>> familiesByEngine = new EnumMap<>(Engine.class);

  /** Per profile: wire prefixes and the canonical prefix each maps to, as arrays for speed. */
  private static final Map<Engine, String[][]> PREFIXES = new EnumMap<>(Engine.class);

  static {
    for (EngineProfile p : EngineProfiles.ALL) {
      String[] wire = p.prefixAliases().keySet().toArray(new String[0]);
      java.util.Arrays.sort(wire);
      String[] canonical = new String[wire.length];
      for (int i = 0; i < wire.length; i++) {
        canonical[i] = p.prefixAliases().get(wire[i]);
      }
      PREFIXES.put(p.engine(), new String[][] {wire, canonical});
    }
  }

  public EngineMapper() {
    for (EngineProfile p : EngineProfiles.ALL) {
      Map<String, List<Source>> slots = new HashMap<>();
      for (List<Source> sources : p.concepts().values()) {
        for (Source s : sources) {
          for (String name : s.sampleNames()) {
            List<Source> list = slots.computeIfAbsent(name, k -> new ArrayList<>(1));
            if (!list.contains(s)) {
              list.add(s);
            }
          }
        }
      }
      slotsByEngine.put(p.engine(), slots);
      java.util.Set<String> families = new java.util.HashSet<>();
      for (String name : slots.keySet()) {
        families.add(name);
        for (String suffix : new String[] {"_total", "_bucket", "_sum", "_count"}) {
          if (name.endsWith(suffix)) {
            families.add(name.substring(0, name.length() - suffix.length()));
          }
        }
      }
      familiesByEngine.put(p.engine(), families);
    }
  }

  /** The index of the engine's wire prefix that starts {@code name}, or −1. */
  private static int prefixIndex(String[] wire, String name) {
    for (int i = 0; i < wire.length; i++) {
      if (name.startsWith(wire[i])) {
        return i;
      }
    }
    return -1;
  }

  /** The engine whose metric names the exposition carries. */
  public static Engine recognize(Exposition exposition) {
    for (EngineProfile p : EngineProfiles.ALL) {
      String[] wire = PREFIXES.get(p.engine())[0];
      for (MetricFamily f : exposition.families()) {
        if (prefixIndex(wire, f.name()) >= 0) {
          return p.engine();
        }
        // A family's samples may carry the prefix when the family name doesn't (untyped).
        if (!f.samples().isEmpty() && prefixIndex(wire, f.samples().get(0).name()) >= 0) {
          return p.engine();
        }
      }
    }
    return Engine.UNKNOWN;
  }

  /** Recognizes the engine and reads every concept its profile maps. */
  public ServerScrape map(Exposition exposition) {
    Engine engine = recognize(exposition);
    EngineProfile profile = EngineProfiles.of(engine);
    if (profile == null) {
      return ServerScrape.unknown();
    }
    Map<String, List<Source>> slots = slotsByEngine.get(engine);
    String[][] prefixes = PREFIXES.get(engine);
    String[] wire = prefixes[0];
    String[] canonical = prefixes[1];
    java.util.Set<String> families = familiesByEngine.get(engine);
    // Two concepts may read one metric (SGLang prompt tokens): sources are keys by value.
    Map<Source, List<Sample>> bySource = new HashMap<>();
    for (MetricFamily f : exposition.families()) {
      List<Sample> samples = f.samples();
      // Skip whole families of other exporters (python_, process_, http_) at once, and typed
      // families of the engine that no source reads. Untyped families are named after their
      // first sample, so they are read sample by sample.
      if (samples.isEmpty()) {
        continue;
      }
      int fi = prefixIndex(wire, f.name());
      if (fi < 0 && prefixIndex(wire, samples.get(0).name()) < 0) {
        continue;
      }
      if (fi >= 0 && f.type() != dev.gputop.inference.parse.MetricType.UNTYPED) {
        String family = wire[fi].equals(canonical[fi])
            ? f.name()
            : canonical[fi] + f.name().substring(wire[fi].length());
        if (!families.contains(family)) {
          continue;
        }
      }
      for (int si = 0, sn = samples.size(); si < sn; si++) {
        Sample s = samples.get(si);
        String name = s.name();
        int pi = prefixIndex(wire, name);
        if (pi < 0) {
          continue;
        }
        if (!wire[pi].equals(canonical[pi])) {
          name = canonical[pi] + name.substring(wire[pi].length());
        }
        List<Source> targets = slots.get(name);
        if (targets == null) {
          continue;
        }
        for (Source t : targets) {
          if (!t.accepts(s.labels())) {
            continue;
          }
          bySource.computeIfAbsent(t, k -> new ArrayList<>()).add(rename(s, name));
        }
      }
    }
    Map<Concept, ConceptValues> concepts = new EnumMap<>(Concept.class);
    TreeSet<String> models = new TreeSet<>();
    for (Map.Entry<Concept, List<Source>> e : profile.concepts().entrySet()) {
      for (Source source : e.getValue()) {
        List<Sample> samples = bySource.get(source);
        if (samples == null || samples.isEmpty()) {
          continue;
        }
        ConceptValues cv = source.form() == Source.Form.HISTOGRAM
            ? ConceptValues.ofHistograms(e.getKey(), source, histograms(profile, source, samples))
            : ConceptValues.ofSeries(e.getKey(), source, series(profile, source, samples));
        if (cv.series().isEmpty() && cv.histograms().isEmpty()) {
          continue;
        }
        concepts.put(e.getKey(), cv);
        cv.series().values().forEach(s -> addModel(models, s.model()));
        cv.histograms().values().forEach(h -> addModel(models, h.model()));
        break;
      }
    }
    return new ServerScrape(engine, concepts, List.copyOf(models));
  }

  private static void addModel(TreeSet<String> models, String model) {
    if (!model.isEmpty()) {
      models.add(model);
    }
  }

  private static Sample rename(Sample s, String canonical) {
    return canonical.equals(s.name()) ? s : new Sample(canonical, s.labels(), s.value(), s.timestampMillis());
  }

  /** Gauge and counter series, one per label set after folding rank labels. */
  private static List<Series> series(EngineProfile profile, Source source, List<Sample> samples) {
    List<Sample> kept = foldRanks(profile, samples);
    Map<Labels, Series> out = new LinkedHashMap<>();
    for (Sample s : kept) {
      double v = s.value();
      if (Double.isNaN(v)) {
        continue;
      }
      // A repeated label set is a duplicate line: the first one wins.
      out.putIfAbsent(
          s.labels(), new Series(new SeriesKey(source.name(), s.labels()), model(profile, s.labels()), v));
    }
    return new ArrayList<>(out.values());
  }

  /** Classic histograms grouped by labels without {@code le}, buckets sorted by bound. */
  private static List<HistogramSeries> histograms(
      EngineProfile profile, Source source, List<Sample> samples) {
    List<Sample> kept = foldRanks(profile, samples);
    String bucketName = source.name() + "_bucket";
    String sumName = source.name() + "_sum";
    Map<Labels, Builder> groups = new LinkedHashMap<>();
    Labels previousBucket = null;
    Builder previousGroup = null;
    for (Sample s : kept) {
      Labels labels = s.labels();
      if (s.name().equals(bucketName)) {
        String le = labels.get("le");
        double bound = le == null ? Double.NaN : cachedLe(le);
        if (Double.isNaN(bound)) {
          continue; // PromQL skips a bucket whose le does not parse (BadBucketLabel).
        }
        // Buckets of one histogram come one after another: reuse its group without building
        // the labels-without-le again.
        Builder group = previousBucket != null && sameExceptLe(previousBucket, labels)
            ? previousGroup
            : groups.computeIfAbsent(labels.without("le"), k -> new Builder());
        group.add(bound, s.value());
        previousBucket = labels;
        previousGroup = group;
      } else if (s.name().equals(sumName)) {
        groups.computeIfAbsent(labels, k -> new Builder()).sum = s.value();
      } else {
        groups.computeIfAbsent(labels, k -> new Builder()).count = s.value();
      }
    }
    List<HistogramSeries> out = new ArrayList<>(groups.size());
    for (Map.Entry<Labels, Builder> e : groups.entrySet()) {
      Builder b = e.getValue();
      if (b.n == 0 && Double.isNaN(b.count)) {
        continue;
      }
      b.sort();
      out.add(
          new HistogramSeries(
              new SeriesKey(source.name(), e.getKey()),
              model(profile, e.getKey()),
              b.n == 0 ? NO_DOUBLES : java.util.Arrays.copyOf(b.bounds, b.n),
              b.n == 0 ? NO_DOUBLES : java.util.Arrays.copyOf(b.values, b.n),
              b.sum,
              b.count));
    }
    return out;
  }

  /**
   * Drops the profile's rank labels from every sample; of samples that then collide (same name
   * and remaining labels), keeps the one with the lowest ranks, because every rank reports the
   * same batch. Without rank labels in the profile, returns the samples as they are.
   */
  private static List<Sample> foldRanks(EngineProfile profile, List<Sample> samples) {
    if (profile.rankLabels().isEmpty()) {
      return samples;
    }
    String[] rankLabels = profile.rankLabels().toArray(new String[0]);
    Map<SeriesKey, Integer> index = new HashMap<>();
    List<Sample> out = new ArrayList<>(samples.size());
    List<Long> ranks = new ArrayList<>(samples.size());
    for (Sample s : samples) {
      Labels labels = s.labels();
      long rank = 0;
      boolean has = false;
      for (String r : rankLabels) {
        String v = labels.get(r);
        rank = rank * 65536 + rankValue(v);
        has |= v != null;
      }
      if (!has) {
        out.add(s);
        ranks.add(0L);
        continue;
      }
      Labels stripped = labels.without(rankLabels);
      Sample folded = new Sample(s.name(), stripped, s.value(), s.timestampMillis());
      SeriesKey key = new SeriesKey(s.name(), stripped);
      Integer at = index.get(key);
      if (at == null) {
        index.put(key, out.size());
        out.add(folded);
        ranks.add(rank);
      } else if (rank < ranks.get(at)) {
        out.set(at, folded);
        ranks.set(at, rank);
      }
    }
    return out;
  }

  /** Whether two label sets differ at most in the value of {@code le}. */
  private static boolean sameExceptLe(Labels a, Labels b) {
    int n = a.size();
    if (n != b.size()) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      String name = a.name(i);
      if (!name.equals(b.name(i))) {
        return false;
      }
      if (!name.equals("le") && !a.value(i).equals(b.value(i))) {
        return false;
      }
    }
    return true;
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

  private static String model(EngineProfile profile, Labels labels) {
    for (String l : profile.modelLabels()) {
      String v = labels.get(l);
      if (v != null) {
        return v;
      }
    }
    return "";
  }

  /** Parsed {@code le} values: a few dozen distinct strings, parsed on every scrape otherwise. */
  private static final java.util.concurrent.ConcurrentHashMap<String, Double> LE_CACHE =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static final int LE_CACHE_MAX = 4096;

  private static double cachedLe(String le) {
    Double cached = LE_CACHE.get(le);
    if (cached != null) {
      return cached;
    }
    double v = parseLe(le);
    if (LE_CACHE.size() >= LE_CACHE_MAX) {
      LE_CACHE.clear(); // a server inventing bounds costs time, never memory
    }
    LE_CACHE.put(le, v);
    return v;
  }

  /**
   * The {@code le} label as Go's strconv.ParseFloat reads it: {@code +Inf}, {@code Inf}, {@code
   * inf}, {@code 1e3}, {@code 0.5}; NaN when it does not parse.
   */
  static double parseLe(String le) {
    String s = le.trim();
    if (!s.equals(le) || s.isEmpty()) {
      return Double.NaN;
    }
    String lower = s.toLowerCase(java.util.Locale.ROOT);
    switch (lower) {
      case "+inf":
      case "inf":
      case "+infinity":
      case "infinity":
        return Double.POSITIVE_INFINITY;
      case "-inf":
      case "-infinity":
        return Double.NEGATIVE_INFINITY;
      default:
        break;
    }
    char last = lower.charAt(lower.length() - 1);
    if (last == 'd' || last == 'f' || lower.equals("nan")) {
      // Java accepts "1d"/"1f" and Go does not; a NaN bound is no bound.
      return Double.NaN;
    }
    try {
      return Double.parseDouble(s);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /** Collects one histogram's buckets. */
  private static final class Builder {
    double[] bounds = new double[16];
    double[] values = new double[16];
    int n;
    double sum = Double.NaN;
    double count = Double.NaN;

    void add(double bound, double value) {
      if (n == bounds.length) {
        bounds = java.util.Arrays.copyOf(bounds, n * 2);
        values = java.util.Arrays.copyOf(values, n * 2);
      }
      bounds[n] = bound;
      values[n++] = value;
    }

    void sort() {
      // Insertion sort: buckets arrive ascending in every real exposition.
      for (int i = 1; i < n; i++) {
        double b = bounds[i];
        double v = values[i];
        int j = i - 1;
        while (j >= 0 && bounds[j] > b) {
          bounds[j + 1] = bounds[j];
          values[j + 1] = values[j];
          j--;
        }
        bounds[j + 1] = b;
        values[j + 1] = v;
      }
    }
  }
}
