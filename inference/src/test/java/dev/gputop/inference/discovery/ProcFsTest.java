package dev.gputop.inference.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.inference.discovery.ProcFs.Cmdline;
import dev.gputop.inference.discovery.ProcFs.Stat;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcFsTest {

  @Test
  void statParse_commWithSpacesAndParens() {
    String line = "14687 (VLLM::EngineCor) S 14001 14001 14001 0 -1 4194560 1 0 0 0 5 3 0 0 20 0 30 0 987654 0 0";
    Stat s = Stat.parse(14687, line);
    assertThat(s).isEqualTo(new Stat(14687, "VLLM::EngineCor", 'S', 14001, 987654));
    Stat odd = Stat.parse(7, "7 (a) b (c)) Z 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0");
    assertThat(odd.comm()).isEqualTo("a) b (c)");
    assertThat(odd.zombie()).isTrue();
    assertThat(odd.startTime()).isEqualTo(42);
  }

  @Test
  void statParse_truncatedIsNull() {
    assertThat(Stat.parse(1, "1 (x) S 0")).isNull();
    assertThat(Stat.parse(1, "")).isNull();
  }

  @Test
  void cmdlineParse_nulSeparated() {
    Cmdline c = Cmdline.parse("vllm\0serve\0m\0--port\08001\0".getBytes(StandardCharsets.UTF_8));
    assertThat(c.argv()).containsExactly("vllm", "serve", "m", "--port", "8001");
    assertThat(c.status()).isEqualTo(Cmdline.Status.OK);
  }

  @Test
  void cmdlineParse_setproctitlePaddedWithSpacesOrNuls() {
    assertThat(Cmdline.parse("VLLM::EngineCore                    ".getBytes(StandardCharsets.UTF_8)).argv())
        .containsExactly("VLLM::EngineCore");
    assertThat(Cmdline.parse("VLLM::EngineCore\0\0\0\0\0\0\0".getBytes(StandardCharsets.UTF_8)).argv())
        .containsExactly("VLLM::EngineCore");
    assertThat(Cmdline.parse("sglang::scheduler_TP0 \0\0".getBytes(StandardCharsets.UTF_8)).argv())
        .containsExactly("sglang::scheduler_TP0");
    // A title that keeps flags: split on spaces so the flags still read.
    assertThat(Cmdline.parse("llama-server --port 8081   ".getBytes(StandardCharsets.UTF_8)).argv())
        .containsExactly("llama-server", "--port", "8081");
  }

  @Test
  void cmdlineParse_emptyIsKernelThreadOrZombie() {
    assertThat(Cmdline.parse(new byte[0]).status()).isEqualTo(Cmdline.Status.EMPTY);
    assertThat(Cmdline.parse("   \0".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(Cmdline.Status.EMPTY);
  }

  @Test
  void display_truncates() {
    Cmdline c = new Cmdline(List.of("a", "bbbbbbbbbb"), Cmdline.Status.OK);
    assertThat(c.display(100)).isEqualTo("a bbbbbbbbbb");
    assertThat(c.display(5)).isEqualTo("a bb…");
  }

  @Test
  void parsePid_onlyDigits() {
    assertThat(ProcFs.parsePid("123")).isEqualTo(123);
    assertThat(ProcFs.parsePid("self")).isEqualTo(-1);
    assertThat(ProcFs.parsePid("")).isEqualTo(-1);
  }
}
