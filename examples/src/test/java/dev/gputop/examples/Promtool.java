package dev.gputop.examples;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds Prometheus's {@code promtool} and {@code prometheus} binaries. .ci/run installs them
 * (Debian's prometheus package), so in CI the tests that need them always run; on a developer
 * machine without them they are skipped with a message that says how to install them.
 */
final class Promtool {

  static final String INSTALL_HINT =
      "not on the PATH; install Prometheus (apt-get install prometheus, as .ci/run does) to run this test";

  private Promtool() {}

  static Path promtool() {
    Optional<Path> p = Examples.onPath("promtool");
    assumeTrue(p.isPresent(), "promtool " + INSTALL_HINT);
    return p.get();
  }

  static Path prometheus() {
    Optional<Path> p = Examples.onPath("prometheus");
    assumeTrue(p.isPresent(), "prometheus " + INSTALL_HINT);
    return p.get();
  }
}
