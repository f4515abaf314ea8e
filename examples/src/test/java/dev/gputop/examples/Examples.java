package dev.gputop.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Shared plumbing for the examples tests: where the example files are, how to read them, and how
 * to run an external tool (promtool, systemd-analyze) with a time limit. Stateless.
 */
final class Examples {

  static final ObjectMapper JSON = JsonMapper.builder().build();
  static final YAMLMapper YAML = new YAMLMapper();

  /** The uid the dashboards use and the provisioned datasource declares. */
  static final String DATASOURCE_UID = "gputop-prometheus";

  /** The scrape job name that the alert rules and every Prometheus configuration share. */
  static final String AGENT_JOB = "gputop-agent";

  private Examples() {}

  /** The examples module directory (set by surefire/failsafe; the working directory otherwise). */
  static Path dir() {
    String d = System.getProperty("gputop.examples.dir");
    return d == null ? Path.of("").toAbsolutePath() : Path.of(d);
  }

  static Path file(String relative) {
    Path p = dir().resolve(relative);
    if (!Files.isRegularFile(p)) {
      throw new AssertionError("missing example file: " + p);
    }
    return p;
  }

  static String read(Path p) {
    try {
      return Files.readString(p, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode json(String relative) {
    try {
      return JSON.readTree(file(relative).toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode yaml(String relative) {
    try {
      return YAML.readTree(file(relative).toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every document of a multi-document YAML file. */
  static List<JsonNode> yamlDocuments(String relative) {
    List<JsonNode> docs = new ArrayList<>();
    try (var it = YAML.readerFor(JsonNode.class).<JsonNode>readValues(file(relative).toFile())) {
      while (it.hasNext()) {
        JsonNode n = it.next();
        if (n != null && !n.isNull() && !n.isMissingNode()) {
          docs.add(n);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return docs;
  }

  /** An executable on the PATH, if there is one. */
  static Optional<Path> onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String d : path.split(java.io.File.pathSeparator)) {
      Path p = Path.of(d, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** The result of a finished process: exit code and everything it printed. */
  record Run(int exitCode, String output) {}

  /** Runs a command in {@code workDir}, stdout and stderr merged, killed after {@code seconds}. */
  static Run run(Path workDir, long seconds, String... command) {
    try {
      Path out = Files.createTempFile("gputop-examples-", ".out");
      try {
        Process p = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
            .redirectOutput(out.toFile()).start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
          throw new AssertionError(String.join(" ", command) + " did not finish within " + seconds + "s");
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
