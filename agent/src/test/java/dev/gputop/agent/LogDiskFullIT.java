package dev.gputop.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log's disk is full: the shaded agent with its stderr (where java.util.logging writes) on
 * {@code /dev/full}, where every write fails with ENOSPC. Logging must not take the agent down:
 * the command still does its work and exits 0.
 */
class LogDiskFullIT {

  @TempDir Path dir;

  @Test
  void snapshot_stderrOnAFullDisk_stillPrintsTheSnapshotAndExits0() throws Exception {
    Assumptions.assumeTrue(Files.exists(Path.of("/dev/full")), "/dev/full (Linux) is needed");
    Path config = dir.resolve("agent.yaml");
    // An endpoint that refuses: the agent logs a WARNING for it, into the full disk.
    Files.writeString(config, "nvml:\n  enabled: false\ninference:\n  discovery:\n    enabled: false\n"
        + "  endpoints:\n    - name: down\n      url: http://127.0.0.1:9/metrics\n");
    Path out = dir.resolve("snapshot.json");
    Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-jar", AgentProcess.jar().toString(), "snapshot", "--config", config.toString(), "--for", "2s"))
        .redirectOutput(out.toFile()).redirectError(new File("/dev/full")).start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();

    assertThat(p.exitValue()).isZero();
    JsonNode doc = new ObjectMapper().readTree(Files.readString(out, StandardCharsets.UTF_8));
    assertThat(doc.get("inference").get(0).get("name").asText()).isEqualTo("down");
  }
}
