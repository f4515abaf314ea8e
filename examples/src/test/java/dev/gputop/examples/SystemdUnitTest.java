package dev.gputop.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.agent.cli.ExitCodes;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The systemd unit for bare-metal nodes, its environment file and its agent.yaml. */
class SystemdUnitTest {

  private final Map<String, Map<String, List<String>>> unit = parseUnit(Examples.read(Examples.file("systemd/gputop-agent.service")));

  @Test
  void unit_runsTheShadedJarWithTheInstalledConfig() {
    assertThat(unit).containsOnlyKeys("Unit", "Service", "Install");
    String exec = single("Service", "ExecStart");
    assertThat(exec).startsWith("/usr/bin/java ").contains("-jar /opt/gputop-agent/gputop-agent.jar run --config /etc/gputop-agent/agent.yaml");
    assertThat(single("Service", "EnvironmentFile")).isEqualTo("-/etc/gputop-agent/gputop-agent.env");
    assertThat(single("Install", "WantedBy")).isEqualTo("multi-user.target");
    assertThat(single("Service", "User")).isNotEqualTo("root");
  }

  @Test
  void unit_restartsOnFailure_butNotOnAConfigurationOrUsageError() {
    assertThat(single("Service", "Restart")).isEqualTo("on-failure");
    assertThat(single("Service", "RestartPreventExitStatus")).isEqualTo(ExitCodes.CONFIG + " " + ExitCodes.USAGE);
    // SIGTERM ends the agent with 0 (ShadedJarIT): a 143 to excuse would mean the stop went wrong.
    assertThat(unit.get("Service")).doesNotContainKey("SuccessExitStatus");
  }

  @Test
  void unit_isHardened_withoutCapabilities() {
    assertThat(single("Service", "NoNewPrivileges")).isEqualTo("yes");
    assertThat(single("Service", "ProtectSystem")).isEqualTo("strict");
    assertThat(single("Service", "CapabilityBoundingSet")).isEmpty();
  }

  @Test
  void agentYaml_isAcceptedByTheAgent() {
    AgentConfig config = new ConfigLoader().parse(Examples.read(Examples.file("systemd/agent.yaml")), Map.of());
    assertThat(config.nvml().enabled()).isTrue();
    assertThat(config.inference().discovery().enabled()).isTrue();
    assertThat(config.listen()).endsWith(":9464");
  }

  @Test
  void environmentFile_setsJavaOpts_andOnlyOtelVariablesBesideIt() {
    for (String line : Examples.read(Examples.file("systemd/gputop-agent.env")).split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      assertThat(line).matches("(JAVA_OPTS|OTEL_[A-Z_]+)=\\S.*");
    }
  }

  @Test
  void jvmOptions_areTheSameInTheEnvFileTheDockerfileAndTheDaemonSet() {
    String env = lineAfter(Examples.read(Examples.file("systemd/gputop-agent.env")), "JAVA_OPTS=");
    String image = lineAfter(Examples.read(Examples.file("kubernetes/Dockerfile")),
        "ENV JDK_JAVA_OPTIONS=");
    String manifest = Examples.read(Examples.file("kubernetes/gputop-agent.yaml"));
    int at = manifest.indexOf("- name: JDK_JAVA_OPTIONS");
    assertThat(at).isPositive();
    String daemonSet = lineAfter(manifest.substring(at), "value: ");
    assertThat(env).contains("-XX:+UseSerialGC").contains("-Xmx");
    assertThat(unquote(image)).isEqualTo(env);
    assertThat(unquote(daemonSet)).isEqualTo(env);
  }

  private static String lineAfter(String text, String prefix) {
    for (String line : text.split("\n")) {
      String t = line.trim();
      if (t.startsWith(prefix)) {
        return t.substring(prefix.length()).trim();
      }
    }
    throw new AssertionError("no line starting with " + prefix);
  }

  private static String unquote(String s) {
    return s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
  }

  @Test
  void systemdAnalyzeVerify_reportsNothing_whereAvailable() throws Exception {
    Optional<Path> analyze = Examples.onPath("systemd-analyze");
    org.junit.jupiter.api.Assumptions.assumeTrue(analyze.isPresent(), "systemd-analyze is not installed");
    // verify checks that ExecStart's binary exists; point it at a java that does.
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Path dir = Files.createTempDirectory("gputop-systemd-");
    try {
      Path copy = dir.resolve("gputop-agent.service");
      Files.writeString(copy, Examples.read(Examples.file("systemd/gputop-agent.service")).replace("/usr/bin/java", java.toString()));
      Examples.Run r = Examples.run(dir, 60, analyze.get().toString(), "verify", copy.toString());
      org.junit.jupiter.api.Assumptions.assumeFalse(r.output().contains("System has not been booted with systemd")
          || r.output().contains("Failed to initialize manager"), "systemd-analyze can't run here: " + r.output());
      assertThat(r.output().lines().filter(l -> l.contains("gputop-agent.service"))).as(r.output()).isEmpty();
      assertThat(r.exitCode()).as(r.output()).isZero();
    } finally {
      try (var s = Files.list(dir)) {
        for (Path p : s.toList()) {
          Files.delete(p);
        }
      }
      Files.delete(dir);
    }
  }

  private String single(String section, String key) {
    List<String> values = unit.getOrDefault(section, Map.of()).get(key);
    assertThat(values).as("[" + section + "] " + key).isNotNull().hasSize(1);
    return values.get(0);
  }

  /** A systemd unit file: sections of keys, each key with its values in order (keys may repeat). */
  static Map<String, Map<String, List<String>>> parseUnit(String text) {
    Map<String, Map<String, List<String>>> out = new LinkedHashMap<>();
    Map<String, List<String>> section = null;
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
        continue;
      }
      if (line.startsWith("[") && line.endsWith("]")) {
        section = out.computeIfAbsent(line.substring(1, line.length() - 1), k -> new LinkedHashMap<>());
        continue;
      }
      assertThat(section).as("a key before any section: " + line).isNotNull();
      int eq = line.indexOf('=');
      assertThat(eq).as("key=value: " + line).isPositive();
      section.computeIfAbsent(line.substring(0, eq).strip(), k -> new ArrayList<>()).add(line.substring(eq + 1).strip());
    }
    return out;
  }
}
