package dev.gputop.inference.discovery;

import dev.gputop.inference.discovery.CommandRule.Kind;
import dev.gputop.inference.discovery.CommandRule.Role;
import dev.gputop.inference.engine.DiscoveryRule;
import dev.gputop.inference.engine.EngineProfile;
import dev.gputop.inference.engine.EngineProfiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Recognizes inference servers' processes from their command lines, with a table of {@link
 * CommandRule}s read from the engine profiles' discovery rules (docs/engines/README.md), and derives a server's metrics
 * endpoint from its flags. Works on plain argument arrays, so every rule is testable without a
 * process.
 *
 * <p>Immutable after construction and thread-safe.
 */
final class CommandRecognizer {

  /** Linux keeps 15 bytes of a process name in {@code comm}. */
  static final int COMM_LENGTH = 15;

  /** The rules of the built-in engine profiles, most specific first within each engine. */
  static final List<CommandRule> DEFAULT_RULES = rules(EngineProfiles.builtIn());

  /**
   * The command rules of these profiles' discovery rules, engine by engine in recognition order
   * and within an engine in the order its profile lists them.
   */
  static List<CommandRule> rules(EngineProfiles profiles) {
    List<CommandRule> out = new ArrayList<>();
    for (EngineProfile p : profiles.all()) {
      for (DiscoveryRule.Command c : p.discovery().commands()) {
        out.add(
            new CommandRule(
                p.engine().id(), Role.valueOf(c.role().name()), Kind.valueOf(c.kind().name()), c.pattern(),
                c.subcommand(), c.endpoint()));
      }
    }
    return List.copyOf(out);
  }

  private static final Pattern INTERPRETER = Pattern.compile("(python|pypy)[0-9.]*");

  private final List<CommandRule> rules;
  private final java.util.Map<CommandRule, Pattern> titlePatterns = new java.util.HashMap<>();

  CommandRecognizer(List<CommandRule> rules) {
    this.rules = List.copyOf(rules);
    for (CommandRule r : this.rules) {
      if (r.kind() == Kind.TITLE_REGEX) {
        titlePatterns.put(r, Pattern.compile(r.pattern()));
      }
    }
  }

  static CommandRecognizer defaults() {
    return new CommandRecognizer(DEFAULT_RULES);
  }

  /**
   * The rule a command line matches, or null.
   *
   * @param argv the arguments from /proc/PID/cmdline
   */
  CommandRule recognize(List<String> argv) {
    if (argv.isEmpty()) {
      return null;
    }
    String first = argv.get(0);
    String program = fileName(first);
    int programIndex = 0;
    String module = null;
    if (INTERPRETER.matcher(program).matches()) {
      programIndex = -1;
      for (int i = 1; i < argv.size(); i++) {
        String a = argv.get(i);
        if (a.equals("-m") && i + 1 < argv.size()) {
          module = argv.get(i + 1);
          break;
        }
        if (a.equals("-c")) {
          break; // inline code, e.g. multiprocessing's spawn stub
        }
        if (a.equals("-X") || a.equals("-W")) {
          i++;
        } else if (!a.startsWith("-")) {
          programIndex = i;
          program = fileName(a);
          break;
        }
      }
    }
    for (CommandRule rule : rules) {
      switch (rule.kind()) {
        case TITLE:
          if (first.startsWith(rule.pattern())) {
            return rule;
          }
          break;
        case TITLE_REGEX:
          if (titlePatterns.get(rule).matcher(first).lookingAt()) {
            return rule;
          }
          break;
        case MODULE:
          if (module != null && module.startsWith(rule.pattern())) {
            return rule;
          }
          break;
        case PROGRAM:
          if (programIndex >= 0
              && program.equals(rule.pattern())
              && followedBy(argv, programIndex, rule.subcommand())) {
            return rule;
          }
          break;
        default:
          throw new AssertionError(rule.kind());
      }
    }
    return null;
  }

  /**
   * The rule a process name from /proc/PID/stat suggests, for processes whose command line can't
   * be read: titles by prefix, programs by their first 15 characters. Null when none.
   */
  CommandRule recognizeComm(String comm) {
    if (comm == null || comm.isEmpty()) {
      return null;
    }
    for (CommandRule rule : rules) {
      if (rule.kind() == Kind.TITLE && comm.startsWith(rule.pattern())) {
        return rule;
      }
      if (rule.kind() == Kind.TITLE_REGEX && titlePatterns.get(rule).matcher(comm).lookingAt()) {
        return rule;
      }
      if (rule.kind() == Kind.PROGRAM) {
        String p = rule.pattern();
        String truncated = p.length() > COMM_LENGTH ? p.substring(0, COMM_LENGTH) : p;
        if (comm.equals(truncated) && p.length() <= COMM_LENGTH) {
          return rule;
        }
      }
    }
    return null;
  }

