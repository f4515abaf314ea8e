package dev.gputop.agent.cli;

import static dev.gputop.agent.cli.CliRuns.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.agent.FakeNvmlLibrary;
import dev.gputop.agent.cli.CliRuns.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GpusCommandTest {

  private static final long GIB = 1024L * 1024 * 1024;

  private static Path config(Path dir, String library) throws Exception {
    Path file = dir.resolve("agent.yaml");
    Files.writeString(file, "nvml:\n  library: " + library + "\n");
    return file;
  }

  @Test
  void gpusJson_printsSnapshotRecordsWithProcesses(@TempDir Path dir) throws Exception {
    FakeNvmlLibrary.Control fake = FakeNvmlLibrary.control();
    fake.fake_nvml_reset(2);
    fake.fake_nvml_set(1, "util.gpu", 93);
    fake.fake_nvml_set(1, "memory.used", 30 * GIB);
    int self = (int) ProcessHandle.current().pid();
    fake.fake_nvml_add_process(1, self, 12 * GIB);

    Result run = run("gpus", "--json", "--config", config(dir, FakeNvmlLibrary.path().toString()).toString());

    assertThat(run.code()).isZero();
    JsonNode doc = new ObjectMapper().readTree(run.out());
    assertThat(doc.get("driverVersion").asText()).isEqualTo("550.54.15");
    assertThat(doc.get("gpus")).hasSize(2);
    JsonNode gpu = doc.get("gpus").get(1);
    assertThat(gpu.get("index").asInt()).isEqualTo(1);
    assertThat(gpu.get("uuid").asText()).isEqualTo("GPU-fa4e0001-1111-2222-3333-000000000001");
    assertThat(gpu.get("name").asText()).isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(gpu.get("pciBusId").asText()).isEqualTo("00000000:28:00.0");
    assertThat(gpu.get("state").asText()).isEqualTo("ok");
    assertThat(gpu.get("utilization").asDouble()).isEqualTo(0.93);
    assertThat(gpu.get("memoryUsedBytes").asLong()).isEqualTo(30 * GIB);
    assertThat(gpu.get("memoryTotalBytes").asLong()).isEqualTo(85_520_809_984L);
    assertThat(gpu.get("powerWatts").asDouble()).isEqualTo(110.0);
    assertThat(gpu.get("temperatureCelsius").asInt()).isEqualTo(41);
    JsonNode process = gpu.get("processes").get(0);
    assertThat(process.get("pid").asLong()).isEqualTo(self);
    assertThat(process.get("usedMemoryBytes").asLong()).isEqualTo(12 * GIB);
    assertThat(process.get("server").isNull()).isTrue();
    assertThat(process.get("name").asText()).isEqualTo("java");
  }

  @Test
  void gpus_text_isATableOfGpusAndProcesses(@TempDir Path dir) throws Exception {
    FakeNvmlLibrary.Control fake = FakeNvmlLibrary.control();
    fake.fake_nvml_reset(1);
    fake.fake_nvml_set(0, "util.gpu", 87);
    fake.fake_nvml_set(0, "memory.used", 20 * GIB);
    fake.fake_nvml_add_process(0, 4242, 3 * GIB);

    Result run = run("gpus", "--config", config(dir, FakeNvmlLibrary.path().toString()).toString());

    assertThat(run.code()).isZero();
    assertThat(run.out())
        .contains("NVML driver 550.54.15")
        .containsPattern("0 +NVIDIA H100 80GB HBM3 +GPU-fa4e0000-1111-2222-3333-000000000000 +00000000:18:00.0 +87% +20480 / 81559 MiB +100 W +40C +ok")
        .containsPattern("0 +4242 +N/A +3072 MiB +0%");
  }

  @Test
  void gpus_withoutNvml_exits2WithReason(@TempDir Path dir) throws Exception {
    Result text = run("gpus", "--config", config(dir, "/nonexistent/libnvidia-ml.so.1").toString());
    assertThat(text.code()).isEqualTo(ExitCodes.IO);
    assertThat(text.err()).startsWith("NVML unavailable: ").contains("/nonexistent/libnvidia-ml.so.1");
    assertThat(text.out()).isEmpty();

    Result json = run("gpus", "--json", "--config", config(dir, "/nonexistent/libnvidia-ml.so.1").toString());
    assertThat(json.code()).isEqualTo(ExitCodes.IO);
    JsonNode doc = new ObjectMapper().readTree(json.out());
    assertThat(doc.get("gpus")).isEmpty();
    assertThat(doc.get("unavailable").asText()).contains("/nonexistent/libnvidia-ml.so.1");
  }
}
