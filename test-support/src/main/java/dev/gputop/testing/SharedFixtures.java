package dev.gputop.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real captures in {@code ../shared/fixtures} beside the checkout (never copied into the
 * project). Where they are missing a test is skipped with the reason printed, and fails in CI,
 * where ../shared exists ({@link Ci#missing}).
 */
public final class SharedFixtures {

  /** Set by the build (the parent pom) to the checkout's ../shared. */
  public static final String PROPERTY = "gputop.shared.dir";

  private SharedFixtures() {}

  /** The shared directory; skips (or fails in CI) the calling test when it is absent. */
  public static Path dir() {
    String configured = System.getProperty(PROPERTY);
    Path dir = configured != null ? Path.of(configured) : Path.of("..", "shared");
    Path abs = dir.toAbsolutePath().normalize();
    Ci.require(Files.isDirectory(abs), "shared fixtures directory " + abs + " is missing");
    return abs;
  }

  /** A file under the shared directory; skips (or fails in CI) when it is absent. */
  public static Path file(String relative) {
    Path p = dir().resolve(relative);
    Ci.require(Files.isRegularFile(p), "shared fixture " + p + " is missing");
    return p;
  }
}
