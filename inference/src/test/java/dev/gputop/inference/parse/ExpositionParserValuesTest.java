package dev.gputop.inference.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The parser reads the usual sample value (digits, a fraction, an exponent, then the line's end)
 * in its own loop, with Clinger's fast path where it is exact, and hands longer numbers to
 * {@link FastDoubleParser}. Whatever the path, the value must be bit for bit the one
 * FastDoubleParser gives for the same text, as it was when every such value went there, on the
 * first parse and on the next, where the keys are predicted.
 */
class ExpositionParserValuesTest {

  private final ExpositionParser parser = new ExpositionParser(ParserLimits.defaults());

  @Test
  void values_nearTheFastPathsEdges_areFastDoubleParsersBitForBit() throws Exception {
    List<String> values =
        List.of(
            "0", "0.0", "1", "1.", "3.0", "12345.678", "0.000000000000001",
            // 15, 16 and 17 digits; 2^53 and its neighbours (the fast path's bound on the digits)
            "123456789012345", "1234567890123456", "12345678901234567",
            "9007199254740991", "9007199254740992", "9007199254740993", "900719925474099.3",
            "9213.770046805967", "8879.507490230497", "54.887340857040456", "2417.3300000000004",
            // exponents, either case, either sign, leading zeros, at and past 10^22
            "3.571828736e+010", "2.812465152e+09", "1.75379524178e+09", "1.048576e+06",
            "1E5", "1e-5", "1.5E-3", "7e0", "7e+0", "7e-0", "1e22", "1e23", "1e-22", "1e-23",
            "9007199254740992e22", "9007199254740993e22", "1.7976931348623157e308", "1e309",
            "4.9e-324", "1e-400", "1e00000000022", "123.456e-2", "0e999",
            // more digits than a long holds
            "123456789012345678901234567890", "0.1234567890123456789012345");
    assertSameAsFastDoubleParser(values);
  }

  @Test
  void values_random_areFastDoubleParsersBitForBit() throws Exception {
    SplittableRandom random = new SplittableRandom(20261202);
    List<String> values = new ArrayList<>();
    for (int k = 0; k < 5_000; k++) {
      StringBuilder v = new StringBuilder();
      appendDigits(v, 1 + random.nextInt(random.nextBoolean() ? 8 : 20), random);
      if (random.nextInt(3) > 0) {
        v.append('.');
        appendDigits(v, random.nextInt(random.nextBoolean() ? 6 : 20), random);
      }
      if (random.nextInt(3) == 0) {
        v.append(random.nextBoolean() ? 'e' : 'E');
        int sign = random.nextInt(3);
        if (sign > 0) {
          v.append(sign == 1 ? '+' : '-');
        }
        appendDigits(v, 1 + random.nextInt(3), random);
      }
      values.add(v.toString());
    }
    assertSameAsFastDoubleParser(values);
  }

  @Test
  void values_thatAreNotNumbers_failAsBefore() {
    // The fast path gives these to valueAndRest, whose messages they keep.
    assertError("a 1e\n", "line 1: bad number \"1e\" for 'a'");
    assertError("a 1e+\n", "line 1: bad number \"1e+\" for 'a'");
    assertError("a 1e5x\n", "line 1: bad number \"1e5x\" for 'a'");
    assertError("a 1.2.3\n", "line 1: bad number \"1.2.3\" for 'a'");
    assertError("a 1ee5\n", "line 1: bad number \"1ee5\" for 'a'");
  }

  @Test
  void values_withSomethingAfterThem_stillReadTheRestOfTheLine() throws Exception {
    // An exponent followed by a timestamp, or by CR LF, leaves the fast path for valueAndRest.
    Exposition e = parser.parse("a 1.5e3 1700000000000\nb 2.5E-1\r\nc 1e2 \n");
    assertThat(e.family("a").samples().get(0).value()).isEqualTo(1500.0);
    assertThat(e.family("a").samples().get(0).timestampMillis()).isEqualTo(1_700_000_000_000L);
    assertThat(e.family("b").samples().get(0).value()).isEqualTo(0.25);
    assertThat(e.family("c").samples().get(0).value()).isEqualTo(100.0);
  }

  private void assertSameAsFastDoubleParser(List<String> values) throws Exception {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < values.size(); i++) {
      text.append("m{i=\"").append(i).append("\"} ").append(values.get(i)).append('\n');
    }
    String body = text.toString();
    // The first parse learns the keys; the second predicts them: both read the values.
    for (int parse = 0; parse < 2; parse++) {
      List<Sample> samples = parser.parse(body).family("m").samples();
      assertThat(samples).hasSize(values.size());
      for (int i = 0; i < values.size(); i++) {
        String v = values.get(i);
        byte[] bytes = v.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        double expected = FastDoubleParser.parse(bytes, 0, bytes.length);
        assertThat(Double.doubleToRawLongBits(samples.get(i).value()))
            .as("value %s (parse %d): %s, expected %s", v, parse, samples.get(i).value(), expected)
            .isEqualTo(Double.doubleToRawLongBits(expected));
      }
    }
  }

  private static void appendDigits(StringBuilder v, int n, SplittableRandom random) {
    for (int i = 0; i < n; i++) {
      v.append((char) ('0' + random.nextInt(10)));
    }
  }

  private void assertError(String text, String message) {
    assertThatThrownBy(() -> parser.parse(text))
        .isInstanceOf(ExpositionFormatException.class)
        .hasMessage(message);
  }
}
