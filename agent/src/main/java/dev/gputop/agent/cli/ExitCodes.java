package dev.gputop.agent.cli;

/**
 * The process exit codes (README.md, Exit codes). A stop on SIGTERM or SIGINT is a success (0).
 * 1 and 2 are mistakes a restart won't fix: the systemd unit's {@code RestartPreventExitStatus}
 * names both.
 */
public final class ExitCodes {
  public static final int OK = 0;
  /** A bad configuration file or value; the message names the key and its line. */
  public static final int CONFIG = 1;
  /** A wrong command line (an unknown option or command, a bad option value): picocli's own code. */
  public static final int USAGE = 2;
  /** Anything else that stops the agent. */
  public static final int RUNTIME = 3;
  /** A file that can't be read, a port already in use, a server that can't be reached. */
  public static final int IO = 4;

  private ExitCodes() {}
}
