package dev.gputop.inference.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionFormatException;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzz tests of the exposition parser and the engine mapper (Jazzer): whatever bytes a server
 * sends, parsing ends with an {@link Exposition} or an {@link ExpositionFormatException}, and
 * mapping a parsed exposition never throws. Anything else (another exception, a hang, a stack
 * overflow) is a finding.
 *
 * <p>In the default suite {@link #fixtures_andTheirMutations_parseAndMapWithoutSurprises} runs
 * the targets over every exposition fixture of the project and deterministic mutations of it
 * (truncations, byte flips, repeated lines). With {@code -Plong} (.ci/run) the mutations are
 * {@code gputop.fuzz.scale} (8) times as many and the {@code @FuzzTest}s run too, in Jazzer's
 * regression mode: its agent costs several seconds a JVM, and without a committed corpus it
 * replays only the empty input ({@code ExpositionParserTest#parse_emptyInput} in the default run).
 * Fuzzing for real (docs/RELIABILITY.md): {@code JAZZER_FUZZ=1 ./mvnw -Plong -pl
 * inference -am test -Dtest=ExpositionFuzzTest#parse_anyBytes... }, seeded by copying the fixtures
 * into the generated corpus directory.
 */
class ExpositionFuzzTest {

  private static final ExpositionParser PARSER = new ExpositionParser(ParserLimits.defaults());
  private static final EngineMapper MAPPER = new EngineMapper();

  /** How many times the default run's mutations a run makes (-Plong: 8). */
  private static final int SCALE = Integer.getInteger("gputop.fuzz.scale", 1);

  @Tag("long")
  @FuzzTest(maxDuration = "5m")
  void parse_anyBytes_endsWithAnExpositionOrAFormatError(byte[] data) {
    parse(data);
  }

  @Tag("long")
  @FuzzTest(maxDuration = "5m")
  void map_anyParsedExposition_neverThrows(byte[] data) {
    Exposition e = parse(data);
    if (e != null) {
      MAPPER.map(e);
    }
  }

  @Test
  void fixtures_andTheirMutations_parseAndMapWithoutSurprises() throws Exception {
    List<Path> fixtures = fixtures();
    assertThat(fixtures).hasSizeGreaterThanOrEqualTo(10);
    long runs = 0;
    for (Path f : fixtures) {
      byte[] body = Files.readAllBytes(f);
      Exposition whole = parse(body);
      assertThat(whole).as("%s parses", f).isNotNull();
      MAPPER.map(whole);
      for (byte[] m : mutations(body)) {
        Exposition e = parse(m);
        if (e != null) {
          MAPPER.map(e);
        }
        runs++;
      }
    }
    assertThat(runs).isGreaterThan(1000);
  }

  private static Exposition parse(byte[] data) {
    try {
      return PARSER.parse(data, 0, data.length);
    } catch (ExpositionFormatException e) {
      return null;
    }
  }

  /** Every exposition fixture of the project (inference/src/test/resources/fixtures). */
  static List<Path> fixtures() throws IOException, URISyntaxException {
    Path root = Path.of(ExpositionFuzzTest.class.getResource("/fixtures").toURI());
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> p.toString().endsWith(".prom") || p.toString().endsWith(".txt")
          || p.toString().endsWith(".om")).sorted().toList();
    }
  }

  /**
   * Truncations at 64 points, 64 single-byte changes to hostile values (each times {@link
   * #SCALE}), a line repeated.
   */
  static List<byte[]> mutations(byte[] body) {
    java.util.ArrayList<byte[]> out = new java.util.ArrayList<>();
    int n = body.length;
    int points = 64 * SCALE;
    byte[] hostile = {0, '\n', '{', '}', '"', '\\', '=', ',', ' ', '#', (byte) 0xff, (byte) 0xc3, 'e', '-', '+', 'I'};
    for (int i = 1; i <= points && n > 0; i++) {
      out.add(java.util.Arrays.copyOf(body, (int) ((long) n * i / (points + 1))));
      byte[] flipped = body.clone();
      flipped[(int) ((long) (n - 1) * i / points)] = hostile[i % hostile.length];
      out.add(flipped);
    }
    String text = new String(body, java.nio.charset.StandardCharsets.UTF_8);
    int nl = text.indexOf('\n', text.length() / 2);
    if (nl > 0) {
      int start = text.lastIndexOf('\n', nl - 1) + 1;
      String line = text.substring(start, nl + 1);
      out.add((text.substring(0, start) + line.repeat(50) + text.substring(start))
          .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    return out;
  }
}
