package dev.gputop.inference.parse;

import java.nio.charset.StandardCharsets;

/**
 * Parses the decimal floating-point numbers of an exposition straight from its bytes, giving
 * exactly the result of {@link Double#parseDouble} on the same text.
 *
 * <p>The syntax is the one Prometheus accepts (Go's {@code strconv.ParseFloat} without hex or
 * underscores): {@code [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?}, plus the
 * case-insensitive specials {@code NaN}, {@code Inf} and {@code Infinity} with an optional sign.
 * Java's own extras ({@code 0x1p3}, a trailing {@code d} or {@code f}) are rejected.
 *
 * <p>Most exposition values have at most 15–16 significant digits and a small exponent
 * ({@code 0.0}, {@code 1.0}, {@code 12345.0}, {@code 0.25}, {@code 1.23457e+06}). For those, the
 * digits fit a long that a double holds exactly and the power of ten is exact too, so one IEEE
 * multiplication or division gives the correctly rounded result (Clinger's fast path). Values
 * with 17+ digits, such as Python's {@code repr} of a timestamp, go through the Eisel–Lemire
 * algorithm ({@link EiselLemire}); the rare cases neither can decide fall back to
 * {@link Double#parseDouble}. Stateless and thread-safe.
 */
final class FastDoubleParser {

  /** The powers of ten a double holds exactly; also read by the parser's usual-line path. */
  static final double[] POW10 = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22
  };
  private static final long[] LONG_POW10 = {
    1L, 10L, 100L, 1000L, 10000L, 100000L, 1000000L, 10000000L, 100000000L, 1000000000L,
    10000000000L, 100000000000L, 1000000000000L, 10000000000000L, 100000000000000L,
    1000000000000000L, 10000000000000000L
  };
  /** Every long up to 2^53 is exact in a double; also read by the parser. */
  static final long MAX_EXACT = 1L << 53;
  /** Below this, {@code m * 10 + 9} still fits a long: digits are accumulated up to 19. */
  private static final long ACCUMULATE_LIMIT = 100_000_000_000_000_000L;

  private FastDoubleParser() {}

  /**
   * The value of {@code b[start, end)}.
   *
   * @throws NumberFormatException when the text is not a number
   */
  static double parse(byte[] b, int start, int end) {
    int i = start;
    if (i >= end) {
      throw new NumberFormatException("empty");
    }
    boolean negative = false;
    byte c = b[i];
    if (c == '+' || c == '-') {
      negative = c == '-';
      i++;
      if (i >= end) {
        throw new NumberFormatException("sign only");
      }
      c = b[i];
    }
    if (c != '.' && (c < '0' || c > '9')) {
      return special(b, i, end, negative);
    }
    long m = 0;
    int exponent = 0;
    boolean anyDigit = false;
    // Nonzero digits beyond what a long holds: the fast paths would be inexact.
    boolean dropped = false;
    while (i < end) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        break;
      }
      anyDigit = true;
      if (m < ACCUMULATE_LIMIT) {
        m = m * 10 + d;
      } else {
        exponent++;
        dropped |= d != 0;
      }
      i++;
    }
    if (i < end && b[i] == '.') {
      i++;
      while (i < end) {
        int d = b[i] - '0';
        if (d < 0 || d > 9) {
          break;
        }
        anyDigit = true;
        if (m < ACCUMULATE_LIMIT) {
          m = m * 10 + d;
          exponent--;
        } else {
          dropped |= d != 0;
        }
        i++;
      }
    }
    if (!anyDigit) {
      throw new NumberFormatException("no digits");
    }
    if (i < end && (b[i] == 'e' || b[i] == 'E')) {
      i++;
      boolean negativeExponent = false;
      if (i < end && (b[i] == '+' || b[i] == '-')) {
        negativeExponent = b[i] == '-';
        i++;
      }
      int e = 0;
      boolean anyExponentDigit = false;
      while (i < end) {
        int d = b[i] - '0';
        if (d < 0 || d > 9) {
          break;
        }
        anyExponentDigit = true;
        if (e < 100_000) {
          e = e * 10 + d;
        }
        i++;
      }
      if (!anyExponentDigit) {
        throw new NumberFormatException("no exponent digits");
      }
      exponent += negativeExponent ? -e : e;
    }
    if (i != end) {
      throw new NumberFormatException("unexpected character");
    }
    if (m == 0) {
      return negative ? -0.0 : 0.0;
    }
    if (!dropped && m <= MAX_EXACT) {
      double v;
      if (exponent == 0) {
        v = m;
      } else if (exponent > 0 && exponent <= 22) {
        v = m * POW10[exponent];
      } else if (exponent < 0 && exponent >= -22) {
        v = m / POW10[-exponent];
      } else if (exponent > 22 && exponent <= 22 + 16) {
        // m * 10^(exponent-22) may still be an exact integer below 2^53.
        long scale = LONG_POW10[exponent - 22];
        if (m <= MAX_EXACT / scale) {
          v = (m * scale) * POW10[22];
        } else {
          return slow(b, start, end, m, exponent, negative, dropped);
        }
      } else {
        return slow(b, start, end, m, exponent, negative, dropped);
      }
      return negative ? -v : v;
    }
    return slow(b, start, end, m, exponent, negative, dropped);
  }

  private static double slow(
      byte[] b, int start, int end, long m, int exponent, boolean negative, boolean dropped) {
    if (!dropped) {
      double v = EiselLemire.toDouble(m, exponent);
      if (!Double.isNaN(v)) {
        return negative ? -v : v;
      }
    }
    return Double.parseDouble(new String(b, start, end - start, StandardCharsets.ISO_8859_1));
  }

  private static double special(byte[] b, int i, int end, boolean negative) {
    int n = end - i;
    if (n == 3 && lowerEquals(b, i, "nan")) {
      return Double.NaN;
    }
    if ((n == 3 && lowerEquals(b, i, "inf")) || (n == 8 && lowerEquals(b, i, "infinity"))) {
      return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    throw new NumberFormatException("not a number");
  }

  private static boolean lowerEquals(byte[] b, int i, String lower) {
    for (int k = 0; k < lower.length(); k++) {
      if ((b[i + k] | 0x20) != lower.charAt(k)) {
        return false;
      }
    }
    return true;
  }
}
