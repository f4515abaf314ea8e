package dev.gputop.inference.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.ManualClock;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.DiscoveryConfig;
import dev.gputop.config.DiscoveryConfig.Scope;
import dev.gputop.config.KubernetesConfig;
import dev.gputop.config.NvmlConfig;
import dev.gputop.testing.TestReceiverContext;
import dev.gputop.config.services.GpuProcessSource;
import dev.gputop.nvml.NvmlReceiverProvider;
import dev.gputop.receiver.Receiver;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scope gpu end to end: real fake-engine processes, the NVML receiver reading the nvml module's
 * fake libnvidia-ml that reports those PIDs on its GPUs, and discovery reading the receiver's
 * published {@link GpuProcessSource} the way the agent wires them.
 */
@EnabledOnOs(OS.LINUX)
@Timeout(120)
class ProcessDiscoveryFakeNvmlTest {

  @TempDir Path tmp;
  FakeEngines engines;
  Receiver nvml;
  final ManualClock clock = new ManualClock(1_000_000_000L, 1_700_000_001_000_000_000L);

  @BeforeEach
  void setUp() throws Exception {
    Assumptions.assumeTrue(FakeEngines.pythonAvailable(), "python3 is needed to run fake engines");
    FakeNvml.control().fake_nvml_reset(4);
    engines = new FakeEngines(tmp);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (nvml != null) {
      nvml.close();
    }
    if (engines != null) {
      engines.close();
    }
  }

  @Test
  void discover_gpuScope_gpusFromTheFakeNvmlLibrary() throws Exception {
    int vllmPort = FakeEngines.freePort();
    int llamaPort = FakeEngines.freePort();
    Process vllm = engines.run("vllm", "serve", "m", "--port", Integer.toString(vllmPort), "--v1-workers", "2");
    Process llama = engines.run("llama-server", "-m", "x.gguf", "--port", Integer.toString(llamaPort));
    Process cpuOnly = engines.run("llama-server", "-m", "y.gguf", "--port", Integer.toString(FakeEngines.freePort()));
    FakeEngines.awaitPort(vllmPort);
    FakeEngines.awaitPort(llamaPort);
    FakeEngines.awaitDescendants(vllm, 3);
    List<ProcessHandle> workers = vllm.toHandle().descendants()
        .filter(h -> h.parent().map(p -> p.pid() != vllm.pid()).orElse(false))
        .sorted(Comparator.comparingLong(ProcessHandle::pid))
        .toList();
    assertThat(workers).hasSize(2);
    FakeNvml.Control fake = FakeNvml.control();
    fake.fake_nvml_add_process(0, (int) workers.get(0).pid(), 20L << 30);
    fake.fake_nvml_add_process(1, (int) workers.get(1).pid(), 20L << 30);
    fake.fake_nvml_add_process(3, (int) llama.pid(), 4L << 30);

    TestReceiverContext ctx = new TestReceiverContext(
        AgentConfig.builder().nvml(new NvmlConfig(true, FakeNvml.path().toString())).build(), clock);
    nvml = new NvmlReceiverProvider().create(ctx);
    nvml.refresh();
    ProcessDiscovery discovery = new ProcessDiscovery(new DiscoveryConfig(true, Scope.GPU, "/proc"),
        KubernetesConfig.defaults(), () -> ctx.lookup(GpuProcessSource.class), clock);

    DiscoveryResult r = discovery.discover();

    assertThat(r.notes()).isEmpty();
    assertThat(r.servers()).extracting(DiscoveredServer::name)
        .containsExactly("llamacpp-" + llamaPort, "vllm-" + vllmPort);
    DiscoveredServer v = r.servers().get(1);
    assertThat(v.gpus()).containsExactly(0, 1);
    Set<Long> tree = vllm.toHandle().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
    tree.add(vllm.pid());
    assertThat(Set.copyOf(v.pids())).isEqualTo(tree);
    assertThat(r.servers().get(0).gpus()).containsExactly(3);
    assertThat(r.servers().get(0).pids()).containsExactly(llama.pid());
    // A llama-server on no GPU is not a GPU-scope server.
    assertThat(r.servers()).noneMatch(s -> s.pids().contains(cpuOnly.pid()));
  }
}
