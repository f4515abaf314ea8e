package dev.gputop.agent.cli;

import dev.gputop.agent.runtime.AgentVersion;
import dev.gputop.config.internal.TerminalText;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code gputop-agent} command line. Exit codes ({@link ExitCodes}, README.md): 0 ok (also
 * after SIGTERM or SIGINT), 1 configuration (a bad file, key or value), 2 usage (a wrong command
 * line, as picocli has it), 3 runtime, 4 I/O (unreadable file, port in use, unreachable server).
 */
@Command(
    name = "gputop-agent",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = {
      "GPU and LLM-inference telemetry agent: NVML and inference-server receivers, exported over"
          + " OTLP and Prometheus, with a live view on a web page and in the terminal (top).",
      "%nRun 'gputop-agent help COMMAND' for a command's options; the README has the rest."
    },
    footerHeading = "%nExit codes:%n",
    footer = {
      "  0  ok, also after SIGTERM or Ctrl-C",
      "  1  bad configuration (the message names the key and its line)",
      "  2  wrong command line (unknown option or command, bad option value)",
      "  3  runtime failure",
      "  4  I/O (a file can't be read, the port is in use, a server can't be reached)"
    },
    subcommands = {
      CommandLine.HelpCommand.class,
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
  public static CommandLine commandLine(String... args) {
    if (args.length > 0 && !args[0].equals("help")) {
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

  /** The whole command line with the exit codes of README.md "Exit codes". */
  public static CommandLine commandLine() {
    return withExitCodes(new CommandLine(new Main()));
  }

  private static CommandLine withExitCodes(CommandLine cl) {
    cl.setExecutionExceptionHandler((e, cmd, parseResult) -> exitCode(e, cmd.getErr()));
    cl.setParameterExceptionHandler(Main::usageError);
    return cl;
  }

  /**
   * A wrong command line: what was wrong, the nearest option or command when one was mistyped,
   * and where the usage is; exit 2, picocli's code for it.
   */
  private static int usageError(CommandLine.ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    PrintWriter err = cmd.getErr();
    err.println("usage error: " + TerminalText.lines(e.getMessage()));
    if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
      // picocli ranks them nearest first; the rest are often far (chek-config: help, version)
      err.println("did you mean " + u.getSuggestions().get(0) + "?");
    }
    err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help'.");
    return ExitCodes.USAGE;
  }

  /**
   * The exit code (README.md "Exit codes") for a command that failed with {@code e}, said on
   * {@code err}.
   */
  private static int exitCode(Exception e, PrintWriter err) {
    if (e instanceof dev.gputop.config.ConfigException) {
      err.println("configuration error: " + TerminalText.lines(e.getMessage()));
      return ExitCodes.CONFIG;
    }
    if (e instanceof java.io.UncheckedIOException || e instanceof java.io.IOException) {
      err.println("I/O error: " + TerminalText.value(e.getMessage()));
      return ExitCodes.IO;
    }
    err.println("error: " + TerminalText.value(e.getMessage() != null ? e.getMessage() : "unexpected " + e.getClass().getSimpleName()));
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
    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().getOut().println("gputop-agent " + AgentVersion.get());
    }
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"gputop-agent " + AgentVersion.get()};
    }
  }
}
