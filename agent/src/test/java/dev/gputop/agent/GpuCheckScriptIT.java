package dev.gputop.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/gpu-check.sh against the shaded jar, the fake libnvidia-ml and a fake nvidia-smi that
 * prints real-format CSV: the script's parsing and comparison logic, without a GPU.
 */
class GpuCheckScriptIT {

  private static final String GPU0 = "GPU-fa4e0000-1111-2222-3333-000000000000";
  private static final String GPU1 = "GPU-fa4e0001-1111-2222-3333-000000000001";

  private record Result(int exit, String out) {}

  /** One GPU's block of `nvidia-smi -q` (the lines the script reads, in the real layout). */
  static String smiQ(String busId, int replays, String correctable, String uncorrectable, String pending,
      String failure, String retiredSingle, String retiredDouble, String retiredPending) {
    return String.join("\n",
        "GPU " + busId,
        "    Product Name                          : NVIDIA H100 80GB HBM3",
        "    PCI",
        "        Bus                               : 0x18",
        "        GPU Link Info",
        "            PCIe Generation",
        "                Max                       : 5",
        "        Replays Since Reset               : " + replays,
        "        Replay Number Rollovers           : 0",
        "    Retired Pages",
        "        Single Bit ECC                    : " + retiredSingle,
        "        Double Bit ECC                    : " + retiredDouble,
        "        Pending Page Blacklist            : " + retiredPending,
        "    Remapped Rows",
        "        Correctable Error                 : " + correctable,
        "        Uncorrectable Error               : " + uncorrectable,
        "        Pending                           : " + pending,
        "        Remapping Failure Occurred        : " + failure,
        "        Bank Remap Availability Histogram",
        "            Max                           : 2560 bank(s)",
        "");
  }

  /** `nvidia-smi -q` of the fake's two default GPUs: no remapped rows, no replays, no retired pages. */
  static final String DEFAULT_Q =
      "==============NVSMI LOG==============\n\nDriver Version                            : 550.54.15\n\n"
          + "Attached GPUs                             : 2\n"
          + smiQ("00000000:18:00.0", 0, "0", "0", "No", "No", "N/A", "N/A", "N/A")
          + smiQ("00000000:28:00.0", 0, "0", "0", "No", "No", "N/A", "N/A", "N/A");

  private static Result check(Path dir, String gpusCsv, String appsCsv, String fakeProcesses) throws Exception {
    return check(dir, gpusCsv, appsCsv, fakeProcesses, DEFAULT_Q, "");
  }

