package dev.gputop.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The boundaries docs/ARCHITECTURE.md promises, checked on the sources of every module: the
 * receivers meet only through otel-config's SPI, OpenTelemetry's internal packages are used only
 * where a comment says why, the project's own internal packages are the documented ones and users'
 * code imports none, tests share one manual clock and one gcc build of the fake NVML, the
 * agent's packages import only the layers below their own, and the public types are the listed
 * ones.
 */
class ModuleBoundariesTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static List<Path> javaFiles(String... dirs) {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> modules = Files.list(ROOT)) {
      for (Path module : modules.filter(Files::isDirectory).toList()) {
        for (String dir : dirs) {
          Path src = module.resolve(dir);
          if (Files.isDirectory(src)) {
            try (Stream<Path> files = Files.walk(src)) {
              files.filter(p -> p.toString().endsWith(".java")).forEach(out::add);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(out).as("sources under " + ROOT).isNotEmpty();
    return out;
  }

  private static List<String> lines(Path p) {
    try {
      return Files.readAllLines(p, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String name(Path p) {
    return ROOT.relativize(p).toString();
  }

  @Test
  void inference_mainCodeDoesNotDependOnNvml() {
    List<String> offenders = new ArrayList<>();
    for (Path p : javaFiles("src/main/java")) {
      if (name(p).startsWith("inference/")) {
        lines(p).stream().filter(l -> l.startsWith("import dev.gputop.nvml"))
            .forEach(l -> offenders.add(name(p) + ": " + l));
      }
    }
    assertThat(offenders).isEmpty();
  }

  @Test
  void openTelemetryInternals_onlyWithACommentSayingWhy() {
    List<String> offenders = new ArrayList<>();
    for (Path p : javaFiles("src/main/java")) {
      List<String> lines = lines(p);
      for (int i = 0; i < lines.size(); i++) {
        String l = lines.get(i);
        if (l.startsWith("import io.opentelemetry.") && l.contains(".internal.")) {
          // A comment right above the import (or the block of imports it heads) says why.
          boolean explained = false;
          for (int j = i - 1; j >= 0 && !explained; j--) {
            String above = lines.get(j);
            if (above.startsWith("//")) {
              explained = true;
            } else if (!above.startsWith("import io.opentelemetry.") || !above.contains(".internal.")) {
              break;
            }
          }
          if (!explained) {
            offenders.add(name(p) + ":" + (i + 1) + ": " + l);
          }
        }
      }
    }
    assertThat(offenders).as("each needs a comment right above it saying why no public API serves").isEmpty();
  }

  /** The package a source file declares, or null. */
  private static String packageOf(Path p) {
    for (String l : lines(p)) {
      if (l.startsWith("package ")) {
        return l.substring("package ".length(), l.indexOf(';')).trim();
      }
    }
    return null;
  }

  @Test
  void internalPackages_areTheOnesDocumentedAndUsersImportNone() throws IOException {
    java.util.Set<String> inSources = new java.util.TreeSet<>();
    List<String> offenders = new ArrayList<>();
    for (Path p : javaFiles("src/main/java")) {
      String pkg = packageOf(p);
      if (pkg != null && pkg.matches(".*\\binternal\\b.*")) {
        inSources.add(pkg);
      }
      String n = name(p);
      if (n.startsWith("examples/") || n.startsWith("benchmarks/")) {
        lines(p).stream().filter(l -> l.startsWith("import dev.gputop.") && l.contains(".internal."))
            .forEach(l -> offenders.add(n + ": " + l));
      }
    }
    String doc = Files.readString(ROOT.resolve("docs/ARCHITECTURE.md"), StandardCharsets.UTF_8);
    String section = doc.substring(doc.indexOf("## Public API and internal packages"));
    section = section.substring(0, section.indexOf("\n## ", 1));
    java.util.Set<String> documented = new java.util.TreeSet<>();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("`(dev\\.gputop\\.[a-z.]+)`").matcher(section);
    while (m.find()) {
      documented.add(m.group(1));
    }
    assertThat(inSources).as("internal packages in the sources").isNotEmpty();
    assertThat(documented).as("docs/ARCHITECTURE.md, \"Public API and internal packages\"")
        .containsExactlyElementsOf(inSources);
    assertThat(offenders).as("users' code imports no internal package").isEmpty();
  }

  private static final java.util.regex.Pattern OWN_CLOCK = java.util.regex.Pattern.compile(
      "\\b(class|enum|record) \\w+[^{;]*\\bimplements [^{]*\\bClock\\b|\\bnew ([\\w.]+\\.)?Clock\\(\\)\\s*\\{");

  @Test
  void ownClockPattern_findsEveryWayATestCouldWriteOne() {
    assertThat(OWN_CLOCK.matcher("final class Fixed implements Clock {").find()).isTrue();
    assertThat(OWN_CLOCK.matcher("enum Frozen implements dev.gputop.receiver.Clock {").find()).isTrue();
    assertThat(OWN_CLOCK.matcher("Clock c = new Clock() {").find()).isTrue();
    assertThat(OWN_CLOCK.matcher("var c = new dev.gputop.receiver.Clock()\n  {").find()).isTrue();
    assertThat(OWN_CLOCK.matcher("class Both implements AutoCloseable, Clock {").find()).isTrue();
    assertThat(OWN_CLOCK.matcher("record At(long nanos) implements Clock {").find()).isTrue();
    assertThat(OWN_CLOCK.matcher("ManualClock clock = new ManualClock();").find()).isFalse();
    assertThat(OWN_CLOCK.matcher("class Slow implements ClockSource {").find()).isFalse();
  }

  @Test
  void tests_shareOneManualClockAndOneFakeNvmlBuild() {
    List<String> clocks = new ArrayList<>();
    List<String> gcc = new ArrayList<>();
    for (Path p : javaFiles("src/test/java", "src/main/java")) {
      String n = name(p);
      // test-support has the one ManualClock; this file's samples of the pattern are no clock.
      if (n.startsWith("test-support/") || n.endsWith("/ModuleBoundariesTest.java")) {
        continue;
      }
      String text = String.join("\n", lines(p));
      // A clock of its own: a class, enum or record that implements Clock, or an anonymous one (Clock
      // has two methods, so no lambda can be one).
      if (n.contains("/src/test/") && OWN_CLOCK.matcher(text).find()) {
        clocks.add(n);
      }
      if (text.contains("\"gcc\"")) {
        gcc.add(n);
      }
    }
    assertThat(clocks).as("use test-support's ManualClock").isEmpty();
    assertThat(gcc).as("build the fake NVML with test-support's FakeNvmlLibrary").isEmpty();
  }

  /**
   * The agent's packages from the top down, as docs/ARCHITECTURE.md's table of the agent module
   * draws them: a main source may import its own package and those on lower lines only, never one
   * on its own line or above, so the packages form no cycle and an entry point never reaches up
   * to the command line.
   */
  private static final List<List<String>> AGENT_LAYERS = List.of(
      List.of("cli"),
      List.of("attach", "extension", "demo"),
      List.of("lifecycle"),
      List.of("http", "top"),
      List.of("runtime"),
      List.of("history", "prometheus"),
      List.of("internal"));

  @Test
  void agentPackages_importOnlyTheLayersBelow() throws IOException {
    java.util.Map<String, Integer> layer = new java.util.HashMap<>();
    for (int i = 0; i < AGENT_LAYERS.size(); i++) {
      for (String pkg : AGENT_LAYERS.get(i)) {
        layer.put("dev.gputop.agent." + pkg, i);
      }
    }
    java.util.Set<String> inSources = new java.util.TreeSet<>();
    java.util.Set<String> described = new java.util.TreeSet<>();
    List<String> offenders = new ArrayList<>();
    for (Path p : javaFiles("src/main/java")) {
      if (!name(p).startsWith("agent/")) {
        continue;
      }
      String pkg = packageOf(p);
      inSources.add(pkg);
      if (p.getFileName().toString().equals("package-info.java")) {
        described.add(pkg);
      }
      for (String l : lines(p)) {
        String imported = l.startsWith("import static ") ? l.substring("import static ".length())
            : l.startsWith("import ") ? l.substring("import ".length()) : null;
        if (imported == null || !imported.startsWith("dev.gputop.agent.")) {
          continue;
        }
        String rest = imported.substring("dev.gputop.agent.".length());
        String target = "dev.gputop.agent." + rest.substring(0, rest.indexOf('.') < 0 ? rest.length() : rest.indexOf('.'));
        if (target.equals(pkg)) {
          continue;
        }
        Integer from = layer.get(pkg);
        Integer to = layer.get(target);
        if (from == null || to == null || to <= from) {
          offenders.add(name(p) + ": " + l + " (" + pkg + " in layer " + from + " -> " + target + " in layer " + to + ")");
        }
      }
    }
    assertThat(inSources).as("the agent's packages in the sources, each with a line in AGENT_LAYERS")
        .containsExactlyInAnyOrderElementsOf(layer.keySet());
    assertThat(described).as("the agent's packages with a package-info.java saying their job")
        .containsExactlyInAnyOrderElementsOf(layer.keySet());
    assertThat(offenders).as("imports that run up or sideways through the agent's packages " + AGENT_LAYERS).isEmpty();
    String doc = Files.readString(ROOT.resolve("docs/ARCHITECTURE.md"), StandardCharsets.UTF_8);
    for (String pkg : layer.keySet()) {
      assertThat(doc).as("docs/ARCHITECTURE.md's table of the agent's packages").contains("| `" + pkg.substring("dev.gputop.".length()) + "` |");
    }
  }

  /** The modules whose main sources docs/ARCHITECTURE.md's "Public types" lists. */
  private static final List<String> LISTED_MODULES = List.of("otel-config/", "nvml/", "inference/", "agent/");

  private static final java.util.regex.Pattern PUBLIC_TOP_LEVEL = java.util.regex.Pattern.compile(
      "^(?:@[\\w.]+(?:\\([^)]*\\))?\\s+)*public\\s+(?:(?:final|abstract|sealed|non-sealed|strictfp)\\s+)*"
          + "(?:class|interface|record|enum|@interface)\\s+(\\w+)");

  /**
   * A type is public only where another package or module, a user or the JVM needs it, so a new
   * public type is a decision written down: the public top-level types of the main sources are
   * exactly those docs/ARCHITECTURE.md's "Public types" lists, package by package ("- `package`:
   * `Type`, `Type` — who needs them").
   */
  @Test
  void publicTypes_areTheOnesDocumented() throws IOException {
    java.util.Set<String> inSources = new java.util.TreeSet<>();
    for (Path p : javaFiles("src/main/java")) {
      String n = name(p);
      if (LISTED_MODULES.stream().noneMatch(n::startsWith) || p.getFileName().toString().equals("package-info.java")) {
        continue;
      }
      String file = p.getFileName().toString();
      String simple = file.substring(0, file.length() - ".java".length());
      for (String l : lines(p)) {
        java.util.regex.Matcher m = PUBLIC_TOP_LEVEL.matcher(l);
        if (m.find() && m.group(1).equals(simple)) {
          inSources.add(packageOf(p) + "." + simple);
          break;
        }
      }
    }
    String doc = Files.readString(ROOT.resolve("docs/ARCHITECTURE.md"), StandardCharsets.UTF_8);
    String section = doc.substring(doc.indexOf("\n## Public types\n") + 1);
    section = section.substring(0, section.indexOf("\n## ", 1) < 0 ? section.length() : section.indexOf("\n## ", 1));
    java.util.Set<String> documented = new java.util.TreeSet<>();
    java.util.regex.Pattern quoted = java.util.regex.Pattern.compile("`([\\w.]+)`");
    for (String l : section.split("\n")) {
      if (!l.startsWith("- `dev.gputop.")) {
        continue;
      }
      String names = l.contains(" — ") ? l.substring(0, l.indexOf(" — ")) : l;
      java.util.regex.Matcher m = quoted.matcher(names);
      m.find();
      String pkg = m.group(1);
      while (m.find()) {
        documented.add(pkg + "." + m.group(1));
      }
    }
    List<String> differences = new ArrayList<>();
    inSources.stream().filter(t -> !documented.contains(t))
        .forEach(t -> differences.add(t + ": public but not listed (make it package-private, or list it with who needs it)"));
    documented.stream().filter(t -> !inSources.contains(t))
        .forEach(t -> differences.add(t + ": listed but not a public top-level type in the main sources"));
    assertThat(inSources).as("public top-level types in " + LISTED_MODULES).isNotEmpty();
    assertThat(differences).as("docs/ARCHITECTURE.md's \"Public types\" against the sources").isEmpty();
  }
}
