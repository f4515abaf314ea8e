package dev.gputop.testing;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test does when something it needs is missing (gcc, ../shared, promtool): in CI (the
 * environment variable {@code CI} is {@code true}, as .ci/run and every CI service set it) the
 * test fails, because CI installs everything and a skip there would hide a broken setup; locally
 * it is skipped, and the reason is printed so the build output says what did not run.
 */
public final class Ci {

  private Ci() {}

  /** Whether this is a CI run ({@code CI=true}). */
  public static boolean isCi() {
    return "true".equalsIgnoreCase(System.getenv("CI"));
  }

  /** Fails in CI, else prints {@code reason} and skips the calling test. Never returns. */
  public static <T> T missing(String reason) {
    if (isCi()) {
      Assertions.fail(reason + " (CI=true: required here)");
    }
    System.err.println("[skipped] " + reason);
    Assumptions.abort(reason);
    throw new AssertionError("unreachable");
  }

  /** {@link #missing} when {@code condition} is false. */
  public static void require(boolean condition, String reason) {
    if (!condition) {
      missing(reason);
    }
  }
}