  private static Result check(Path dir, String gpusCsv, String appsCsv, String fakeProcesses, String smiQ,
      String fakeSettings) throws Exception {
    Path smi = dir.resolve("nvidia-smi");
    Files.writeString(smi, String.join("\n",
        "#!/bin/sh",
        "case \"$*\" in",
        "  *--query-gpu=index,name,uuid,pci.bus_id,memory.total,memory.used,power.draw,temperature.gpu,utilization.gpu*--format=csv,noheader,nounits*) cat \"" + dir.resolve("gpus.csv") + "\" ;;",
        "  *--query-compute-apps=gpu_uuid,pid,used_memory*--format=csv,noheader,nounits*) cat \"" + dir.resolve("apps.csv") + "\" ;;",
        "  -q) cat \"" + dir.resolve("q.txt") + "\" ;;",
        "  *) echo \"fake nvidia-smi: unsupported: $*\" >&2; exit 9 ;;",
        "esac", ""));
    Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(dir.resolve("gpus.csv"), gpusCsv);
    Files.writeString(dir.resolve("apps.csv"), appsCsv);
    Files.writeString(dir.resolve("q.txt"), smiQ);
    Path config = dir.resolve("agent.yaml");
    Files.writeString(config, "nvml:\n  library: " + FakeNvmlLibrary.path() + "\n");

    ProcessBuilder pb =
        new ProcessBuilder("bash", Path.of("../scripts/gpu-check.sh").toAbsolutePath().toString(),
            "--config", config.toString())
            .redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
    env.put("AGENT_JAR", System.getProperty("gputop.agent.jar", "target/gputop-agent.jar"));
    env.put("NVIDIA_SMI", smi.toString());
    env.put("FAKE_NVML_DEVICE_COUNT", "2");
    env.put("FAKE_NVML_PROCESSES", fakeProcesses);
    env.put("FAKE_NVML_SET", fakeSettings);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), out);
  }

  private static final String MATCHING_GPUS =
      "0, NVIDIA H100 80GB HBM3, " + GPU0 + ", 00000000:18:00.0, 81559, 1024, 100.52, 40, 10\n"
          + "1, NVIDIA H100 80GB HBM3, " + GPU1 + ", 00000000:28:00.0, 81559, 1536, 110.00, 41, 20\n";

  @Test
  void gpuCheck_agreeingTools_passesEveryCheck(@TempDir Path dir) throws Exception {
    Result r = check(dir, MATCHING_GPUS, GPU1 + ", 4321, 2048\n", "4321:1:2147483648");

    assertThat(r.out()).contains("39 checks, 0 failed: PASS").doesNotContain("FAIL");
    assertThat(r.out()).containsPattern("remap pending +0 +No +No +PASS");
    assertThat(r.out()).containsPattern("retired single-bit +1 +N/A +N/A +PASS");
    assertThat(r.out()).containsPattern("memory total +0 +81559 MiB +81559.00 MiB \\(\\+-1\\) +PASS");
    assertThat(r.out()).containsPattern("process 4321 memory +1 +2048 MiB +2048.00 MiB \\(\\+-102\\) +PASS");
    assertThat(r.out()).containsPattern("device count +- +2 +2 +PASS");
    assertThat(r.exit()).isZero();
  }

  @Test
  void gpuCheck_disagreeingTools_failsTheRowsThatDiffer(@TempDir Path dir) throws Exception {
    String gpus =
        "0, NVIDIA H100 80GB HBM3, " + GPU0 + ", 00000000:18:00.0, 81559, 1565, 100.52, 40, 10\n"
            + "1, NVIDIA H100 80GB HBM3, " + GPU1 + ", 00000000:28:00.0, 81559, 1536, [N/A], 90, 20\n"
            + "2, NVIDIA H100 80GB HBM3, GPU-ffffffff-0000-0000-0000-000000000000, 00000000:38:00.0, 81559, 0, 70.00, 30, 0\n";
    Result r = check(dir, gpus, GPU0 + ", 999, 100\n", "4321:1:2147483648");

    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.out())
        // 541 MiB more than NVML's v2 "used": what a v1 reading with the reserved part would show
        .containsPattern("memory used +0 +1565 MiB +1024.00 MiB \\(\\+-209\\) +FAIL")
        .containsPattern("power +1 +N/A +110.0 W +FAIL")
        .containsPattern("temperature +1 +90 C +41.00 C \\(\\+-3\\) +FAIL")
        .containsPattern("uuid +2 +GPU-ffffffff-0000-0000-0000-000000000000 +missing +FAIL")
        .containsPattern("device count +- +3 +2 +FAIL")
        .containsPattern("process 999 +0 +100 MiB +missing +FAIL")
        .containsPattern("process 4321 +\\? +missing +listed +FAIL")
        .containsPattern("utilization +1 +20 % +20.00 % \\(\\+-25\\) +PASS")
        .contains("41 checks, 7 failed: FAIL");
  }

  @Test
  void gpuCheck_faultCounters_comparedWithNvidiaSmiQ(@TempDir Path dir) throws Exception {
    String faults = "0:remap.correctable=3,0:remap.pending=1,1:pcie.replay=12";
    String agreeing = DEFAULT_Q.replace(smiQ("00000000:18:00.0", 0, "0", "0", "No", "No", "N/A", "N/A", "N/A"),
            smiQ("00000000:18:00.0", 0, "3", "0", "Yes", "No", "N/A", "N/A", "N/A"))
        .replace(smiQ("00000000:28:00.0", 0, "0", "0", "No", "No", "N/A", "N/A", "N/A"),
            smiQ("00000000:28:00.0", 12, "0", "0", "No", "No", "N/A", "N/A", "N/A"));
    Result ok = check(dir, MATCHING_GPUS, "No running processes found\n", "", agreeing, faults);
    assertThat(ok.out()).contains("0 failed: PASS")
        .containsPattern("remapped correctable +0 +3 +3 +PASS")
        .containsPattern("remap pending +0 +Yes +Yes +PASS")
        .containsPattern("pcie replays +1 +12 +12 \\(\\+0\\.\\.10\\) +PASS");
    assertThat(ok.exit()).isZero();

    // nvidia-smi counts a remap the agent does not, and a failure the agent does not see.
    String disagreeing = agreeing.replace("Correctable Error                 : 3", "Correctable Error                 : 4")
        .replaceFirst("Remapping Failure Occurred        : No", "Remapping Failure Occurred        : Yes");
    Result bad = check(dir, MATCHING_GPUS, "No running processes found\n", "", disagreeing, faults);
    assertThat(bad.out())
        .containsPattern("remapped correctable +0 +4 +3 +FAIL")
        .containsPattern("remap failed +0 +Yes +No +FAIL")
        .contains("2 failed: FAIL");
    assertThat(bad.exit()).isEqualTo(1);
  }

  @Test
  void gpuCheck_agentFails_exits2(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("bad.yaml");
    Files.writeString(config, "nvml:\n  library: /nonexistent/libnvidia-ml.so.1\n");
    Path smi = dir.resolve("nvidia-smi");
    Files.writeString(smi, "#!/bin/sh\necho '0, X, GPU-1, 0:0:0.0, 1, 1, 1, 1, 1'\n");
    Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
    ProcessBuilder pb =
        new ProcessBuilder("bash", Path.of("../scripts/gpu-check.sh").toAbsolutePath().toString(),
            "--config", config.toString()).redirectErrorStream(true);
    pb.environment().put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
    pb.environment().put("AGENT_JAR", System.getProperty("gputop.agent.jar", "target/gputop-agent.jar"));
    pb.environment().put("NVIDIA_SMI", smi.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(out).contains("gputop-agent gpus --json failed: NVML unavailable: ");
  }
}
