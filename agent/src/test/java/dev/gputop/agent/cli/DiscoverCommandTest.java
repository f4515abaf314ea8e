package dev.gputop.agent.cli;

import static dev.gputop.agent.cli.CliRuns.output;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.agent.FakeNvmlLibrary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiscoverCommandTest {

  @TempDir Path tmp;
  Path config;

  @BeforeEach
  void setUp() throws IOException {
    Path proc = tmp.resolve("proc");
    process(proc, 100, 1, "vllm", "vllm\0serve\0m\0--port\08001\0");
    process(proc, 101, 100, "VLLM::EngineCor", "VLLM::EngineCore            ");
    process(proc, 200, 1, "llama-server", "llama-server\0--port\08090\0");
    Files.writeString(proc.resolve("200").resolve("cgroup"), "12:memory:/docker/" + "ab".repeat(32) + "\n");
    process(proc, 300, 1, "bash", "/bin/bash\0-l\0");
    config = tmp.resolve("agent.yaml");
    Files.writeString(config,
        "inference:\n  discovery:\n    scope: all\n    procRoot: " + proc + "\nkubernetes:\n  enabled: false\n");
  }

  private static void process(Path proc, long pid, long ppid, String comm, String cmdline) throws IOException {
    Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
    Files.writeString(dir.resolve("stat"),
        pid + " (" + comm + ") S " + ppid + " 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 " + (1000 + pid) + " 0 0\n");
    Files.writeString(dir.resolve("cmdline"), cmdline);
    Files.writeString(dir.resolve("cgroup"), "0::/user.slice/session-1.scope\n");
  }

  /**
   * Names a library that is not there: by its default name, NVML would be found on a GPU machine,
   * or be the fake that JNA keeps loaded under that name once another test in this JVM opened it.
   */
  private void withoutNvml() throws IOException {
    Files.writeString(config, Files.readString(config)
        + "nvml:\n  library: " + tmp.resolve("no-such-libnvidia-ml.so.1") + "\n");
  }

  @Test
  void discover_printsServersSkippedAndNotes() throws IOException {
    withoutNvml();
    String out = output(ExitCodes.OK, "discover", "--config", config.toString());

    assertThat(out).contains("scope: all");
    assertThat(out).containsPattern("vllm-8001 +vllm +http://127.0.0.1:8001/metrics +- +100,101");
    assertThat(out).contains("    command: vllm serve m --port 8001");
    assertThat(out).contains("    how:     vllm serve (pid 100); --port 8001, default host 0.0.0.0 (wildcard: 127.0.0.1)");
    assertThat(out).contains("skipped:");
    assertThat(out).containsPattern("200 +llama-server --port 8090 +container abababababab has no known pod IP: "
        + "Kubernetes lookups are off \\(kubernetes.enabled\\)");
    assertThat(out).contains("notes:").contains("NVML unavailable");
    assertThat(out).doesNotContain("bash");
  }

  @Test
  void discover_json_isTheDiscoveryResult() throws IOException {
    withoutNvml();
    JsonNode json = new ObjectMapper().readTree(output(ExitCodes.OK, "discover", "--config", config.toString(), "--json"));

    assertThat(json.path("servers")).hasSize(1);
    JsonNode s = json.path("servers").get(0);
    assertThat(s.path("name").asText()).isEqualTo("vllm-8001");
    assertThat(s.path("url").asText()).isEqualTo("http://127.0.0.1:8001/metrics");
    assertThat(s.path("pids").toString()).isEqualTo("[100,101]");
    assertThat(s.path("gpus").toString()).isEqualTo("[]");
    assertThat(json.path("skipped").get(0).path("pid").asLong()).isEqualTo(200);
    assertThat(json.path("notes").get(0).asText()).startsWith("NVML unavailable");
  }

  @Test
  void discover_scopeGpu_takesGpuProcessesFromNvml() throws IOException {
    FakeNvmlLibrary.Control fake = FakeNvmlLibrary.control();
    fake.fake_nvml_reset(2);
    fake.fake_nvml_add_process(1, 100, 8L << 30);
    fake.fake_nvml_add_process(0, 300, 1L << 30);
    Files.writeString(config, Files.readString(config).replace("scope: all", "scope: gpu")
        + "nvml:\n  library: " + FakeNvmlLibrary.path() + "\n");

    String out = output(ExitCodes.OK, "discover", "--config", config.toString());

    assertThat(out).containsPattern("vllm-8001 +vllm +http://127.0.0.1:8001/metrics +1 +100\n");
    assertThat(out).containsPattern("300 +/bin/bash -l +uses GPU 0 but its command is not a recognized inference server");
    assertThat(out).doesNotContain("notes:").doesNotContain("llama-server");
  }

  @Test
  void discover_scopeGpuWithoutNvml_explainsWhatToDo() throws IOException {
    Files.writeString(config, Files.readString(config).replace("scope: all", "scope: gpu")
        + "nvml:\n  library: " + tmp.resolve("no-such-libnvidia-ml.so") + "\n");
    String out = output(ExitCodes.OK, "discover", "--config", config.toString());
    assertThat(out).contains("no inference servers found");
    assertThat(out).contains("scope gpu finds no servers; set inference.discovery.scope: all");
  }
}
