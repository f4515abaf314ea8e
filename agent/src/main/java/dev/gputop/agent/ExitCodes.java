package dev.gputop.agent;

/** The process exit codes, as README.md "Exit codes" lists them for users. */
public final class ExitCodes {
  public static final int OK = 0;
  public static final int CONFIG = 1;
  public static final int IO = 2;
  public static final int RUNTIME = 3;

  private ExitCodes() {}
}
