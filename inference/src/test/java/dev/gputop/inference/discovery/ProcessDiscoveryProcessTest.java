package dev.gputop.inference.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.ManualClock;
import dev.gputop.config.DiscoveryConfig;
import dev.gputop.config.DiscoveryConfig.Scope;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
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
 * Discovery against real processes on this host's /proc: child processes whose command lines look
 * like each engine's, serving a small /metrics on the port their flags name.
 */
@EnabledOnOs(OS.LINUX)
@Timeout(120)
class ProcessDiscoveryProcessTest {

  @TempDir Path tmp;
  FakeEngines engines;
  final ManualClock clock = new ManualClock(1_000_000_000L, 1_700_000_001_000_000_000L);
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeEach
  void setUp() throws Exception {
    Assumptions.assumeTrue(FakeEngines.pythonAvailable(), "python3 is needed to run fake engines");
    engines = new FakeEngines(tmp);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (engines != null) {
      engines.close();
    }
  }

  private ProcessDiscovery discovery(Scope scope, FakeGpus gpus) {
    return new ProcessDiscovery(new DiscoveryConfig(true, scope, "/proc"), Path.of("/proc"), () -> gpus, null, clock);
  }

  /** The server whose process tree is rooted at {@code p} (other tests on this host may run servers too). */
  private static DiscoveredServer serverOf(DiscoveryResult r, Process p) {
    List<DiscoveredServer> mine = r.servers().stream().filter(s -> s.pids().contains(p.pid())).toList();
    assertThat(mine).as("servers containing pid %d in %s", p.pid(), r).hasSize(1);
    return mine.get(0);
  }

  private static Set<Long> tree(Process p) {
    Set<Long> pids = p.toHandle().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
    pids.add(p.pid());
    return pids;
  }

  private String get(URI url) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  @Test
  void discover_vllmWithForkedWorkersAndEngineCoreTree_oneEntryWithAllPids() throws Exception {
    int port = FakeEngines.freePort();
    Process vllm = engines.run("vllm", "serve", "m", "--port", Integer.toString(port), "--fork-workers", "2",
        "--v1-workers", "2");
    FakeEngines.awaitPort(port);
    FakeEngines.awaitDescendants(vllm, 5); // 2 forked workers, EngineCore, 2 TP workers

    DiscoveredServer s = serverOf(discovery(Scope.ALL, new FakeGpus()).discover(), vllm);

    assertThat(s.name()).isEqualTo("vllm-" + port);
    assertThat(s.engine()).isEqualTo("vllm");
    assertThat(s.url()).hasToString("http://127.0.0.1:" + port + "/metrics");
    assertThat(Set.copyOf(s.pids())).isEqualTo(tree(vllm)).hasSize(6);
    assertThat(s.command()).contains("vllm serve m --port " + port);
    assertThat(get(s.url())).contains("vllm:num_requests_running{model_name=\"m\"} 3.0");
  }

  @Test
  void discover_vllmApiServerModuleWithV0ForkedWorkers_mergesIdenticalCommandLines() throws Exception {
    int port = FakeEngines.freePort();
    Process server = engines.module("vllm.entrypoints.openai.api_server", "--model", "m", "--host", "127.0.0.1",
        "--port", Integer.toString(port), "--fork-workers", "3");
    FakeEngines.awaitPort(port);
    FakeEngines.awaitDescendants(server, 3);

    DiscoveryResult r = discovery(Scope.ALL, new FakeGpus()).discover();

    DiscoveredServer s = serverOf(r, server);
    assertThat(s.name()).isEqualTo("vllm-" + port);
    assertThat(s.how()).startsWith("-m vllm.entrypoints.* (pid " + server.pid() + ")");
    assertThat(s.url()).hasToString("http://127.0.0.1:" + port + "/metrics");
    assertThat(Set.copyOf(s.pids())).isEqualTo(tree(server)).hasSize(4);
    // The forked workers' command lines are the server's own, yet they make no servers of their own.
    assertThat(r.servers().stream().filter(x -> x.name().startsWith("vllm-" + port))).hasSize(1);
    assertThat(get(s.url())).contains("vllm:num_requests_running");
  }

