package dev.gputop.nvml.internal.jna;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NvmlReturnTest {

  @Test
  void of_mapsEveryHeaderCode() {
    for (int code = 0; code <= 30; code++) {
      assertThat(NvmlReturn.of(code).code()).isEqualTo(code);
    }
    assertThat(NvmlReturn.of(999)).isEqualTo(NvmlReturn.ERROR_UNKNOWN);
    assertThat(NvmlReturn.of(15)).isEqualTo(NvmlReturn.ERROR_GPU_IS_LOST);
    assertThat(NvmlReturn.of(18)).isEqualTo(NvmlReturn.ERROR_LIB_RM_VERSION_MISMATCH);
    assertThat(NvmlReturn.values()).hasSize(32);
  }

  @Test
  void describe_namesTheHeaderConstant() {
    assertThat(NvmlReturn.describe(3)).isEqualTo("NVML_ERROR_NOT_SUPPORTED (3): not supported by this device");
    assertThat(NvmlReturn.describe(999)).isEqualTo("NVML_ERROR_UNKNOWN (999): unknown error");
    assertThat(NvmlReturn.describe(77)).isEqualTo("NVML error 77 (unknown to this agent)");
    assertThat(NvmlReturn.describe(-1)).isEqualTo("NVML error -1 (unknown to this agent)");
  }
}
