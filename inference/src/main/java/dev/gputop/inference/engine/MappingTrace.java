package dev.gputop.inference.engine;

import dev.gputop.inference.parse.Labels;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link EngineMapper} decided for each concept of one scrape, series by series: which
 * source fed the concept, which of its series were read, summed or skipped and by which rule,
 * and why the other sources were not read. Collected only on request ({@code explain}), never
 * on the agent's own cycle. Not thread-safe while collected; read it after the mapping.
 */
final class MappingTrace {

  /** What happened to one source of a concept. */
  public enum SourceStatus {
    /** The source fed the concept. */
    READ,
    /** An earlier source of the concept had samples, so this one was not looked at. */
    NOT_NEEDED,
    /** The scrape has no sample of this source. */
    NO_SAMPLES,
    /** The source had samples, but every one was skipped (filters, NaN). */
    ALL_SKIPPED
  }

  /**
   * One series of a source and what the mapper did with it.
   *
   * @param name the sample (or histogram) name as written
   * @param labels its labels as written
   * @param value its value (for a histogram, its observation count)
   * @param read whether it feeds the concept
   * @param rule why: {@code summed}, {@code read (one rank: tp_rank="0")}, {@code skipped: ...}
   */
  public record SeriesDecision(String name, Labels labels, double value, boolean read, String rule) {}

  /**
   * One source of a concept.
   *
   * @param source the source as the profile declares it
   * @param status what happened to it
   * @param series its series, each with its decision (empty unless looked at)
   */
  public record SourceDecision(Source source, SourceStatus status, List<SeriesDecision> series) {
    public SourceDecision {
      series = List.copyOf(series);
    }
  }

  /**
   * One concept of the profile.
   *
   * @param concept the concept
   * @param sources its sources in preference order
   */
  public record ConceptDecision(Concept concept, List<SourceDecision> sources) {
    public ConceptDecision {
      sources = List.copyOf(sources);
    }
  }

  private final List<ConceptDecision> concepts = new ArrayList<>();
  private EngineProfile profile;

  /** The profile used, or null when no profile recognized the endpoint. */
  public EngineProfile profile() {
    return profile;
  }

  /** The decisions, concept by concept, in the profile's order. */
  public List<ConceptDecision> concepts() {
    return List.copyOf(concepts);
  }

  void profile(EngineProfile p) {
    this.profile = p;
  }

  void add(ConceptDecision d) {
    concepts.add(d);
  }
}
