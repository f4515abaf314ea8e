package dev.gputop.inference.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Bad input fails with ExpositionFormatException and nothing else, whatever the bytes. */
class ExpositionParserRobustnessTest {

  private static final byte[] ALPHABET =
      "abc_:{}=\",\\ \t\n\r#.+-0123456789eE{}\"\"nNaIinf HELP TYPE UNIT EOF le quantile _total_bucket"
          .getBytes(StandardCharsets.US_ASCII);

  private static byte[] fixture() throws IOException {
    try (InputStream in =
        ExpositionParserRobustnessTest.class.getResourceAsStream("/fixtures/vllm/vllm-v1-dp2.prom")) {
      return in.readAllBytes();
    }
  }

  /** Parses, returning the outcome; any exception but the format one fails the test. */
  private static String outcome(ExpositionParser parser, byte[] body, int offset, int length) {
    try {
      Exposition e = parser.parse(body, offset, length);
      return "ok " + e.sampleCount();
    } catch (ExpositionFormatException e) {
      assertThat(e.getMessage()).matches("line \\d+: .+");
      assertThat(e.getMessage()).doesNotContain("internal parser error");
      assertThat(e.line()).isBetween(1, length + 1);
      return "error";
    }
  }

  @Test
  void parse_randomBytes() {
    SplittableRandom random = new SplittableRandom(1234);
    ExpositionParser parser = new ExpositionParser(new ParserLimits(512, 1000, 8), 64, 1 << 16);
    int ok = 0;
    for (int i = 0; i < 20_000; i++) {
      byte[] body = new byte[random.nextInt(0, 200)];
      boolean structured = random.nextBoolean();
      for (int k = 0; k < body.length; k++) {
        body[k] = structured ? ALPHABET[random.nextInt(ALPHABET.length)] : (byte) random.nextInt(256);
      }
      int offset = body.length == 0 ? 0 : random.nextInt(body.length);
      if (outcome(parser, body, offset, body.length - offset).startsWith("ok")) {
        ok++;
      }
    }
    // Some random inputs are valid (empty, comments only, blank lines): both paths are exercised.
    assertThat(ok).isPositive().isLessThan(20_000);
  }

  @Test
  void parse_mutatedRealExposition() throws IOException {
    byte[] original = fixture();
    SplittableRandom random = new SplittableRandom(99);
    ExpositionParser parser = new ExpositionParser(ParserLimits.defaults());
    int errors = 0;
    for (int i = 0; i < 300; i++) {
      byte[] body = original.clone();
      int mutations = random.nextInt(1, 6);
      for (int m = 0; m < mutations; m++) {
        int at = random.nextInt(body.length);
        body[at] =
            random.nextBoolean()
                ? ALPHABET[random.nextInt(ALPHABET.length)]
                : (byte) random.nextInt(256);
      }
      int length = random.nextInt(4) == 0 ? random.nextInt(body.length) : body.length;
      if (outcome(parser, body, 0, length).equals("error")) {
        errors++;
      }
      // The same parser keeps parsing the original correctly after bad input.
      assertThat(outcome(parser, original, 0, original.length)).isEqualTo("ok 622");
    }
    assertThat(errors).isPositive();
  }

  @Test
  void parse_everyTruncationOfAFamily() throws Exception {
    String text =
        "# HELP a_seconds A \\\\ help\\n.\n# TYPE a_seconds histogram\n"
            + "a_seconds_bucket{le=\"0.1\",x=\"q\\\"\"} 1 1700000000000\n"
            + "a_seconds_bucket{le=\"+Inf\",x=\"q\\\"\"} 2 # {t=\"1\"} 0.5 1.5\n"
            + "a_seconds_count{x=\"q\\\"\"} 2\na_seconds_sum{x=\"q\\\"\"} 1.5e-3\n# EOF\n";
    byte[] body = text.getBytes(StandardCharsets.UTF_8);
    ExpositionParser parser = new ExpositionParser(ParserLimits.defaults());
    for (int n = 0; n <= body.length; n++) {
      outcome(parser, body, 0, n);
      outcome(parser, body, n, body.length - n);
    }
    assertThat(parser.parse(body, 0, body.length).family("a_seconds").samples()).hasSize(4);
  }

  /**
   * A parser reused across changing expositions (its cache and predictions warm, sometimes
   * emptied) reads each exactly as a fresh parser does.
   */
  @Test
  void parse_reusedParserAgreesWithFreshParser() throws Exception {
    SplittableRandom random = new SplittableRandom(5);
    ExpositionParser reused = new ExpositionParser(ParserLimits.defaults(), 40, 1 << 20);
    String[] names = {"a", "ab", "a_total", "vllm:x", "vllm:x_total", "h", "h_bucket", "h_sum"};
    String[] values = {"0", "1", "a}b", "q\\\"x", "", " sp "};
    int parsed = 0;
    for (int round = 0; round < 400; round++) {
      StringBuilder sb = new StringBuilder();
      int lines = random.nextInt(1, 30);
      for (int i = 0; i < lines; i++) {
        String name = names[random.nextInt(names.length)];
        switch (random.nextInt(8)) {
          case 0:
            sb.append("# TYPE ").append(name).append(random.nextBoolean() ? " counter" : " gauge");
            break;
          case 1:
            sb.append("# HELP ").append(name).append(" help ").append(random.nextInt(3));
            break;
          case 2:
            sb.append(random.nextBoolean() ? "" : "# a comment");
            break;
          default:
            sb.append(name);
            int labels = random.nextInt(4);
            if (labels > 0 || random.nextInt(4) == 0) {
              sb.append(random.nextBoolean() ? "{" : " {");
              for (int k = 0; k < labels; k++) {
                sb.append("l").append(k).append("=\"").append(values[random.nextInt(values.length)]).append("\",");
              }
              sb.append('}');
            }
            sb.append(' ').append(random.nextInt(1000)).append(random.nextBoolean() ? ".5" : "");
            if (random.nextInt(5) == 0) {
              sb.append(' ').append(random.nextInt(1_000_000));
            }
        }
        sb.append(random.nextInt(6) == 0 ? "\r\n" : "\n");
      }
      String text = sb.toString();
      String fresh;
      try {
        fresh = new ExpositionParser(ParserLimits.defaults()).parse(text).toString();
      } catch (ExpositionFormatException e) {
        fresh = e.getMessage();
      }
      String again;
      try {
        again = reused.parse(text).toString();
      } catch (ExpositionFormatException e) {
        again = e.getMessage();
      }
      assertThat(again).as(text).isEqualTo(fresh);
      if (!fresh.startsWith("line ")) {
        parsed++;
      }
    }
    // Both outcomes are exercised: most rounds parse, some hit a conflicting TYPE.
    assertThat(parsed).isBetween(100, 399);
  }
}
