package dev.gputop.examples;

import dev.gputop.testing.Ci;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds Prometheus's {@code promtool} and {@code prometheus} binaries. .ci/run installs them
 * (Debian's prometheus package), so in CI the tests that need them always run (a missing one
 * fails there, see test-support's {@code Ci}); on a developer machine without them they are
 * skipped with a message that says how to install them.
 */
final class Promtool {

  static final String INSTALL_HINT =
      "not on the PATH; install Prometheus (apt-get install prometheus, as .ci/run does) to run this test";

  private Promtool() {}

  static Path promtool() {
    Optional<Path> p = Examples.onPath("promtool");
    Ci.require(p.isPresent(), "promtool " + INSTALL_HINT);
    return p.get();
  }

  static Path prometheus() {
    Optional<Path> p = Examples.onPath("prometheus");
    Ci.require(p.isPresent(), "prometheus " + INSTALL_HINT);
    return p.get();
  }
}
