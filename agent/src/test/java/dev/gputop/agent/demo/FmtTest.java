package dev.gputop.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FmtTest {

  @Test
  void python_matchesPrometheusClient() {
    assertThat(Fmt.python(0)).isEqualTo("0.0");
    assertThat(Fmt.python(1)).isEqualTo("1.0");
    assertThat(Fmt.python(7431)).isEqualTo("7431.0");
    assertThat(Fmt.python(0.31326723098754883)).isEqualTo("0.31326723098754883");
    assertThat(Fmt.python(10.950000000000001)).isEqualTo("10.950000000000001");
    assertThat(Fmt.python(1_048_576)).isEqualTo("1.048576e+06");
    assertThat(Fmt.python(6.634254336e9)).isEqualTo("6.634254336e+09");
    assertThat(Fmt.python(1.7537953269352946e9)).isEqualTo("1.7537953269352946e+09");
    assertThat(Fmt.python(9.75010481363281e-06)).isEqualTo("9.75010481363281e-06");
    assertThat(Fmt.python(0.0001)).isEqualTo("0.0001");
    assertThat(Fmt.python(0.001)).isEqualTo("0.001");
    assertThat(Fmt.python(2560)).isEqualTo("2560.0");
    assertThat(Fmt.python(Double.POSITIVE_INFINITY)).isEqualTo("+Inf");
    // prometheus_client's own quirk: it always writes "e+0" before the exponent.
    assertThat(Fmt.python(4.1592471552e10)).isEqualTo("4.1592471552e+010");
  }

  @Test
  void rust_isShortestWithoutExponent() {
    assertThat(Fmt.rust(109)).isEqualTo("109");
    assertThat(Fmt.rust(0)).isEqualTo("0");
    assertThat(Fmt.rust(0.0001 * 1.5)).isEqualTo("0.00015000000000000001");
    assertThat(Fmt.rust(5.11 * 3)).isEqualTo("15.330000000000002");
    assertThat(Fmt.rust(245.91743839099996)).isEqualTo("245.91743839099996");
  }

  @Test
  void cpp_isSixSignificantDigits() {
    assertThat(Fmt.cpp(0)).isEqualTo("0");
    assertThat(Fmt.cpp(340)).isEqualTo("340");
    assertThat(Fmt.cpp(0.008)).isEqualTo("0.008");
    assertThat(Fmt.cpp(14.325)).isEqualTo("14.325");
    assertThat(Fmt.cpp(41.0 / 21)).isEqualTo("1.95238");
    assertThat(Fmt.cpp(1_234_567)).isEqualTo("1.23457e+06");
    assertThat(Fmt.cpp(999_999)).isEqualTo("999999");
    assertThat(Fmt.cpp(1_000_000)).isEqualTo("1e+06");
    assertThat(Fmt.cpp(0.296875)).isEqualTo("0.296875");
    assertThat(Fmt.cpp(0.00001)).isEqualTo("1e-05");
    assertThat(Fmt.cpp(0.0001234)).isEqualTo("0.0001234");
    assertThat(Fmt.cpp(Double.POSITIVE_INFINITY)).isEqualTo("inf");
  }
}
