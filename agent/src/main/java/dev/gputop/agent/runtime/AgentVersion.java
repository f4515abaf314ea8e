package dev.gputop.agent.runtime;

/**
 * The agent's version, as the jar's manifest gives it ({@code Implementation-Version}); {@code dev}
 * when the classes run from a build directory (tests, an IDE). {@code version}, the resource's
 * {@code service.version} and the instrumentation scope read it here, so that the entry points
 * below the command line need not reach up to it.
 */
public final class AgentVersion {

  private AgentVersion() {}

  /** The version, or {@code dev}. */
  public static String get() {
    String v = AgentVersion.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }
}
