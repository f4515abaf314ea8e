package dev.gputop.inference.parse;

import java.math.BigInteger;

/**
 * The Eisel–Lemire algorithm: converts {@code mantissa × 10^exponent} to the nearest double with
 * one or two 64×128-bit multiplications, or reports that it cannot decide (the caller then falls
 * back to {@link Double#parseDouble}). Ported from Go's {@code strconv/eisel_lemire.go}
 * (D. Lemire, "Number Parsing at a Gigabyte per Second", 2021). Stateless and thread-safe.
 */
final class EiselLemire {

  private static final int MIN_EXP10 = -348;
  private static final int MAX_EXP10 = 347;

  private EiselLemire() {}

  /**
   * The double nearest {@code mantissa × 10^exponent} for a positive mantissa, or NaN when the
   * algorithm cannot decide (halfway cases, subnormals, overflow).
   */
  static double toDouble(long mantissa, int exponent) {
    if (mantissa <= 0 || exponent < MIN_EXP10 || exponent > MAX_EXP10) {
      return Double.NaN;
    }
    int clz = Long.numberOfLeadingZeros(mantissa);
    long man = mantissa << clz;
    long retExp2 = ((217706L * exponent) >> 16) + 64 + 1023 - clz;
    int index = 2 * (exponent - MIN_EXP10);
    long powHi = Table.POWERS[index];
    long powLo = Table.POWERS[index + 1];

    long xHi = unsignedMultiplyHigh(man, powHi);
    long xLo = man * powHi;
    if ((xHi & 0x1FF) == 0x1FF && Long.compareUnsigned(xLo + man, man) < 0) {
      long yHi = unsignedMultiplyHigh(man, powLo);
      long yLo = man * powLo;
      long mergedHi = xHi;
      long mergedLo = xLo + yHi;
      if (Long.compareUnsigned(mergedLo, xLo) < 0) {
        mergedHi++;
      }
      if ((mergedHi & 0x1FF) == 0x1FF
          && mergedLo + 1 == 0
          && Long.compareUnsigned(yLo + man, man) < 0) {
        return Double.NaN;
      }
      xHi = mergedHi;
      xLo = mergedLo;
    }
    long msb = xHi >>> 63;
    long retMantissa = xHi >>> (msb + 9);
    retExp2 -= 1 ^ msb;
    if (xLo == 0 && (xHi & 0x1FF) == 0 && (retMantissa & 3) == 1) {
      return Double.NaN;
    }
    retMantissa += retMantissa & 1;
    retMantissa >>>= 1;
    if ((retMantissa >>> 53) > 0) {
      retMantissa >>>= 1;
      retExp2 += 1;
    }
    if (Long.compareUnsigned(retExp2 - 1, 0x7FF - 1) >= 0) {
      return Double.NaN;
    }
    return Double.longBitsToDouble(retExp2 << 52 | (retMantissa & 0x000FFFFFFFFFFFFFL));
  }

  private static long unsignedMultiplyHigh(long a, long b) {
    return Math.multiplyHigh(a, b) + ((a >> 63) & b) + ((b >> 63) & a);
  }

  /**
   * 128-bit approximations, rounded down, of the powers of ten 10^-348 … 10^347, normalized so
   * the top bit is set: {@code POWERS[2i]} holds the high 64 bits, {@code POWERS[2i+1]} the low.
   * Computed once with BigInteger (a few milliseconds) instead of a 1,400-constant source table.
   */
  static final class Table {
    static final long[] POWERS = compute();

    private static long[] compute() {
      long[] powers = new long[2 * (MAX_EXP10 - MIN_EXP10 + 1)];
      BigInteger mask64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
      for (int e = MIN_EXP10; e <= MAX_EXP10; e++) {
        BigInteger m;
        if (e >= 0) {
          BigInteger v = BigInteger.TEN.pow(e);
          int shift = v.bitLength() - 128;
          m = shift > 0 ? v.shiftRight(shift) : v.shiftLeft(-shift);
        } else {
          BigInteger d = BigInteger.TEN.pow(-e);
          m = BigInteger.ONE.shiftLeft(d.bitLength() + 127).divide(d);
        }
        int i = 2 * (e - MIN_EXP10);
        powers[i] = m.shiftRight(64).longValue();
        powers[i + 1] = m.and(mask64).longValue();
      }
      return powers;
    }

    private Table() {}
  }
}
