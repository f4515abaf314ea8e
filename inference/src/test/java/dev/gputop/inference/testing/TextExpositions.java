package dev.gputop.inference.testing;

import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionFormatException;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Builds {@link Exposition} values from readable text and fixture files with the product's
 * parser, for tests of the layers above it.
 */
public final class TextExpositions {

  private TextExpositions() {}

  /** Reads a classpath resource such as {@code /fixtures/vllm/v1-t0.prom}. */
  public static String resource(String path) {
    try (var in = TextExpositions.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalArgumentException("no resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Exposition file(Path path) {
    try {
      return parse(Files.readString(path));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Parses with the product's parser; a format error fails the test. */
  public static Exposition parse(String text) {
    try {
      return new ExpositionParser(ParserLimits.defaults()).parse(text);
    } catch (ExpositionFormatException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }
}
