package dev.gputop.agent.runtime;

import java.lang.management.ManagementFactory;

/**
 * How long this JVM has been running, for the one log line that reports start-up time. Read once,
 * after the first refresh, so loading the management classes costs nothing on the measured path.
 * Stateless.
 */
public final class JvmUptime {

  private JvmUptime() {}

  /** Milliseconds since the JVM started, or -1 when the platform does not say. */
  public static long millis() {
    try {
      return ManagementFactory.getRuntimeMXBean().getUptime();
    } catch (RuntimeException | LinkageError e) { // java.management absent from a jlinked runtime
      return -1;
    }
  }
}
