package dev.gputop.inference.discovery;

import dev.gputop.inference.engine.DiscoveryRule;

import java.util.List;
import java.util.Objects;

/**
 * One way an inference server's process shows up in {@code ps}: a program name (optionally with a
 * subcommand), a Python module run with {@code -m}, or a process title set with setproctitle.
 * {@link CommandRecognizer} holds the table of these rules, read from the engine profiles'
 * {@code discovery} sections; adding an engine or an alias is one more line in a profile file.
 * Immutable.
 *
 * @param engine the engine identifier ({@code vllm}, {@code sglang}, {@code tgi}, {@code llamacpp})
 * @param role what the process does inside its server
 * @param kind how {@code pattern} is matched
 * @param pattern a program name (matched against the file name of argv[0], or of the script an
 *     interpreter runs), a module-name prefix, a title prefix, or a title regular expression
 * @param subcommand the argument that must follow the program (e.g. {@code serve}), or the
 *     arguments, separated by spaces (e.g. {@code serve api_server}); null for none
 * @param endpoint how to derive the metrics URL; null for helper processes
 */
record CommandRule(
    String engine, Role role, Kind kind, String pattern, String subcommand, DiscoveryRule.Endpoint endpoint) {

  /** How {@link #pattern} is matched. */
  enum Kind {
    /** The file name of the program equals the pattern. */
    PROGRAM,
    /** The program is a Python interpreter run as {@code -m <module>}, the module starts with the pattern. */
    MODULE,
    /** argv[0] (a setproctitle title) starts with the pattern. */
    TITLE,
    /** argv[0] (a setproctitle title) matches the pattern, a regular expression, from its start. */
    TITLE_REGEX
  }

  /** What a process does inside its server, which decides whose flags give the URL. */
  enum Role {
    /** Owns the HTTP port that serves /metrics (vLLM/SGLang API server, TGI router, llama-server). */
    SERVER,
    /** Starts the server and knows its ports (TGI launcher): a fallback when the server process is not seen. */
    SUPERVISOR,
    /** Engine cores, workers, schedulers, shards: merged into the server above them. */
    HELPER
  }

  CommandRule {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(pattern, "pattern");
    if (role != Role.HELPER) {
      Objects.requireNonNull(endpoint, "endpoint of a " + role + " rule");
    }
  }

  /** A readable name of what matched, e.g. {@code vllm serve} or {@code -m sglang.launch_server}. */
  String describe() {
    switch (kind) {
      case MODULE:
        return "-m " + pattern + "*";
      case TITLE:
        return "title " + pattern + "*";
      case TITLE_REGEX:
        return "title /" + pattern + "/";
      default:
        return subcommand == null ? pattern : pattern + " " + subcommand;
    }
  }

}
