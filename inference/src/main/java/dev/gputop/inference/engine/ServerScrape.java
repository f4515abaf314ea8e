package dev.gputop.inference.engine;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One scrape of one server, reduced to the series of each concept the engine exports. Concepts
 * the engine does not export, or whose families had no samples, are absent. Immutable.
 *
 * @param engine the engine recognized from the metric names
 * @param concepts the values of each concept present
 * @param models the served models named by the series, sorted; empty when the engine does not
 *     name them
 * @param drift the engine's families no rule reads and the concepts expected but not exported
 */
public record ServerScrape(Engine engine, Map<Concept, ConceptValues> concepts, List<String> models,
    Drift drift) {

  public ServerScrape {
    Objects.requireNonNull(engine, "engine");
    EnumMap<Concept, ConceptValues> copy = new EnumMap<>(Concept.class);
    copy.putAll(concepts);
    concepts = Collections.unmodifiableMap(copy);
    models = List.copyOf(models);
    drift = drift == null ? Drift.NONE : drift;
  }

  /** A scrape without drift information. */
  public ServerScrape(Engine engine, Map<Concept, ConceptValues> concepts, List<String> models) {
    this(engine, concepts, models, Drift.NONE);
  }

  /** A scrape of an endpoint whose engine is not known: nothing to compute. */
  public static ServerScrape unknown() {
    return new ServerScrape(Engine.UNKNOWN, Map.of(), List.of(), Drift.NONE);
  }

  /** The values of a concept, or null when absent. */
  public ConceptValues get(Concept concept) {
    return concepts.get(concept);
  }
}
