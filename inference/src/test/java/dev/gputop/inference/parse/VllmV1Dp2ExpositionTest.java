package dev.gputop.inference.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class VllmV1Dp2ExpositionTest {

  @Test
  void generate_isTheCommittedFixture() throws Exception {
    String committed;
    try (var in = getClass().getResourceAsStream("/fixtures/vllm/vllm-v1-dp2.prom")) {
      assertThat(in).isNotNull();
      committed = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(VllmV1Dp2Exposition.generate()).isEqualTo(committed);
  }

  @Test
  void py_writesFloatsLikePython() {
    assertThat(VllmV1Dp2Exposition.py(1.0)).isEqualTo("1.0");
    assertThat(VllmV1Dp2Exposition.py(0.25)).isEqualTo("0.25");
    assertThat(VllmV1Dp2Exposition.py(2.5e-05)).isEqualTo("2.5e-05");
    assertThat(VllmV1Dp2Exposition.py(0.0001)).isEqualTo("0.0001");
    assertThat(VllmV1Dp2Exposition.py(12345.0)).isEqualTo("12345.0");
    assertThat(VllmV1Dp2Exposition.py(1753795326.9352946)).isEqualTo("1.7537953269352946e+09");
    assertThat(VllmV1Dp2Exposition.py(6.634254336e+09)).isEqualTo("6.634254336e+09");
    assertThat(VllmV1Dp2Exposition.py(1048576.0)).isEqualTo("1.048576e+06");
    assertThat(VllmV1Dp2Exposition.py(35718287360.0)).isEqualTo("3.571828736e+010");
    assertThat(VllmV1Dp2Exposition.py(Double.POSITIVE_INFINITY)).isEqualTo("+Inf");
  }
}
