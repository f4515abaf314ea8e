package dev.gputop.inference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.gputop.config.Endpoint;
import dev.gputop.config.InferenceConfig;
import dev.gputop.config.SloConfig;
import dev.gputop.config.SloTargets;
import dev.gputop.config.services.GpuPowerSource;
import dev.gputop.config.services.GpuReading;
import dev.gputop.inference.discovery.DiscoveredServer;
import dev.gputop.inference.export.ServerEntry;
import dev.gputop.inference.stats.Efficiency;
import dev.gputop.inference.stats.SloKind;
import dev.gputop.inference.stats.SloStats;
import dev.gputop.testing.ManualClock;
import io.opentelemetry.api.OpenTelemetry;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The receiver's efficiency with discovered servers: a tensor-parallel server whose workers
 * discovery merged into one server on two GPUs, a second server on one of them, and the good
 * requests per second of each SLO. GPU readings come from a {@link GpuPowerSource} the test
 * scripts (the NVML side runs against the fake libnvidia-ml in the agent's EfficiencyTest).
 */
class EfficiencyReceiverTest {

  private final ManualClock clock = new ManualClock();
  private final InferenceReceiverTest.FakeScraper scraper = new InferenceReceiverTest.FakeScraper(clock);
  private final InferenceReceiverTest.FakeDiscovery discovery = new InferenceReceiverTest.FakeDiscovery();
  /** Joules of GPUs 0, 1, 2 as NVML's counters read. */
  private final double[] joules = {1_000_000, 2_000_000, 3_000_000};
  private GpuPowerSource.Readings readings = GpuPowerSource.Readings.NONE;

  private InferenceReceiver receiver(SloConfig slo) {
    InferenceConfig config = InferenceConfig.builder().window(Duration.ofMinutes(1)).slo(slo).build();
    GpuPowerSource source = () -> readings;
    return new InferenceReceiver(config, Duration.ofSeconds(3), scraper, discovery, clock, OpenTelemetry.noop())
        .withGpuPower(() -> source);
  }

  /** NVML samples every GPU now, with its power. */
  private void sample(double... watts) {
    List<GpuReading> gpus = new ArrayList<>();
    for (int i = 0; i < joules.length; i++) {
      gpus.add(new GpuReading(i, "GPU-" + i, false, watts[i], joules[i], 0.5, 1L << 30, 80L << 30));
    }
    readings = new GpuPowerSource.Readings(clock.nanoTime(), gpus);
  }

  private static DiscoveredServer server(String name, int port, List<Integer> gpus, long... pids) {
    List<Long> p = new ArrayList<>();
    for (long pid : pids) {
      p.add(pid);
    }
    return new DiscoveredServer(Endpoint.of(name, URI.create("http://127.0.0.1:" + port + "/metrics")), "vllm",
        gpus, p, "vllm serve m --tensor-parallel-size " + gpus.size(), "command line", null, null);
  }

  private static String vllm(long generated, long requests) {
    return "# TYPE vllm:generation_tokens counter\n"
        + "vllm:generation_tokens_total{model_name=\"m\"} " + generated + "\n"
        + "# TYPE vllm:request_success counter\n"
        + "vllm:request_success_total{finished_reason=\"stop\",model_name=\"m\"} " + requests + "\n"
        + "# TYPE vllm:time_to_first_token_seconds histogram\n"
        + "vllm:time_to_first_token_seconds_bucket{le=\"0.5\",model_name=\"m\"} " + (requests * 9 / 10) + "\n"
        + "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} " + requests + "\n"
        + "vllm:time_to_first_token_seconds_sum{model_name=\"m\"} " + requests * 0.3 + "\n"
        + "vllm:time_to_first_token_seconds_count{model_name=\"m\"} " + requests + "\n";
  }

  private static ServerEntry entry(InferenceReceiver r, String name) {
    return r.snapshot().servers().stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void aDiscoveredTensorParallelServer_joulesPerTokenIsItsTwoGpusEnergyOverItsTokens() {
    discovery.servers.add(server("tp2", 8000, List.of(0, 1), 100, 101, 102));
    String url = "http://127.0.0.1:8000/metrics";
    try (InferenceReceiver r = receiver(SloConfig.defaults())) {
      sample(400, 410, 50);
      scraper.bodies.put(url, vllm(0, 0));
      r.refresh();
      assertThat(entry(r, "tp2").efficiency().joulesPerGeneratedToken()).isNull(); // one scrape: no window yet
      long[] generated = {800, 1700, 2500};
      for (long g : generated) {
        clock.advanceSeconds(5);
        joules[0] += 2000;
        joules[1] += 2050;
        joules[2] += 250;
        sample(400, 410, 50);
        scraper.bodies.put(url, vllm(g, g / 100));
        r.refresh();
      }
      Efficiency e = entry(r, "tp2").efficiency();
      assertThat(e.unavailable()).isNull();
      assertThat(e.gpus()).extracting(Efficiency.Gpu::index).containsExactly(0, 1);
      // GPU 2 is not this server's: 3 x (2000 + 2050) J over 2500 tokens.
      assertThat(e.joulesPerGeneratedToken()).isCloseTo(3 * 4050.0 / 2500, within(1e-9));
      assertThat(e.powerWatts()).isCloseTo(810, within(1e-9));
      assertThat(e.generationTokensPerSecondPerGpu())
          .isCloseTo(entry(r, "tp2").stats().generationTokensPerSecond() / 2, within(1e-9));
      assertThat(r.exportedCounters()).filteredOn(c -> c.name().equals("gputop.inference.energy"))
          .singleElement().satisfies(c -> assertThat(c.value()).isCloseTo(3 * 4050.0, within(1e-6)));
      assertThat(r.snapshot().overview().generationTokensPerJoule()).isCloseTo(2500 / (3 * 4050.0), within(1e-9));
    }
  }

  @Test
  void aSecondServerOnOneOfItsGpus_makesBothShared() {
    discovery.servers.add(server("tp2", 8000, List.of(0, 1), 100, 101));
    discovery.servers.add(server("small", 8001, List.of(1), 200));
    try (InferenceReceiver r = receiver(SloConfig.defaults())) {
      for (int i = 0; i < 3; i++) {
        sample(400, 410, 50);
        scraper.bodies.put("http://127.0.0.1:8000/metrics", vllm(100L * i, i));
        scraper.bodies.put("http://127.0.0.1:8001/metrics", vllm(10L * i, i));
        r.refresh();
        clock.advanceSeconds(5);
        joules[0] += 1000;
        joules[1] += 1000;
      }
      for (String s : List.of("tp2", "small")) {
        Efficiency e = entry(r, s).efficiency();
        assertThat(e.unavailable()).as(s).isEqualTo(Efficiency.SHARED);
        assertThat(e.joulesPerGeneratedToken()).isNull();
        assertThat(e.powerWatts()).isNull();
      }
      assertThat(r.exportedCounters()).noneMatch(c -> c.name().equals("gputop.inference.energy"));
      assertThat(r.snapshot().overview().generationTokensPerJoule()).isNull();
    }
  }

  @Test
  void goodRequestsPerSecond_isTheRequestRateTimesTheAttainment_fromTheSameWindow() {
    discovery.servers.add(server("tp2", 8000, List.of(0, 1), 100));
    SloTargets ttft = new SloTargets(Duration.ofMillis(500), null, null, null, null, null);
    try (InferenceReceiver r = receiver(new SloConfig(ttft, List.of()))) {
      for (int i = 0; i < 3; i++) {
        sample(400, 410, 50);
        scraper.bodies.put("http://127.0.0.1:8000/metrics", vllm(1000L * i, 100L * i));
        r.refresh();
        clock.advanceSeconds(10);
      }
      ServerEntry e = entry(r, "tp2");
      SloStats.Value v = e.stats().slo().ttft();
      assertThat(v.attainment()).isCloseTo(0.9, within(1e-9));
      assertThat(v.goodRequestsPerSecond())
          .isCloseTo(e.stats().requestsPerSecond() * 0.9, within(1e-9))
          .isGreaterThan(0);
      assertThat(r.snapshot().overview().goodRequestsPerSecond())
          .containsOnlyKeys("ttft")
          .hasEntrySatisfying("ttft", g -> assertThat(g).isCloseTo(v.goodRequestsPerSecond(), within(1e-12)));
      assertThat(Map.copyOf(r.snapshot().overview().goodRequestsPerSecond())).hasSize(1);
    }
  }
}
