package dev.gputop.agent;

import dev.gputop.config.internal.TerminalText;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code gputop-agent} command line. Exit codes: 0 ok, 1 configuration (a bad file, key or
 * command-line option), 2 I/O (unreadable file, port in use), 3 runtime.
 */
@Command(
    name = "gputop-agent",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "GPU and LLM-inference telemetry agent: NVML and inference-server receivers, exported over OTLP and Prometheus.",
    subcommands = {
      RunCommand.class,
      SnapshotCommand.class,
      DiscoverCommand.class,
      EnginesCommand.class,
      ExplainCommand.class,
      CheckConfigCommand.class,
      GpusCommand.class,
      DemoCommand.class,
      TopCommand.class,
      Main.VersionCommand.class,
    })
public final class Main implements Runnable {

  /** java.util.logging on one line, to stderr, unless the user configured logging. */
  static final String LOG_FORMAT = "%1$tFT%1$tT.%1$tLZ %4$s %3$s: %5$s%6$s%n";

  public static void main(String[] args) {
    configureLogging();
    System.exit(execute(args));
  }

  /**
   * Runs the command that {@code args} names and returns its exit code. The agent's own start, {@code
   * run}, {@code run -c FILE} or {@code run --config FILE}, skips picocli: building the model of
   * even one command and parsing with it costs a few hundred milliseconds of the time to the first
   * scrape. Every other command line, including other spellings of the same options, {@code @file}
   * arguments and {@code --help}, goes through picocli; the exit codes and error messages are the
   * same either way.
   */
  static int execute(String... args) {
    if (isPlainRun(args)) {
      return plainRun(args, new PrintWriter(System.err, true));
    }
    return commandLine(args).execute(args);
  }

  /** {@code run} of a command line {@link #isPlainRun} accepts, as picocli would run it. */
  static int plainRun(String[] args, PrintWriter err) {
    RunCommand run = new RunCommand();
    run.config = new ConfigMixin();
    run.config.configFile = args.length == 3 ? Path.of(args[2]) : null;
    try {
      return run.call();
    } catch (Exception e) {
      return exitCode(e, err);
    }
  }

  /** Whether {@code args} is {@code run}, {@code run -c FILE} or {@code run --config FILE}. */
  static boolean isPlainRun(String... args) {
    if (args.length == 0 || !args[0].equals("run")) {
      return false;
    }
    if (args.length == 1) {
      return true;
    }
    return args.length == 3
        && (args[1].equals("-c") || args[1].equals("--config"))
        && !args[2].isEmpty()
        && !args[2].startsWith("-")
        && !args[2].startsWith("@");
  }

  static void configureLogging() {
    if (System.getProperty("java.util.logging.config.file") == null
        && System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
      System.setProperty("java.util.logging.SimpleFormatter.format", LOG_FORMAT);
    }
  }

  /**
   * The command line for {@code args}: when the first argument names a command, a root that holds
   * only that command. Picocli reflects over every registered command when it builds its model,
   * which costs start-up time the agent needs for its first scrape; usage text, error messages and
   * exit codes are the same either way. Anything else (no command, {@code --help}, a typo) gets
   * the full command line.
   */
  static CommandLine commandLine(String... args) {
    if (args.length > 0) {
      for (Class<?> c : Main.class.getAnnotation(Command.class).subcommands()) {
        Command command = c.getAnnotation(Command.class);
        if (command != null && command.name().equals(args[0])) {
          CommandLine cl = new CommandLine(new SingleCommandRoot());
          cl.addSubcommand(command.name(), c);
          return withExitCodes(cl);
        }
      }
    }
    return commandLine();
  }

  /** The whole command line with the exit-code mapping of SPEC.md section 5. */
  static CommandLine commandLine() {
    return withExitCodes(new CommandLine(new Main()));
  }

  private static CommandLine withExitCodes(CommandLine cl) {
    cl.setExecutionExceptionHandler((e, cmd, parseResult) -> exitCode(e, cmd.getErr()));
    // A wrong option or value on the command line is configuration too (picocli would say 2,
    // which here means I/O).
    cl.setParameterExceptionHandler(
        (e, args) -> {
          CommandLine cmd = e.getCommandLine();
          cmd.getErr().println("configuration error: " + TerminalText.lines(e.getMessage()));
          cmd.getErr().println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help'.");
          return ExitCodes.CONFIG;
        });
    return cl;
  }

  /** The exit code of SPEC.md section 5 for a command that failed with {@code e}, said on {@code err}. */
  private static int exitCode(Exception e, PrintWriter err) {
    if (e instanceof dev.gputop.config.ConfigException) {
      err.println("configuration error: " + TerminalText.lines(e.getMessage()));
      return ExitCodes.CONFIG;
    }
    if (e instanceof java.io.UncheckedIOException || e instanceof java.io.IOException) {
      err.println("I/O error: " + TerminalText.value(e.getMessage()));
      return ExitCodes.IO;
    }
    err.println("error: " + TerminalText.value(e.toString()));
    return ExitCodes.RUNTIME;
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** The root of {@link #commandLine(String...)}'s one-command line: Main without its commands. */
  @Command(
      name = "gputop-agent",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class)
  static final class SingleCommandRoot implements Runnable {
    @Override
    public void run() {
      commandLine().usage(System.out);
    }
  }

  /** Prints the agent's version. */
  @Command(name = "version", mixinStandardHelpOptions = true, description = "Print the version and exit.")
  static final class VersionCommand implements Runnable {
    @picocli.CommandLine.Mixin ConfigMixin config;

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().getOut().println("gputop-agent " + version());
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
