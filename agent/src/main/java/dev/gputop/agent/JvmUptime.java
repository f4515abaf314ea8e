package dev.gputop.agent;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * How long this process has been running, from the operating system's process start time (no JMX,
 * which would cost start-up time). Stateless.
 */
final class JvmUptime {

  private JvmUptime() {}

  /** Milliseconds since the process started, or -1 when the platform does not say. */
  static long millis() {
    Optional<Instant> start = ProcessHandle.current().info().startInstant();
    return start.map(s -> Duration.between(s, Instant.now()).toMillis()).orElse(-1L);
  }
}
