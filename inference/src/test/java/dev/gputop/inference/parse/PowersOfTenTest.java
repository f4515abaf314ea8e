package dev.gputop.inference.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;

/** The literal table against the definition: floor of 10^e, scaled to 128 bits with the top bit set. */
class PowersOfTenTest {

  @Test
  void everyEntryIsTheTruncated128BitPowerOfTen() {
    int count = PowersOfTen.MAX_EXP10 - PowersOfTen.MIN_EXP10 + 1;
    assertThat(PowersOfTen.POWERS).hasSize(2 * count);
    BigInteger two64 = BigInteger.ONE.shiftLeft(64);
    for (int e = PowersOfTen.MIN_EXP10; e <= PowersOfTen.MAX_EXP10; e++) {
      BigInteger expected;
      if (e >= 0) {
        BigInteger v = BigInteger.TEN.pow(e);
        int shift = v.bitLength() - 128;
        expected = shift > 0 ? v.shiftRight(shift) : v.shiftLeft(-shift);
      } else {
        // floor(2^(k+127) / 10^-e) with k the bit length of 10^-e: 128 bits, top bit set.
        BigInteger d = BigInteger.TEN.pow(-e);
        expected = BigInteger.ONE.shiftLeft(d.bitLength() + 127).divide(d);
      }
      int i = 2 * (e - PowersOfTen.MIN_EXP10);
      BigInteger actual = unsigned(PowersOfTen.POWERS[i]).multiply(two64).add(unsigned(PowersOfTen.POWERS[i + 1]));
      assertThat(actual).as("10^%d", e).isEqualTo(expected);
      assertThat(actual.bitLength()).as("10^%d normalized", e).isEqualTo(128);
    }
  }

  @Test
  void knownEntriesMatchGosTable() {
    // strconv's detailedPowersOfTen: {0x1732C869CD60E453, 0xFA8FD5A0081C0288} for 1e-348 and
    // {0x0000000000000000, 0x8000000000000000} for 1e0 (as {lo, hi}).
    assertThat(PowersOfTen.POWERS[0]).isEqualTo(0xFA8FD5A0081C0288L);
    assertThat(PowersOfTen.POWERS[1]).isEqualTo(0x1732C869CD60E453L);
    int one = 2 * (0 - PowersOfTen.MIN_EXP10);
    assertThat(PowersOfTen.POWERS[one]).isEqualTo(0x8000000000000000L);
    assertThat(PowersOfTen.POWERS[one + 1]).isZero();
  }

  private static BigInteger unsigned(long v) {
    return new BigInteger(Long.toUnsignedString(v));
  }
}
