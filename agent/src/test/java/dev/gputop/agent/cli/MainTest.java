package dev.gputop.agent.cli;

import static dev.gputop.agent.cli.CliRuns.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.agent.SnapshotSchema;
import dev.gputop.agent.cli.CliRuns.Result;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class MainTest {

  @TempDir Path dir;

  private Path file(String name, String text) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, text);
    return p;
  }

  @Test
  void checkConfig_unknownKeyExits1NamingKeyAndLine() throws Exception {
    Path f = file("a.yaml", "refresh:\n  normal: 2s\ninference:\n  windoww: 1m\n");
    Result r = run("check-config", "--config", f.toString());
    assertThat(r.code()).isEqualTo(ExitCodes.CONFIG);
    assertThat(r.err()).contains("line 4").contains("inference.windoww").contains("unknown key");
  }

  @Test
  void checkConfig_badValueExits1NamingKeyAndLine() throws Exception {
    Path f = file("b.yaml", "# comment\ninference:\n  scrape:\n    timeout: soon\n");
    Result r = run("check-config", "-c", f.toString());
    assertThat(r.code()).isEqualTo(ExitCodes.CONFIG);
    assertThat(r.err()).contains("line 4").contains("inference.scrape.timeout").contains("soon");
  }

  @Test
  void run_badConfigExits1BeforeStartingAnything() throws Exception {
    Path f = file("c.yaml", "listen: nowhere\n");
    Result r = run("run", "--config", f.toString());
    assertThat(r.code()).isEqualTo(ExitCodes.CONFIG);
    assertThat(r.err()).contains("line 1").contains("listen");
  }

  @Test
  void checkConfig_missingFileExits4InWords() {
    Result r = run("check-config", "--config", dir.resolve("absent.yaml").toString());
    assertThat(r.code()).isEqualTo(ExitCodes.IO);
    assertThat(r.err()).isEqualTo("I/O error: can't read configuration file " + dir.resolve("absent.yaml")
        + ": no such file\n");
  }

  @Test
  void unknownOption_isAUsageErrorWithTheOption() {
    Result r = run("snapshot", "--frobnicate");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("--frobnicate");
    Result d = run("snapshot", "--for", "soon");
    assertThat(d.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(d.err()).contains("soon");
  }

  @Test
  void mistypedOption_suggestsTheNearestOne() {
    Result r = run("run", "--confg", "agent.yaml");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("Unknown options: '--confg'").contains("did you mean --config?")
        .contains("Try 'gputop-agent run --help'.").doesNotContain("configuration error");
    Result c = run("chek-config");
    assertThat(c.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(c.err()).contains("did you mean check-config?");
  }

  @Test
  void help_withAndWithoutACommand() {
    Result all = run("help");
    assertThat(all.code()).as(all.err()).isEqualTo(ExitCodes.OK);
    assertThat(all.out()).contains("check-config").contains("Exit codes:").contains("2  wrong command line");
    Result one = run("help", "run");
    assertThat(one.code()).isEqualTo(ExitCodes.OK);
    assertThat(one.out()).startsWith("Usage: gputop-agent run ");
    assertThat(run("help", "nope").code()).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void helpTexts_sayWhatTheReadmeSays() {
    CommandLine all = Main.commandLine();
    for (var e : all.getSubcommands().entrySet()) {
      String usage = e.getValue().getUsageMessage(CommandLine.Help.Ansi.OFF);
      assertThat(usage).as(e.getKey()).doesNotContain("SPEC");
    }
    assertThat(run("demo", "--help").out()).contains("TensorRT-LLM").contains("--replica-base-port").contains("--port");
    assertThat(run("run", "--help").out()).contains("page").contains("/api/history");
    assertThat(run("snapshot", "--help").out()).doesNotContain("--json");
    assertThat(run("version", "--help").out()).doesNotContain("--config");
    assertThat(run("version", "--config", "a.yaml").code()).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void checkConfig_warnsOfATimeoutAsLongAsTheRefreshAndOfUnreadableCredentialFiles() throws Exception {
    Path f = file("w.yaml", "refresh:\n  normal: 1s\ninference:\n  scrape:\n    timeout: 2s\n  endpoints:\n"
        + "    - name: chat\n      url: https://10.0.0.5:8000/metrics\n      bearerTokenFile: " + dir.resolve("no-token") + "\n"
        + "      tls:\n        caFile: " + dir.resolve("no-ca.pem") + "\n");
    Result r = run("check-config", "--config", f.toString());
    assertThat(r.code()).as("warnings, not errors: documented in check-config --help").isEqualTo(ExitCodes.OK);
    assertThat(r.out()).startsWith("# configuration OK: " + f + ", 3 warnings\n");
    assertThat(r.err().lines().toList()).containsExactly(
        "warning: inference.scrape.timeout (2s) is not shorter than refresh.normal (1s): a server that answers"
            + " slowly holds each refresh up to its timeout, so values arrive late; make the timeout shorter than the refresh",
        "warning: inference.endpoints[0].bearerTokenFile " + dir.resolve("no-token") + " does not exist",
        "warning: inference.endpoints[0].tls.caFile " + dir.resolve("no-ca.pem") + " does not exist");
    Result quiet = run("check-config", "--config", file("q.yaml", "refresh:\n  normal: 3s\n").toString());
    assertThat(quiet.err()).isEmpty();
  }

  @Test
  void messages_showNoJavaTypeOrIsoDuration() throws Exception {
    Result url = run("check-config", "--config", file("u.yaml",
        "inference:\n  endpoints:\n    - name: chat\n      url: \"'http://10.0.0.5:8000/metrics'\"\n").toString());
    Result window = run("check-config", "--config", file("r.yaml", "refresh:\n  normal: 2m\n").toString());
    Result missing = run("check-config", "--config", dir.resolve("absent.yaml").toString());
    for (Result r : List.of(url, window, missing)) {
      assertThat(r.code()).isNotEqualTo(ExitCodes.OK);
      assertThat(r.err()).doesNotContainPattern("PT\\d|Exception|Illegal character|java\\.");
    }
    assertThat(window.err()).contains("must not be longer than inference.window (1m)");
    assertThat(url.err()).contains("line 4").contains("not a valid URL");
  }

  @Test
  void top_saysInWordsThatTheAgentCantBeReached() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    Result r = run("top", "--url", "http://127.0.0.1:" + closed, "--for", "500ms", "--plain");
    assertThat(r.code()).isEqualTo(ExitCodes.OK);
    assertThat(r.out()).contains("can't read http://127.0.0.1:" + closed
        + ": connection refused: is the agent running, and listening there?").doesNotContain(": null");
  }

  @Test
  void checkConfig_validPrintsEffectiveConfigWithoutSecrets() throws Exception {
    Path f = file("ok.yaml",
        "inference:\n  endpoints:\n    - name: chat\n      url: http://10.0.0.5:8000/metrics\n"
            + "      headers:\n        Authorization: Bearer hunter2\n");
    Result r = run("check-config", "--config", f.toString());
    assertThat(r.code()).isEqualTo(ExitCodes.OK);
    assertThat(r.out())
        .contains("configuration OK")
        .contains("normal: 3s")
        .contains("url: http://10.0.0.5:8000/metrics")
        .contains("Authorization: <redacted>")
        .doesNotContain("hunter2");
  }

  @Test
  void run_listenPortInUseExits4() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Path f = file("p.yaml", "listen: 127.0.0.1:" + taken.getLocalPort() + "\nnvml:\n  enabled: false\n"
          + "inference:\n  enabled: false\n");
      Result r = run("run", "--config", f.toString());
      assertThat(r.code()).isEqualTo(ExitCodes.IO);
      assertThat(r.err()).contains("can't listen on 127.0.0.1:" + taken.getLocalPort());
    }
  }

  @Test
  void snapshot_printsOneSchemaValidDocument() throws Exception {
    Path f = file("s.yaml", "refresh:\n  normal: 100ms\nnvml:\n  enabled: false\ninference:\n  discovery:\n    enabled: false\n");
    Result r = run("snapshot", "--config", f.toString(), "--for", "200ms");
    assertThat(r.code()).isEqualTo(ExitCodes.OK);
    JsonNode doc = new ObjectMapper().readTree(r.out());
    assertThat(SnapshotSchema.errors(doc)).isEmpty();
    assertThat(doc.get("health").get("nvml").get("reasons").get(0).asText()).isEqualTo("disabled");
  }

  @Test
  void demo_drawsTheTableUntilItsTimeIsUp() throws Exception {
    Path f = file("d.yaml", "listen: 127.0.0.1:0\nnvml:\n  enabled: false\n");
    Result r = run("demo", "--config", f.toString(), "--for", "1s", "--plain");
    assertThat(r.code()).isEqualTo(ExitCodes.OK);
    assertThat(r.out()).contains("gputop-agent demo").contains("SERVER").contains("Overview:").contains("Alerts:");
  }

  @Test
  void everyCommand_hasHelpAndConfig() {
    for (String cmd : List.of("run", "snapshot", "check-config", "demo", "top", "explain", "gpus", "discover", "engines")) {
      Result r = run(cmd, "--help");
      assertThat(r.code()).as(cmd).isEqualTo(ExitCodes.OK);
      assertThat(r.out()).as(cmd).contains("--config");
    }
    assertThat(run("--help").out()).contains("run").contains("snapshot").contains("check-config");
  }

  @Test
  void commandLine_oneCommandRootBehavesLikeTheFullOne() {
    CommandLine single = Main.commandLine("snapshot", "--frobnicate");
    assertThat(single.getSubcommands()).containsOnlyKeys("snapshot");
    assertThat(Main.commandLine("--help").getSubcommands()).containsKeys("run", "snapshot", "check-config", "demo", "version");
    for (boolean full : List.of(true, false)) {
      CommandLine cl = full ? Main.commandLine() : Main.commandLine("snapshot");
      StringWriter err = new StringWriter();
      cl.setErr(new PrintWriter(err, true));
      assertThat(cl.execute("snapshot", "--frobnicate")).isEqualTo(ExitCodes.USAGE);
      assertThat(err.toString()).contains("Try 'gputop-agent snapshot --help'.");
      StringWriter out = new StringWriter();
      cl.setOut(new PrintWriter(out, true));
      cl.execute("snapshot", "--help");
      assertThat(out.toString()).startsWith("Usage: gputop-agent snapshot ");
    }
  }

  @Test
  void isPlainRun_onlyTheAgentsOwnStartSkipsPicocli() {
    assertThat(Main.isPlainRun("run")).isTrue();
    assertThat(Main.isPlainRun("run", "--config", "a.yaml")).isTrue();
    assertThat(Main.isPlainRun("run", "-c", "/etc/gputop/agent.yaml")).isTrue();
    assertThat(Main.isPlainRun()).isFalse();
    assertThat(Main.isPlainRun("snapshot")).isFalse();
    assertThat(Main.isPlainRun("run", "--help")).isFalse();
    assertThat(Main.isPlainRun("run", "--config=a.yaml")).isFalse();
    assertThat(Main.isPlainRun("run", "--config", "@args.txt")).isFalse();
    assertThat(Main.isPlainRun("run", "--config", "--help")).isFalse();
    assertThat(Main.isPlainRun("run", "--config")).isFalse();
    assertThat(Main.isPlainRun("run", "--config", "a.yaml", "--frobnicate")).isFalse();
  }

  @Test
  void plainRun_failsWithPicocliPathsExitCodesAndMessages() throws Exception {
    Path bad = file("c.yaml", "listen: nowhere\n");
    Path absent = dir.resolve("absent.yaml");
    for (String[] args : List.of(
        new String[] {"run", "--config", bad.toString()}, new String[] {"run", "-c", absent.toString()})) {
      StringWriter err = new StringWriter();
      int code = Main.plainRun(args, new PrintWriter(err, true));
      Result viaPicocli = run(args);
      assertThat(code).isEqualTo(viaPicocli.code()).isIn(ExitCodes.CONFIG, ExitCodes.IO);
      assertThat(err.toString()).isEqualTo(viaPicocli.err());
    }
  }

  @Test
  void version_printsTheVersion() {
    Result r = run("version");
    assertThat(r.code()).isEqualTo(ExitCodes.OK);
    assertThat(r.out()).startsWith("gputop-agent ");
  }
}