  @Test
  void discover_gpuScope_attachesEachProcesssGpus() throws Exception {
    int port = FakeEngines.freePort();
    Process vllm = engines.run("vllm", "serve", "m", "--port", Integer.toString(port), "--v1-workers", "2");
    FakeEngines.awaitPort(port);
    FakeEngines.awaitDescendants(vllm, 3);
    List<ProcessHandle> workers = vllm.toHandle().descendants()
        .filter(h -> h.parent().map(pp -> pp.pid() != vllm.pid()).orElse(false))
        .sorted(java.util.Comparator.comparingLong(ProcessHandle::pid))
        .toList();
    assertThat(workers).hasSize(2);
    FakeGpus gpus = new FakeGpus().on(workers.get(0).pid(), 0).on(workers.get(1).pid(), 1, 2);

    DiscoveryResult r = discovery(Scope.GPU, gpus).discover();

    DiscoveredServer s = serverOf(r, vllm);
    assertThat(s.gpus()).containsExactly(0, 1, 2);
    // The API server (no GPU), the engine core above the workers (no GPU), and both workers.
    assertThat(Set.copyOf(s.pids())).isEqualTo(tree(vllm)).hasSize(4);
    assertThat(r.servers()).hasSize(1);
  }

  @Test
  void discover_tgiLauncherRouterShards_urlFromPrometheusPort() throws Exception {
    int port = FakeEngines.freePort();
    int prom = FakeEngines.freePort();
    Process launcher = engines.run("text-generation-launcher", "--model-id", "m", "--num-shard", "2",
        "--port", Integer.toString(port), "--prometheus-port", Integer.toString(prom));
    FakeEngines.awaitPort(prom);
    FakeEngines.awaitDescendants(launcher, 3);

    DiscoveredServer s = serverOf(discovery(Scope.ALL, new FakeGpus()).discover(), launcher);

    assertThat(s.name()).isEqualTo("tgi-" + prom);
    assertThat(s.url()).hasToString("http://127.0.0.1:" + prom + "/metrics");
    assertThat(Set.copyOf(s.pids())).isEqualTo(tree(launcher)).hasSize(4);
    assertThat(s.how()).startsWith("text-generation-router (pid ");
    assertThat(get(s.url())).contains("tgi_batch_current_size 5");
  }

  @Test
  void discover_sglangModuleWithSchedulers_andIndependentLlamaServers() throws Exception {
    int sgPort = FakeEngines.freePort();
    int l1 = FakeEngines.freePort();
    int l2 = FakeEngines.freePort();
    Process sglang = engines.sglang("--model-path", "m", "--port", Integer.toString(sgPort), "--tp", "2", "--enable-metrics");
    Process llama1 = engines.run("llama-server", "-m", "a.gguf", "--metrics", "--port", Integer.toString(l1));
    Process llama2 = engines.run("llama-server", "-m", "b.gguf", "--metrics", "--port", Integer.toString(l2),
        "--host", "127.0.0.1");
    FakeEngines.awaitPort(sgPort);
    FakeEngines.awaitPort(l1);
    FakeEngines.awaitPort(l2);
    FakeEngines.awaitDescendants(sglang, 2);

    DiscoveryResult r = discovery(Scope.ALL, new FakeGpus()).discover();

    DiscoveredServer sg = serverOf(r, sglang);
    assertThat(sg.name()).isEqualTo("sglang-" + sgPort);
    assertThat(sg.command()).contains("-m sglang.launch_server");
    assertThat(Set.copyOf(sg.pids())).isEqualTo(tree(sglang)).hasSize(3);
    assertThat(get(sg.url())).contains("sglang:num_running_reqs{model_name=\"m\"} 4.0");
    DiscoveredServer a = serverOf(r, llama1);
    DiscoveredServer b = serverOf(r, llama2);
    assertThat(a.name()).isEqualTo("llamacpp-" + l1);
    assertThat(b.name()).isEqualTo("llamacpp-" + l2);
    assertThat(a.pids()).containsExactly(llama1.pid());
    assertThat(get(b.url())).contains("llamacpp:requests_processing 6");
  }

  @Test
  void discover_exitedServerLeavesAndNewOneAppearsOnTheNextPass() throws Exception {
    ProcessDiscovery d = discovery(Scope.ALL, new FakeGpus());
    int p1 = FakeEngines.freePort();
    Process first = engines.run("llama-server", "--port", Integer.toString(p1));
    FakeEngines.awaitPort(p1);
    assertThat(serverOf(d.discover(), first).name()).isEqualTo("llamacpp-" + p1);

    FakeEngines.kill(first);
    int p2 = FakeEngines.freePort();
    while (p2 == p1) {
      p2 = FakeEngines.freePort();
    }
    Process second = engines.run("llama-server", "--port", Integer.toString(p2));
    FakeEngines.awaitPort(p2);
    int secondPort = p2;

    DiscoveryResult r = d.discover();
    assertThat(r.servers()).noneMatch(s -> s.pids().contains(first.pid()));
    assertThat(r.servers()).noneMatch(s -> s.name().equals("llamacpp-" + p1));
    assertThat(serverOf(r, second).name()).isEqualTo("llamacpp-" + secondPort);
  }
}
