package dev.gputop.inference.engine;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the agent knows about one engine's metrics, as data: the prefixes its metric names carry,
 * how foreign prefixes map to the canonical one, which labels name the model, which labels only
 * repeat the same values per rank, and for each concept the metrics that carry it, newest name
 * first. Adding a renamed metric means adding a name here, not code. Immutable.
 *
 * @param engine the engine
 * @param prefixAliases wire prefix → canonical prefix, applied to every sample name before
 *     matching (e.g. {@code ray_vllm:} → {@code vllm:}, {@code sglang_} → {@code sglang:}); the
 *     canonical prefix maps to itself
 * @param modelLabels labels that name the served model, first present wins
 * @param rankLabels labels whose series repeat the same value per rank (SGLang's {@code
 *     tp_rank}): of the series that differ only in these, the lowest rank is kept
 * @param concepts for each concept the metrics that carry it, preferred first; per scrape the
 *     first one with samples is used
 */
public record EngineProfile(
    Engine engine,
    Map<String, String> prefixAliases,
    List<String> modelLabels,
    List<String> rankLabels,
    Map<Concept, List<Source>> concepts) {

  public EngineProfile {
    Objects.requireNonNull(engine, "engine");
    prefixAliases = Map.copyOf(prefixAliases);
    modelLabels = List.copyOf(modelLabels);
    rankLabels = List.copyOf(rankLabels);
    EnumMap<Concept, List<Source>> copy = new EnumMap<>(Concept.class);
    concepts.forEach((c, s) -> copy.put(c, List.copyOf(s)));
    concepts = java.util.Collections.unmodifiableMap(copy);
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
}
