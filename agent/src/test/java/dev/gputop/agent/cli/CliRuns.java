package dev.gputop.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * The command line run as {@code gputop-agent ARGS} runs it ({@link Main#commandLine(String...)}),
 * with what it prints caught: the CLI tests' one way to run a command.
 */
final class CliRuns {

  private CliRuns() {}

  /** One CLI run: exit code, stdout, stderr. */
  record Result(int code, String out, String err) {
    /** Both streams, stdout first. */
    String all() {
      return out + err;
    }
  }

  static Result run(String... args) {
    CommandLine cl = Main.commandLine(args);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  /** stdout and stderr as one stream, in the order written, of a run that must exit {@code exit}. */
  static String output(int exit, String... args) {
    CommandLine cl = Main.commandLine(args);
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(out, true));
    assertThat(cl.execute(args)).as("exit code, output %s", out).isEqualTo(exit);
    return out.toString();
  }
}
