package dev.gputop.inference.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FastDoubleParserTest {

  private static double fast(String s) {
    byte[] b = ("  " + s + "  ").getBytes(StandardCharsets.ISO_8859_1);
    return FastDoubleParser.parse(b, 2, b.length - 2);
  }

  private static void assertSameAsJdk(String s) {
    long fast = Double.doubleToRawLongBits(fast(s));
    long jdk = Double.doubleToRawLongBits(Double.parseDouble(s));
    // AssertJ only on a mismatch: building descriptions for 200,000 values would dominate.
    if (fast != jdk) {
      assertThat(fast).as(s).isEqualTo(jdk);
    }
  }

  @Test
  void parse_edgeValuesMatchJdk() {
    String[] values = {
      "0", "-0", "+0", "0.0", "-0.0", "1", "1.0", "-1.5", ".5", "5.", "0.1", "0.2", "0.3",
      "1.7537953269352946e+09", "9.75010481363281e-06", "1.23457e+06", "10.950000000000001",
      "6.634254336e+09", "1.048576e+06", "0.00015000000000000001", "9007199254740992",
      "9007199254740993", "9007199254740991", "18446744073709551615", "123456789012345678901234567890",
      "1e22", "1e23", "1e-22", "1e-23", "4.9e-324", "2.4703282292062327e-324",
      "2.4703282292062328e-324", "2.2250738585072011e-308", "2.2250738585072014e-308",
      "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1e309",
      "1e-400", "1e400", "0.000000000000000000000000000001", "1e0000000000000000001",
      "100000000000000000000000", "0.1e+300", "3.0e-05", "7.358146831393242e-05",
      "0.6237391703762114", "1.7181405583e+09", "439.71999999999997", "145.61", "1E3",
      "123.456e-7", "00000000000000000000000012.5", "1.00000000000000000000000000001",
      "9999999999999999999", "99999999999999999999e-20", "8.98846567431158e307",
      "5e-324", "1.5e-323", "4.35679e+06", "1.95238", "1129.96", "0.296875", "12345678.9e30"
    };
    for (String v : values) {
      assertSameAsJdk(v);
      assertSameAsJdk("-" + v.replace("-", "").replace("+", ""));
    }
  }

  @Test
  void parse_randomDoublesMatchJdk() {
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 15_000; i++) {
      double d;
      switch (i % 4) {
        case 0:
          d = Double.longBitsToDouble(random.nextLong());
          break;
        case 1:
          d = random.nextDouble() * Math.pow(10, random.nextInt(-30, 30));
          break;
        case 2:
          d = random.nextLong(1_000_000_000_000L) / Math.pow(10, random.nextInt(0, 12));
          break;
        default:
          d = random.nextInt(100_000);
          break;
      }
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        continue;
      }
      assertSameAsJdk(Double.toString(d));
      assertSameAsJdk(String.format(Locale.ROOT, "%.6g", d));
      assertSameAsJdk(String.format(Locale.ROOT, "%.17e", d));
      assertSameAsJdk(new java.math.BigDecimal(d).round(new java.math.MathContext(25)).toString());
    }
  }

  @Test
  void parse_randomDigitStringsMatchJdk() {
    SplittableRandom random = new SplittableRandom(7);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 50_000; i++) {
      sb.setLength(0);
      int intDigits = random.nextInt(0, 22);
      int fracDigits = random.nextInt(0, 22);
      if (intDigits == 0 && fracDigits == 0) {
        intDigits = 1;
      }
      for (int k = 0; k < intDigits; k++) {
        sb.append((char) ('0' + random.nextInt(10)));
      }
      if (fracDigits > 0 || random.nextBoolean()) {
        sb.append('.');
      }
      for (int k = 0; k < fracDigits; k++) {
        sb.append((char) ('0' + random.nextInt(10)));
      }
      if (random.nextBoolean()) {
        sb.append(random.nextBoolean() ? 'e' : 'E');
        int r = random.nextInt(3);
        sb.append(r == 0 ? "" : r == 1 ? "+" : "-");
        sb.append(random.nextInt(0, 340));
      }
      assertSameAsJdk(sb.toString());
    }
  }

  @Test
  void parse_specials() {
    assertThat(fast("NaN")).isNaN();
    assertThat(fast("nan")).isNaN();
    assertThat(fast("+Inf")).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(fast("-Inf")).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(fast("inf")).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(fast("-Infinity")).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(fast("INF")).isEqualTo(Double.POSITIVE_INFINITY);
  }

  @Test
  void parse_rejectsWhatPrometheusRejects() {
    for (String bad :
        new String[] {"", "+", "-", ".", "e5", "1e", "1e+", "abc", "0x1p3", "1.0d", "1.0f", "1_000",
            "1..2", "1.2.3", "--1", "+-1", "Infinit", "nana", "1 2", "١"}) {
      byte[] b = bad.getBytes(StandardCharsets.UTF_8);
      assertThatThrownBy(() -> FastDoubleParser.parse(b, 0, b.length))
          .as(bad)
          .isInstanceOf(NumberFormatException.class);
    }
  }

  @Test
  void toDouble_eiselLemireAgreesWithJdkWhenItDecides() {
    SplittableRandom random = new SplittableRandom(3);
    int decided = 0;
    for (int i = 0; i < 100_000; i++) {
      long m = random.nextLong(1, Long.MAX_VALUE) >>> random.nextInt(0, 60);
      if (m == 0) {
        continue;
      }
      int e = random.nextInt(-340, 310);
      double v = EiselLemire.toDouble(m, e);
      if (!Double.isNaN(v)) {
        decided++;
        double jdk = Double.parseDouble(m + "e" + e);
        if (v != jdk) {
          assertThat(v).as(m + "e" + e).isEqualTo(jdk);
        }
      }
    }
    assertThat(decided).isGreaterThan(90_000);
  }
}
