package dev.gputop.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gputop.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The project's own fixtures recorded from the demo replicas, in
 * {@code inference/src/test/resources/fixtures/<engine>/demo-*.prom}: two moments 30 s apart of
 * each engine, under load, seed {@value #SEED}. By default the test checks that the committed
 * files are still what the replicas produce; with {@code -Dgputop.demo.record=true} it
 * (re)writes them:
 *
 * <pre>
 * ./mvnw -B -q test -pl agent -am -Dtest=DemoFixturesTest -Dsurefire.failIfNoSpecifiedTests=false -Dgputop.demo.record=true
 * </pre>
 */
class DemoFixturesTest {

  static final long SEED = 42;
  static final Duration WARMUP = Duration.ofSeconds(45);
  static final Duration APART = Duration.ofSeconds(30);

  @Test
  void fixtures_areWhatTheReplicasProduce() throws Exception {
    Path dir = Path.of(System.getProperty("user.dir")).resolve("../inference/src/test/resources/fixtures").normalize();
    assumeTrue(Files.isDirectory(dir.getParent()), "inference test resources not found from " + dir);
    Map<String, String> files = record();
    boolean write = Boolean.getBoolean("gputop.demo.record");
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path p = dir.resolve(f.getKey());
      if (write) {
        Files.createDirectories(p.getParent());
        Files.writeString(p, f.getValue(), StandardCharsets.UTF_8);
      } else {
        assumeTrue(Files.isRegularFile(p), "not recorded yet: " + p);
        assertThat(Files.readString(p, StandardCharsets.UTF_8)).as(f.getKey()).isEqualTo(f.getValue());
      }
    }
  }

  @Test
  void fixtures_showWhatTheReadmeSays() throws Exception {
    Map<String, String> files = record();
    MiniExposition vllm = MiniExposition.parse(files.get("vllm/demo-vllm-dp2-t1.prom"));
    assertThat(vllm.value("vllm:kv_cache_usage_perc", "engine", "0")).isGreaterThanOrEqualTo(0.95);
    assertThat(vllm.value("vllm:num_requests_waiting", "engine", "0")).isPositive();
    assertThat(MiniExposition.parse(files.get("tgi/demo-tgi-t0.prom")).value("tgi_queue_size")).isPositive();
    assertThat(MiniExposition.parse(files.get("llamacpp/demo-llamacpp-t0.prom")).value("llamacpp:requests_deferred")).isPositive();
    assertThat(files.get("llamacpp/demo-llamacpp-legacy-kv-t0.prom")).contains("llamacpp:kv_cache_usage_ratio ");
    assertThat(files.get("trtllm/demo-trtllm-t0.prom")).contains("trtllm_num_active_requests{");
    assertThat(files).hasSize(12);
  }

  /** File (relative to the fixtures folder) → content. */
  static Map<String, String> record() throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    record(out, false);
    record(out, true);
    return out;
  }

  private static void record(Map<String, String> out, boolean legacyLlama) throws Exception {
    ManualClock clock = new ManualClock(Fixtures.T0);
    try (DemoReplicas d = DemoReplicas.builder().seed(SEED).clock(clock).restarts(false)
        .llamaCppLegacyKvCache(legacyLlama).start()) {
      clock.advance(WARMUP);
      for (int moment = 0; moment < 2; moment++) {
        for (Replica r : d.replicas()) {
          if (legacyLlama && !r.engine().equals("llamacpp")) {
            continue;
          }
          String name = legacyLlama ? "llamacpp-legacy-kv" : r.name();
          out.put(r.engine() + "/demo-" + name + "-t" + moment + ".prom", r.render());
        }
        clock.advance(APART);
      }
    }
  }
}
