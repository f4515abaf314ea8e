package dev.gputop.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.agent.demo.DemoReplicas;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigLoader;
import dev.gputop.config.InferenceConfig;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's configuration: the user's file, but for what the demo must set. */
class DemoCommandTest {

  @TempDir Path dir;

  /**
   * A file that moves every inference key (and every top-level section) off its default, so that
   * a component the demo drops reads as the default and differs from the file's.
   */
  private static final String EVERY_KEY_CHANGED = """
      refresh:
        normal: 2s
      listen: 127.0.0.1:0
      nvml:
        enabled: false
      kubernetes:
        enabled: "false"
      listener:
        auth:
          exemptPaths: [/healthz, /livez]
      inference:
        enabled: false
        window: 45s
        costPerGpuHour: 2.5
        quantiles: [0.5, 0.95, 0.99]
        discovery:
          enabled: true
          scope: all
          procRoot: /host/proc
        scrape:
          timeout: 1500ms
          maxSeries: 1234
        engines:
          profiles: |
            engines: []
        endpoints:
          - name: mine
            url: http://10.0.0.5:8000/metrics
        slo:
          ttft: 800ms
          objective: 0.95
          overrides:
            - match:
                engine: vllm
              ttft: 2s
      """;

  /** What the demo sets itself: it scrapes its own replicas, with discovery off. */
  private static final Set<String> SET_BY_THE_DEMO = Set.of("enabled", "endpoints", "discovery");

  @Test
  void demoConfig_keepsEveryInferenceComponentButWhatItMustSet() throws Exception {
    AgentConfig file = new ConfigLoader().parse(EVERY_KEY_CHANGED, Map.of());
    try (DemoReplicas replicas = DemoCommand.replicas(1).start()) {
      AgentConfig demo = DemoCommand.demoConfig(file, replicas.replicas());
      InferenceConfig defaults = InferenceConfig.defaults();
      for (RecordComponent c : InferenceConfig.class.getRecordComponents()) {
        Object mine = c.getAccessor().invoke(file.inference());
        Object theDemos = c.getAccessor().invoke(demo.inference());
        if (SET_BY_THE_DEMO.contains(c.getName())) {
          continue;
        }
        assertThat(mine).as("the test file must set inference.%s off its default", c.getName())
            .isNotEqualTo(c.getAccessor().invoke(defaults));
        assertThat(theDemos).as("inference.%s", c.getName()).isEqualTo(mine);
      }
      assertThat(demo.inference().enabled()).isTrue();
      assertThat(demo.inference().discovery()).isEqualTo(file.inference().discovery().withEnabled(false));
      assertThat(demo.inference().endpoints()).extracting(e -> e.name()).containsExactlyElementsOf(DemoReplicas.NAMES);
      for (RecordComponent c : AgentConfig.class.getRecordComponents()) {
        if (!c.getName().equals("inference")) {
          assertThat(c.getAccessor().invoke(demo)).as(c.getName()).isEqualTo(c.getAccessor().invoke(file));
        }
      }
    }
  }

  @Test
  void demoDefaults_applyOnlyWhereTheFileIsSilent() throws Exception {
    Path silent = Files.writeString(dir.resolve("silent.yaml"), "nvml:\n  enabled: false\n");
    AgentConfig a = new ConfigLoader().load(silent, DemoCommand.DEMO_DEFAULTS, Map.of());
    assertThat(a.refreshNormal()).isEqualTo(Duration.ofSeconds(1));
    assertThat(a.inference().window()).isEqualTo(Duration.ofSeconds(30));
    assertThat(a.nvml().enabled()).isFalse();
    Path set = Files.writeString(dir.resolve("set.yaml"), "refresh:\n  normal: 5s\ninference:\n  window: 2m\n");
    AgentConfig b = new ConfigLoader().load(set, DemoCommand.DEMO_DEFAULTS, Map.of());
    assertThat(b.refreshNormal()).isEqualTo(Duration.ofSeconds(5));
    assertThat(b.inference().window()).isEqualTo(Duration.ofMinutes(2));
  }

  /** Five consecutive free loopback ports, the first returned (probed: nothing listens on them now). */
  static int freeBase(int count) throws Exception {
    for (int attempt = 0; attempt < 50; attempt++) {
      int base;
      try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        base = s.getLocalPort();
      }
      if (base + count > 65_535) {
        continue;
      }
      boolean free = true;
      for (int p = base; p < base + count && free; p++) {
        try (java.net.ServerSocket s = new java.net.ServerSocket(p, 1, java.net.InetAddress.getLoopbackAddress())) {
          // free
        } catch (java.io.IOException e) {
          free = false;
        }
      }
      if (free) {
        return base;
      }
    }
    throw new AssertionError("no run of " + count + " free ports");
  }

  @Test
  void demo_printsEachReplicasUrlOnTheGivenPorts() throws Exception {
    int base = freeBase(6);
    Path f = Files.writeString(dir.resolve("d.yaml"), "nvml:\n  enabled: false\n");
    CliRuns.Result r = CliRuns.run("demo", "--config", f.toString(), "--for", "1s", "--plain",
        "--port", String.valueOf(base + 5), "--replica-base-port", String.valueOf(base));
    assertThat(r.code()).as(r.err()).isEqualTo(ExitCodes.OK);
    assertThat(r.out()).contains("listener: http://127.0.0.1:" + (base + 5) + " ");
    for (int i = 0; i < DemoReplicas.NAMES.size(); i++) {
      assertThat(r.out()).containsPattern("  " + DemoReplicas.NAMES.get(i) + " +http://127\\.0\\.0\\.1:" + (base + i) + "/");
    }
  }

  @Test
  void demo_portOutOfRangeIsAUsageError() {
    CliRuns.Result r = CliRuns.run("demo", "--replica-base-port", "65533");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("--replica-base-port must be 1 to 65531");
  }
}
