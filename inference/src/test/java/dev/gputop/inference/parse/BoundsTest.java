package dev.gputop.inference.parse;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BoundsTest {

  @Test
  void parse_acceptsWhatGoAccepts() {
    assertThat(Bounds.parse("+Inf")).isInfinite();
    assertThat(Bounds.parse("Inf")).isInfinite();
    assertThat(Bounds.parse("1e3")).isEqualTo(1000);
    assertThat(Bounds.parse("0.5")).isEqualTo(0.5);
    assertThat(Bounds.parse("1d")).isNaN();
    assertThat(Bounds.parse("")).isNaN();
  }

  @Test
  void parse_rejectsBlanksAndNaN() {
    assertThat(Bounds.parse(" 1")).isNaN();
    assertThat(Bounds.parse("NaN")).isNaN();
    assertThat(Bounds.parse("-Inf")).isEqualTo(Double.NEGATIVE_INFINITY);
  }
}