  /**
   * The metrics endpoint a server process's flags give, or the reason there is none.
   *
   * @param rule the rule the process matched; must have an endpoint
   * @param argv its arguments
   * @param env reads one of the process's environment variables (null when unset or unreadable)
   */
  static Endpoint endpoint(CommandRule rule, List<String> argv, Function<String, String> env) {
    DiscoveryRule.Endpoint e = Objects.requireNonNull(rule.endpoint(), "endpoint");
    StringBuilder how = new StringBuilder();
    String portText = null;
    for (String flag : e.portFlags()) {
      portText = flag(argv, flag);
      if (portText != null) {
        how.append(flag).append(' ').append(portText);
        break;
      }
    }
    if (portText == null) {
      for (String var : e.portEnv()) {
        portText = env.apply(var);
        if (portText != null) {
          how.append("$").append(var).append('=').append(portText);
          break;
        }
      }
    }
    int port;
    if (portText == null) {
      port = e.defaultPort();
      how.append("default port ").append(port);
    } else {
      try {
        port = Integer.parseInt(portText.trim());
      } catch (NumberFormatException ex) {
        return Endpoint.failed("port '" + portText + "' is not a number (" + how + ")");
      }
      if (port < 1 || port > 65535) {
        return Endpoint.failed("port " + port + " is out of range");
      }
    }
    String host = null;
    for (String flag : e.hostFlags()) {
      host = flag(argv, flag);
      if (host != null) {
        how.append(", ").append(flag).append(' ').append(host);
        break;
      }
    }
    if (host == null) {
      for (String var : e.hostEnv()) {
        host = env.apply(var);
        if (host != null) {
          how.append(", $").append(var).append('=').append(host);
          break;
        }
      }
    }
    if (host == null) {
      host = e.defaultHost();
      how.append(", default host ").append(host);
    }
    String connect = connectHost(host);
    if (!connect.equals(host)) {
      how.append(" (wildcard: ").append(connect).append(')');
    }
    return new Endpoint(host, connect, port, e.path(), how.toString(), null);
  }

  /** Where to connect for a bind address: a wildcard (all interfaces) means loopback. */
  static String connectHost(String bind) {
    String h = bind.trim();
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    if (h.isEmpty() || h.equals("0.0.0.0") || h.equals("::") || h.equals("*") || h.equals("0:0:0:0:0:0:0:0")) {
      return "127.0.0.1";
    }
    return h;
  }

  /** Whether a host is a loopback address, unreachable from another network namespace. */
  static boolean isLoopback(String bind) {
    String host = bind.startsWith("[") && bind.endsWith("]") ? bind.substring(1, bind.length() - 1) : bind;
    return host.startsWith("127.") || host.equals("localhost") || host.equals("::1");
  }

  /** The value of {@code --flag V} or {@code --flag=V}; the last occurrence wins, as in argparse and clap. */
  static String flag(List<String> argv, String flag) {
    String value = null;
    String eq = flag + "=";
    for (int i = 0; i < argv.size(); i++) {
      String a = argv.get(i);
      if (a.equals(flag) && i + 1 < argv.size()) {
        value = argv.get(i + 1);
        i++;
      } else if (a.startsWith(eq)) {
        value = a.substring(eq.length());
      }
    }
    return value;
  }

  /**
   * Whether the program at {@code programIndex} is followed by the subcommand's words, in order
   * ({@code serve}, or {@code serve api_server} for LMDeploy, whose {@code serve proxy} is not a
   * server); true when there is no subcommand.
   */
  static boolean followedBy(List<String> argv, int programIndex, String subcommand) {
    if (subcommand == null) {
      return true;
    }
    String[] words = subcommand.trim().split("\\s+");
    if (programIndex + words.length >= argv.size()) {
      return false;
    }
    for (int i = 0; i < words.length; i++) {
      if (!argv.get(programIndex + 1 + i).equals(words[i])) {
        return false;
      }
    }
    return true;
  }

  static String fileName(String path) {
    int slash = path.lastIndexOf('/');
    return slash < 0 ? path : path.substring(slash + 1);
  }

  /**
   * A derived metrics endpoint.
   *
   * @param bindHost the address the server binds, as its flags or defaults say
   * @param host where to connect (a wildcard bind already replaced by loopback)
   * @param port the metrics port
   * @param path the metrics path
   * @param how which flags or defaults gave it, for {@code discover}
   * @param error why no endpoint could be derived, or null
   */
  record Endpoint(String bindHost, String host, int port, String path, String how, String error) {

    static Endpoint failed(String error) {
      return new Endpoint(null, null, 0, null, null, error);
    }

    /** The URL for a host (this one, or a pod IP instead of it). */
    String url(String connectHost) {
      String h = connectHost.indexOf(':') >= 0 && !connectHost.startsWith("[") ? "[" + connectHost + "]" : connectHost;
      return "http://" + h + ":" + port + path;
    }
  }
}
