package dev.gputop.inference.engine;

import java.util.List;
import java.util.Objects;

/**
 * How an engine's server processes show up in {@code ps} and where their metrics are served:
 * the command patterns of its processes and, for each pattern that owns the metrics port, how
 * the URL follows from the flags (docs/discovery.md). Read by process discovery. Immutable.
 *
 * @param commands the patterns, most specific first
 */
public record DiscoveryRule(List<Command> commands) {

  public static final DiscoveryRule NONE = new DiscoveryRule(List.of());

  public DiscoveryRule {
    commands = List.copyOf(commands);
  }

  /** How {@link Command#pattern()} is matched. */
  public enum Kind {
    /** The file name of the program (argv[0], or the script an interpreter runs) equals it. */
    PROGRAM,
    /** A Python interpreter runs {@code -m <module>} and the module starts with it. */
    MODULE,
    /** argv[0] (a setproctitle title) starts with it. */
    TITLE,
    /** argv[0] (a setproctitle title) matches it, a regular expression, from its start. */
    TITLE_REGEX
  }

  /** What a process does inside its server, which decides whose flags give the URL. */
  public enum Role {
    /** Owns the HTTP port that serves the metrics. */
    SERVER,
    /** Starts the server and knows its ports: a fallback when the server process is not seen. */
    SUPERVISOR,
    /** Engine cores, workers, schedulers, shards: merged into the server above them. */
    HELPER
  }

  /**
   * One command pattern.
   *
   * @param role what the process does
   * @param kind how the pattern is matched
   * @param pattern the program name, module prefix, title prefix or title regular expression
   * @param subcommand the argument that must follow the program (e.g. {@code serve}), or several
   *     separated by spaces (LMDeploy's {@code serve api_server}), or null
   * @param endpoint how the metrics URL follows from the flags; null for helpers
   */
  public record Command(Role role, Kind kind, String pattern, String subcommand, Endpoint endpoint) {
    public Command {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(pattern, "pattern");
      if (role != Role.HELPER) {
        Objects.requireNonNull(endpoint, "endpoint of a " + role + " command");
      }
    }
  }

  /**
   * How a metrics URL follows from a server's flags.
   *
   * @param portFlags flags whose value is the metrics port, first present wins
   * @param defaultPort the port when no flag (nor environment variable) gives one
   * @param hostFlags flags whose value is the bind host
   * @param defaultHost the bind host when no flag gives one (a wildcard means loopback)
   * @param portEnv environment variables read for the port when no flag gives it
   * @param hostEnv environment variables read for the host when no flag gives it
   * @param path the metrics path (e.g. {@code /metrics}, trtllm-serve's {@code /prometheus/metrics})
   */
  public record Endpoint(
      List<String> portFlags,
      int defaultPort,
      List<String> hostFlags,
      String defaultHost,
      List<String> portEnv,
      List<String> hostEnv,
      String path) {
    public Endpoint {
      portFlags = List.copyOf(portFlags);
      hostFlags = List.copyOf(hostFlags);
      portEnv = List.copyOf(portEnv);
      hostEnv = List.copyOf(hostEnv);
      Objects.requireNonNull(defaultHost, "defaultHost");
      Objects.requireNonNull(path, "path");
      if (defaultPort < 1 || defaultPort > 65535) {
        throw new IllegalArgumentException("defaultPort " + defaultPort + " is out of range");
      }
    }
  }
}
