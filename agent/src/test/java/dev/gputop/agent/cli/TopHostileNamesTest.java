package dev.gputop.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.config.internal.TerminalText;
import dev.gputop.testing.Ci;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code top} with a configured name made of escape sequences (an OSC window title, BEL, a C1
 * CSI, a bidi override): in a real pseudo-terminal (tmux) the pane keeps its title and shows the
 * escapes as text; in plain output no control character is printed at all.
 */
class TopHostileNamesTest {

  /** ESC ] 2 ; pwned BEL retitles a terminal window (and a tmux pane); then a C1 CSI and U+202E. */
  private static final String NAME = "chat\u001b]2;pwned\u0007\u009b31m\u202eevil";
  private static final String SHOWN = "chat\\x1b]2;pwned\\x07\\x9b31m\\u202eevil";

  @TempDir Path dir;

  private Path config() throws Exception {
    Path f = dir.resolve("agent.yaml");
    Files.writeString(f, "refresh:\n  normal: 500ms\nnvml:\n  enabled: false\ninference:\n  discovery:\n"
        + "    enabled: false\n  endpoints:\n    - name: \"chat\\e]2;pwned\\a\\u009b31m\\u202eevil\"\n"
        + "      url: http://127.0.0.1:1/metrics\n", StandardCharsets.UTF_8);
    return f;
  }

  @Test
  void plain_printsTheNameEscaped_andNoControlCharacter() throws Exception {
    CliRuns.Result r = CliRuns.run("top", "--plain", "--for", "2s", "--config", config().toString());

    assertThat(r.code()).isEqualTo(ExitCodes.OK);
    assertThat(r.out()).contains(SHOWN).doesNotContain(NAME);
    assertThat(r.out().chars().filter(c -> c != '\n' && TerminalText.unsafe(c))).isEmpty();
  }

  @Test
  void inTmux_thePaneKeepsItsTitle_andShowsTheEscapes() throws Exception {
    Ci.require(Files.isExecutable(Path.of("/usr/bin/tmux")), "tmux is not installed (/usr/bin/tmux); apt-get install tmux");
    String session = "gputop-hostile-" + ProcessHandle.current().pid();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path script = dir.resolve("top.sh");
    // The test's own class path: the agent's classes and dependencies as this test runs them.
    Files.writeString(script, "#!/bin/sh\nexec '" + java + "' -cp '" + System.getProperty("java.class.path")
        + "' dev.gputop.agent.cli.Main top --config '" + config() + "'\n");
    script.toFile().setExecutable(true);
    tmux("new-session", "-d", "-s", session, "-x", "150", "-y", "40", script.toString());
    try {
      tmux("select-pane", "-t", session, "-T", "gputop-pane");
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      String screen = tmux("capture-pane", "-p", "-t", session);
      while (!screen.contains("evil") && System.nanoTime() < deadline) {
        Thread.sleep(200);
        screen = tmux("capture-pane", "-p", "-t", session);
      }
      Thread.sleep(1500); // a few more redraws, each of which would retitle the pane
      screen = tmux("capture-pane", "-p", "-t", session);
      String title = tmux("display-message", "-p", "-t", session, "#{pane_title}").strip();

      assertThat(screen).contains(SHOWN);
      assertThat(title).isEqualTo("gputop-pane");
    } finally {
      tmux("kill-session", "-t", session);
    }
  }

  private static String tmux(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("tmux"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    return out;
  }
}
