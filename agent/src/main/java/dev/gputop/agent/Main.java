package dev.gputop.agent;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code gputop-agent} command line. Exit codes: 0 ok, 1 configuration, 2 I/O, 3 runtime. */
@Command(
    name = "gputop-agent",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "GPU and LLM-inference telemetry agent: NVML and inference-server receivers, exported over OTLP and Prometheus.",
    subcommands = {Main.VersionCommand.class, DiscoverCommand.class})
public final class Main implements Runnable {

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line with the exit-code mapping of SPEC.md section 5. */
  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    cl.setExecutionExceptionHandler(
        (e, cmd, parseResult) -> {
          if (e instanceof dev.gputop.config.ConfigException) {
            cmd.getErr().println("configuration error: " + e.getMessage());
            return ExitCodes.CONFIG;
          }
          if (e instanceof java.io.UncheckedIOException || e instanceof java.io.IOException) {
            cmd.getErr().println("I/O error: " + e.getMessage());
            return ExitCodes.IO;
          }
          cmd.getErr().println("error: " + e);
          return ExitCodes.RUNTIME;
        });
    return cl;
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** Prints the agent's version. */
  @Command(name = "version", description = "Print the version and exit.")
  static final class VersionCommand implements Runnable {
    @Override
    public void run() {
      System.out.println("gputop-agent " + version());
    }
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"gputop-agent " + version()};
    }
  }

  static String version() {
    String v = Main.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }
}
