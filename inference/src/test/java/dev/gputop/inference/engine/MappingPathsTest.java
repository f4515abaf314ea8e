package dev.gputop.inference.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.testing.TextExpositions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The mapper reads a source without per-row bookkeeping when no rule (filter, total rows, rank
 * labels) can touch its rows and nobody traces it; with a trace every source goes through the
 * rules. Both must give the same scrape, series for series and in the same order (the order the
 * statistics sum in): checked on every fixture of every engine and on the rules' own expositions.
 */
class MappingPathsTest {

  private static final EngineProfile RULES =
      new ProfileLoader().parse(TextExpositions.resource("/engines/rules/rules.yaml"), "rules.yaml");

  private static List<Path> files(String dir) throws IOException {
    try (Stream<Path> s = Files.walk(Path.of(dir))) {
      return s.filter(p -> p.toString().endsWith(".prom")).sorted().toList();
    }
  }

  /** Everything of a scrape, in order: engine, models, each concept's source and series. */
  private static List<Object> ordered(ServerScrape s) {
    List<Object> out = new ArrayList<>();
    out.add(s.engine());
    out.add(s.models());
    for (Map.Entry<Concept, ConceptValues> e : s.concepts().entrySet()) {
      out.add(e.getKey());
      out.add(e.getValue().source());
      out.add(new ArrayList<>(e.getValue().series().entrySet()));
      out.add(new ArrayList<>(e.getValue().histograms().entrySet()));
    }
    return out;
  }

  private static int check(EngineMapper mapper, List<Path> files) {
    int concepts = 0;
    for (Path f : files) {
      Exposition e = TextExpositions.file(f);
      ServerScrape plain = mapper.map(e);
      ServerScrape traced = mapper.map(e, new MappingTrace());
      assertThat(ordered(plain)).as(f.toString()).isEqualTo(ordered(traced));
      assertThat(plain).as(f.toString()).isEqualTo(traced);
      concepts += plain.concepts().size();
    }
    return concepts;
  }

  @Test
  void map_withoutTraceReadsWhatTheTracedRulesRead() throws IOException {
    List<Path> fixtures = files("src/test/resources/fixtures");
    assertThat(fixtures).hasSizeGreaterThan(20);
    assertThat(check(new EngineMapper(), fixtures)).isGreaterThan(100);
    List<Path> rules = files("src/test/resources/engines/rules");
    assertThat(check(new EngineMapper(EngineProfiles.of(List.of(RULES))), rules)).isGreaterThan(10);
  }
}
