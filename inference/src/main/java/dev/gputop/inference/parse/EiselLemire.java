package dev.gputop.inference.parse;

/**
 * The Eisel–Lemire algorithm: converts {@code mantissa × 10^exponent} to the nearest double with
 * one or two 64×128-bit multiplications, or reports that it cannot decide (the caller then falls
 * back to {@link Double#parseDouble}). Ported from Go's {@code strconv/eisel_lemire.go}
 * (D. Lemire, "Number Parsing at a Gigabyte per Second", 2021). Stateless and thread-safe.
 */
final class EiselLemire {

  private static final int MIN_EXP10 = PowersOfTen.MIN_EXP10;
  private static final int MAX_EXP10 = PowersOfTen.MAX_EXP10;

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
    long powHi = PowersOfTen.POWERS[index];
    long powLo = PowersOfTen.POWERS[index + 1];

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
}
