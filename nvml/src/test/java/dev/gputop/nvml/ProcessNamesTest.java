package dev.gputop.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessNamesTest {

  @Test
  void nameOf_ownProcess_isJava() {
    assertThat(new ProcessNames().nameOf(ProcessHandle.current().pid())).isEqualTo("java");
  }

  @Test
  void nameOf_reusedPid_readsTheNewName(@TempDir Path proc) throws Exception {
    long[] now = {0};
    ProcessNames names = new ProcessNames(proc, 4, () -> now[0]);
    Path dir = Files.createDirectories(proc.resolve("77"));
    Files.writeString(dir.resolve("stat"), stat("vllm serve", 1000));
    Files.writeString(dir.resolve("comm"), "python3\n");
    assertThat(names.nameOf(77)).isEqualTo("python3");

    Files.writeString(dir.resolve("comm"), "llama-server\n");
    now[0] += java.util.concurrent.TimeUnit.SECONDS.toNanos(31);
    assertThat(names.nameOf(77)).as("same start time: cached").isEqualTo("python3");

    Files.writeString(dir.resolve("stat"), stat("llama-server", 2000));
    assertThat(names.nameOf(77)).as("checked again only after 30 s").isEqualTo("python3");
    now[0] += java.util.concurrent.TimeUnit.SECONDS.toNanos(31);
    assertThat(names.nameOf(77)).as("new start time: a new process").isEqualTo("llama-server");
    assertThat(names.nameOf(78)).isNull();
  }

  @Test
  void retain_forgetsProcessesNvmlNoLongerLists(@TempDir Path proc) throws Exception {
    ProcessNames names = new ProcessNames(proc, 4, () -> 0);
    Path dir = Files.createDirectories(proc.resolve("77"));
    Files.writeString(dir.resolve("stat"), stat("python3", 1000));
    Files.writeString(dir.resolve("comm"), "python3\n");
    assertThat(names.nameOf(77)).isEqualTo("python3");

    names.retain(java.util.Set.of(12L));
    Files.writeString(dir.resolve("stat"), stat("llama-server", 2000));
    Files.writeString(dir.resolve("comm"), "llama-server\n");
    assertThat(names.nameOf(77)).isEqualTo("llama-server");
  }

  @Test
  void startTime_skipsCommandWithSpacesAndParentheses() {
    assertThat(ProcessNames.startTime(stat("a) b (c", 123456))).isEqualTo(123456);
    assertThat(ProcessNames.startTime("garbage")).isEqualTo(-1);
  }

  private static String stat(String comm, long startTime) {
    StringBuilder s = new StringBuilder("77 (" + comm + ") S");
    for (int field = 4; field <= 21; field++) {
      s.append(" 0");
    }
    return s.append(' ').append(startTime).append(" 0 0\n").toString();
  }
}
