package dev.gputop.inference.engine;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the agent knows about one engine's metrics, as data read from a profile file
 * (docs/engines/README.md): the prefixes its metric names carry and how foreign prefixes map to
 * the canonical one, its recognition priority, which labels name the model, which only split a
 * total and are summed, which repeat one value per rank, which series are the total of their
 * siblings, for each concept the metrics that carry it (newest name first) and how its processes
 * are discovered. Adding a renamed metric means adding a line to a file, not code. Immutable.
 *
 * @param engine the engine
 * @param name a readable name, e.g. {@code vLLM}
 * @param priority recognition order: the profile with the lowest priority one of whose prefixes
 *     starts a family name wins (vLLM before TGI, for IBM's fork that writes both)
 * @param prefixAliases wire prefix → canonical prefix, applied to every sample name before
 *     matching (e.g. {@code ray_vllm:} → {@code vllm:}); the canonical prefix maps to itself;
 *     includes the prefixes the wrappers give each canonical one
 * @param wrappers the layers that re-export the engine's names under their own ({@link Wrapper})
 * @param notRead the engine's families (canonical names, counters without {@code _total}) the
 *     profile knows and reads for no concept; any other family with the engine's prefix that no
 *     rule reads is drift ({@link Drift})
 * @param markers metric names that identify the engine although they carry none of its prefixes
 *     (TensorRT-LLM up to 1.1 writes {@code time_to_first_token_seconds} with no prefix at all)
 * @param modelLabels labels that name the served model, first present wins
 * @param noModelValues values of a model label that name no model (TensorRT-LLM writes {@code
 *     model_name="undefined"} when it can't name its model): such a series belongs to the server,
 *     not to a model
 * @param rankLabels labels whose series repeat the same value per rank (SGLang's {@code
 *     tp_rank}): of the series that differ only in these, the lowest rank is read
 * @param splitLabels labels that only split a total into parts, which are summed (documentation,
 *     and what {@code explain} says of them)
 * @param totalRows series that are the total of their siblings
 * @param concepts for each concept the metrics that carry it, preferred first; per scrape the
 *     first one with samples is used
 * @param discovery how its processes are recognized and where they serve metrics
 * @param origin where the profile was read from (a resource or file name), for messages
 */
public record EngineProfile(
    Engine engine,
    String name,
    int priority,
    Map<String, String> prefixAliases,
    List<Wrapper> wrappers,
    List<String> notRead,
    List<String> markers,
    List<String> modelLabels,
    List<String> noModelValues,
    List<String> rankLabels,
    List<String> splitLabels,
    List<TotalRowRule> totalRows,
    Map<Concept, List<Source>> concepts,
    DiscoveryRule discovery,
    String origin) {

  public EngineProfile {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(name, "name");
    prefixAliases = Collections.unmodifiableMap(new LinkedHashMap<>(prefixAliases));
    wrappers = List.copyOf(wrappers);
    notRead = List.copyOf(notRead);
    markers = List.copyOf(markers);
    modelLabels = List.copyOf(modelLabels);
    noModelValues = List.copyOf(noModelValues);
    rankLabels = List.copyOf(rankLabels);
    splitLabels = List.copyOf(splitLabels);
    totalRows = List.copyOf(totalRows);
    EnumMap<Concept, List<Source>> copy = new EnumMap<>(Concept.class);
    concepts.forEach((c, s) -> copy.put(c, List.copyOf(s)));
    concepts = Collections.unmodifiableMap(copy);
    Objects.requireNonNull(discovery, "discovery");
    Objects.requireNonNull(origin, "origin");
  }

  /** The metrics for a concept, preferred first; empty when the engine doesn't export it. */
  public List<Source> sources(Concept concept) {
    return concepts.getOrDefault(concept, List.of());
  }

  /**
   * The sample name with a known prefix rewritten to the canonical one, or null when the name
   * carries none of this engine's prefixes.
   */
  public String canonicalName(String sampleName) {
    for (Map.Entry<String, String> e : prefixAliases.entrySet()) {
      String wire = e.getKey();
      if (sampleName.startsWith(wire)) {
        String canonical = e.getValue();
        return wire.equals(canonical) ? sampleName : canonical + sampleName.substring(wire.length());
      }
    }
    return null;
  }

  /** The wrapper whose wire prefix starts {@code sampleName}, or null (the engine's own names). */
  public Wrapper wrapperOf(String sampleName) {
    for (Wrapper w : wrappers) {
      for (Map.Entry<String, String> e : prefixAliases.entrySet()) {
        if (e.getKey().equals(w.wrap(e.getValue())) && sampleName.startsWith(e.getKey())) {
          return w;
        }
      }
    }
    return null;
  }

  /** The total-row rules that apply to a source. */
  List<TotalRowRule> totalRowsOf(String sourceName) {
    if (totalRows.isEmpty()) {
      return List.of();
    }
    List<TotalRowRule> out = null;
    for (TotalRowRule r : totalRows) {
      if (r.appliesTo(sourceName)) {
        if (out == null) {
          out = new java.util.ArrayList<>(2);
        }
        out.add(r);
      }
    }
    return out == null ? List.of() : out;
  }
}
