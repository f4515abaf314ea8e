package dev.gputop.inference.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.ManualClock;
import dev.gputop.config.DiscoveryConfig;
import dev.gputop.config.DiscoveryConfig.Scope;
import dev.gputop.inference.discovery.internal.kubernetes.PodInfo;
import dev.gputop.inference.discovery.internal.kubernetes.PodLookup;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ProcessDiscovery against fake /proc trees (the real-process tests are in ProcessDiscoveryProcessTest). */
class ProcessDiscoveryTest {

  static final String ID = CgroupIdsTest.ID;
  static final String UID = CgroupIdsTest.UID;

  @TempDir Path tmp;
  FakeProc proc;
  final ManualClock clock = new ManualClock(1_000_000_000L, 1_700_000_001_000_000_000L);

  @BeforeEach
  void setUp() {
    proc = new FakeProc(tmp);
  }

  private ProcessDiscovery discovery(Scope scope, FakeGpus gpus, PodLookup pods) {
    return new ProcessDiscovery(new DiscoveryConfig(true, scope, tmp.toString()), tmp, () -> gpus, pods, clock);
  }

  /** vLLM V1 on two GPUs: API server → EngineCore (title padded by setproctitle) → two TP workers. */
  private void vllmV1() {
    proc.process(100, 1, 5000, "vllm", "/usr/bin/python3", "/usr/local/bin/vllm", "serve", "meta-llama/Llama-3.1-8B",
            "--port", "8001", "--tensor-parallel-size", "2")
        .process(101, 100, 5010, 'S', "VLLM::EngineCor", "VLLM::EngineCore" + " ".repeat(40))
        .process(102, 101, 5020, 'S', "VLLM::Worker_TP", "VLLM::Worker_TP0\0\0\0\0\0\0")
        .process(103, 101, 5021, 'S', "VLLM::Worker_TP", "VLLM::Worker_TP1\0\0\0\0\0\0")
        .process(104, 100, 5011, "python3", "/usr/bin/python3", "-c",
            "from multiprocessing.resource_tracker import main;main(6)");
  }

  @Test
  void discover_vllmV1TreeOnGpus_mergesIntoOneServer() {
    vllmV1();
    DiscoveryResult r = discovery(Scope.GPU, new FakeGpus().on(102, 0).on(103, 1), null).discover();

    assertThat(r.servers()).singleElement().satisfies(s -> {
      assertThat(s.name()).isEqualTo("vllm-8001");
      assertThat(s.engine()).isEqualTo("vllm");
      assertThat(s.url()).hasToString("http://127.0.0.1:8001/metrics");
      assertThat(s.gpus()).containsExactly(0, 1);
      assertThat(s.pids()).containsExactly(100L, 101L, 102L, 103L);
      assertThat(s.command()).startsWith("/usr/bin/python3 /usr/local/bin/vllm serve meta-llama/Llama-3.1-8B");
      assertThat(s.how()).contains("vllm serve (pid 100)").contains("--port 8001").contains("merged 4 processes");
      assertThat(s.containerId()).isNull();
    });
    assertThat(r.skipped()).isEmpty();
    assertThat(r.notes()).isEmpty();
  }

  @Test
  void discover_scopeAllWithoutNvml_findsRecognizedProcessesAndSaysGpusUnknown() {
    vllmV1();
    DiscoveryResult r = discovery(Scope.ALL, new FakeGpus("libnvidia-ml.so.1 not found"), null).discover();

    assertThat(r.servers()).singleElement().satisfies(s -> {
      assertThat(s.pids()).containsExactly(100L, 101L, 102L, 103L);
      assertThat(s.gpus()).isEmpty();
    });
    assertThat(r.notes()).containsExactly("NVML unavailable (libnvidia-ml.so.1 not found): GPU indices are unknown");
  }

  @Test
  void discover_scopeGpuWithoutNvml_onlyExplains() {
    vllmV1();
    DiscoveryResult none = new ProcessDiscovery(
        new DiscoveryConfig(true, Scope.GPU, tmp.toString()), tmp, null, null, clock).discover();
    assertThat(none.servers()).isEmpty();
    assertThat(none.notes()).containsExactly(
        "NVML unavailable (NVML receiver not running): scope gpu finds no servers; set inference.discovery.scope: all");

    DiscoveryResult failed = discovery(Scope.GPU, new FakeGpus("no GPU found"), null).discover();
    assertThat(failed.notes()).singleElement().asString().startsWith("NVML unavailable (no GPU found)");
  }

  @Test
  void discover_v0ForkedWorkersWithIdenticalCommandLines_mergeIntoParent() {
    String[] cmd = {"python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m", "--port", "8100"};
    proc.process(300, 1, 10, "python3", cmd)
        .process(301, 300, 20, "python3", cmd)
        .process(302, 300, 21, "python3", cmd);
    DiscoveryResult r = discovery(Scope.GPU, new FakeGpus().on(300, 0).on(301, 1).on(302, 2), null).discover();

    assertThat(r.servers()).singleElement().satisfies(s -> {
      assertThat(s.name()).isEqualTo("vllm-8100");
      assertThat(s.pids()).containsExactly(300L, 301L, 302L);
      assertThat(s.gpus()).containsExactly(0, 1, 2);
    });
  }

  @Test
  void discover_tgiLauncherRouterShards_urlFromRouterPrometheusPort() {
    proc.process(400, 1, 10, "text-generation", "text-generation-launcher", "--model-id", "m", "--num-shard", "2",
            "--port", "8080", "--prometheus-port", "9100")
        .process(401, 400, 20, "text-generation", "/opt/conda/bin/python3.11", "/opt/conda/bin/text-generation-server",
            "serve", "m", "--uds-path", "/tmp/text-generation-server", "--sharded")
        .process(402, 400, 21, "text-generation", "/opt/conda/bin/python3.11", "/opt/conda/bin/text-generation-server",
            "serve", "m", "--uds-path", "/tmp/text-generation-server", "--sharded")
        .process(403, 400, 30, "text-generation", "text-generation-router", "--port", "8080", "--prometheus-port",
            "9100", "--hostname", "0.0.0.0", "--master-shard-uds-path", "/tmp/text-generation-server-0");
    DiscoveryResult r = discovery(Scope.GPU, new FakeGpus().on(401, 0).on(402, 1), null).discover();

    assertThat(r.servers()).singleElement().satisfies(s -> {
      assertThat(s.name()).isEqualTo("tgi-9100");
      assertThat(s.url()).hasToString("http://127.0.0.1:9100/metrics");
      assertThat(s.pids()).containsExactly(400L, 401L, 402L);
      assertThat(s.gpus()).containsExactly(0, 1);
    });
    // Scope all sees the router too, and it owns the port.
    DiscoveryResult all = discovery(Scope.ALL, new FakeGpus().on(401, 0).on(402, 1), null).discover();
    assertThat(all.servers()).singleElement().satisfies(s -> {
      assertThat(s.pids()).containsExactly(400L, 401L, 402L, 403L);
      assertThat(s.how()).startsWith("text-generation-router (pid 403)");
    });
  }

  @Test
  void discover_sglangSchedulers_andSeveralIndependentServers() {
    proc.process(500, 1, 10, "python3", "python3", "-m", "sglang.launch_server", "--model-path", "m", "--port", "30001",
            "--host", "0.0.0.0", "--tp", "2", "--enable-metrics")
        .process(501, 500, 11, 'S', "sglang::schedul", "sglang::scheduler_TP0")
        .process(502, 500, 12, 'S', "sglang::schedul", "sglang::scheduler_TP1")
        .process(503, 500, 13, 'S', "sglang::detoken", "sglang::detokenizer")
        .process(600, 1, 20, "llama-server", "/opt/llama.cpp/llama-server", "-m", "q.gguf", "--metrics", "--port", "8081")
        .process(601, 1, 21, "llama-server", "/opt/llama.cpp/llama-server", "-m", "r.gguf", "--metrics", "--port", "8082");
    DiscoveryResult r = discovery(Scope.GPU, new FakeGpus().on(501, 0).on(502, 1).on(600, 2).on(601, 3), null).discover();

    assertThat(r.servers()).extracting(DiscoveredServer::name).containsExactly("llamacpp-8081", "llamacpp-8082", "sglang-30001");
    assertThat(r.servers().get(2).pids()).containsExactly(500L, 501L, 502L);
    assertThat(r.servers().get(2).gpus()).containsExactly(0, 1);
    assertThat(r.servers().get(2).url()).hasToString("http://127.0.0.1:30001/metrics");
    assertThat(r.servers().get(0).url()).hasToString("http://127.0.0.1:8081/metrics");
    assertThat(r.servers().get(1).gpus()).containsExactly(3);
  }

  @Test
  void discover_unrecognizedKernelThreadZombieAndVanishedGpuProcesses() {
    proc.process(700, 1, 10, "python3", "python3", "train.py")
        .process(701, 2, 11, 'S', "kworker/0:1", "")
        .process(702, 1, 12, 'Z', "llama-server", "");
    DiscoveryResult r = discovery(Scope.GPU, new FakeGpus().on(700, 0).on(701, 1).on(702, 1).on(799, 0), null).discover();

    assertThat(r.servers()).isEmpty();
    assertThat(r.skipped()).containsExactly(
        new SkippedProcess(700, "python3 train.py", "uses GPU 0 but its command is not a recognized inference server"),
        new SkippedProcess(701, "kworker/0:1", "uses GPU 1 but its command line is empty (kernel thread or exiting)"));
  }

  @Test
  void discover_noGpuProcessVisible_pointsAtTheHostPidNamespace() {
    proc.process(100, 1, 10, "bash", "bash");
    DiscoveryResult r = discovery(Scope.GPU, new FakeGpus().on(4000001, 0).on(4000002, 1), null).discover();
    assertThat(r.servers()).isEmpty();
    assertThat(r.notes()).containsExactly("none of the 2 GPU processes NVML reports is visible under " + tmp
        + ": run the agent in the host PID namespace (hostPID: true) or mount the host's /proc"
        + " and set inference.discovery.procRoot");
    // One that exited between NVML's sample and the scan is no reason for a note.
    proc.process(4000001, 1, 10, "python3", "python3", "train.py");
    assertThat(discovery(Scope.GPU, new FakeGpus().on(4000001, 0).on(4000002, 1), null).discover().notes()).isEmpty();
  }

  @Test
  void discover_orphanedEngineCore_isSkippedWithReason() {
    proc.process(800, 1, 10, "bash", "/bin/bash", "run.sh")
        .process(801, 800, 11, 'S', "VLLM::EngineCor", "VLLM::EngineCore")
        .process(802, 801, 12, 'S', "VLLM::Worker_TP", "VLLM::Worker_TP0");
    DiscoveryResult r = discovery(Scope.GPU, new FakeGpus().on(802, 0), null).discover();

    assertThat(r.servers()).isEmpty();
    assertThat(r.skipped()).singleElement().satisfies(s -> {
      assertThat(s.pid()).isEqualTo(801);
      assertThat(s.reason()).isEqualTo(
          "vllm helper processes (VLLM::EngineCore, VLLM::Worker_TP0) without their server process among their ancestors");
    });
  }

  @Test
  void discover_hostThatIsNoUrlHost_isSkippedWithReasonAndOthersFound() {
    // An underscore is legal in a host name on the command line but not in a URL's host.
    proc.process(950, 1, 10, "llama-server", "llama-server", "--host", "gpu_box", "--port", "8091")
        .process(951, 1, 11, "llama-server", "llama-server", "--port", "8092");
    DiscoveryResult r = discovery(Scope.ALL, new FakeGpus(), null).discover();

    assertThat(r.servers()).extracting(DiscoveredServer::name).containsExactly("llamacpp-8092");
    assertThat(r.skipped()).singleElement().satisfies(s -> {
      assertThat(s.pid()).isEqualTo(950);
      assertThat(s.reason()).isEqualTo(
          "its metrics URL can't be scraped: has no host: 'http://gpu_box:8091/metrics'");
    });
  }

  @Test
  void discover_unreadableCommandLine_recognizedByNameButPortUnknown() {
    proc.process(900, 1, 10, "llama-server", "llama-server", "--port", "8090")
        .process(901, 1, 11, "python3", "python3", "secret.py")
        .process(902, 1, 12, "vllm", "vllm", "serve", "m", "--port", "8111")
        .process(903, 902, 13, 'S', "VLLM::EngineCor", "VLLM::EngineCore");
    ProcFs denying = new ProcFs(tmp) {
      @Override
      Cmdline cmdline(long pid) {
        return pid == 902 ? super.cmdline(pid) : Cmdline.UNREADABLE;
      }
    };
    DiscoveryResult r = new ProcessDiscovery(new DiscoveryConfig(true, Scope.GPU, tmp.toString()), denying,
        () -> new FakeGpus().on(900, 0).on(901, 1).on(903, 2), null, clock).discover();

    // A helper recognized by its 15-character name still joins its server.
    assertThat(r.servers()).singleElement().satisfies(s -> {
      assertThat(s.name()).isEqualTo("vllm-8111");
      assertThat(s.pids()).containsExactly(902L, 903L);
      assertThat(s.gpus()).containsExactly(2);
    });
    assertThat(r.skipped()).extracting(SkippedProcess::pid, SkippedProcess::reason).containsExactly(
        org.assertj.core.groups.Tuple.tuple(900L,
            "looks like llamacpp (process name llama-server) but its command line is unreadable, so the port is unknown"),
        org.assertj.core.groups.Tuple.tuple(901L,
            "uses GPU 1 but its command line is unreadable (permission denied; run the agent as root or with hostPID)"));
  }

  @Test
  void discover_reusedPid_isReadAfresh_andUnchangedProcessIsNotReRead() {
    proc.process(1000, 1, 10, "llama-server", "llama-server", "--port", "8085");
    ProcessDiscovery d = discovery(Scope.ALL, new FakeGpus(), null);
    assertThat(d.discover().servers()).extracting(DiscoveredServer::name).containsExactly("llamacpp-8085");

    // Same pid, start time and name: the cached reading stands (the cmdline is not read again).
    proc.process(1000, 1, 10, "llama-server", "llama-server", "--port", "9999");
    assertThat(d.discover().servers()).extracting(DiscoveredServer::name).containsExactly("llamacpp-8085");

    // The pid is reused by another process (new start time): read afresh.
    proc.process(1000, 1, 11, "llama-server", "llama-server", "--port", "8086");
    assertThat(d.discover().servers()).extracting(DiscoveredServer::name).containsExactly("llamacpp-8086");

    proc.exit(1000);
    assertThat(d.discover().servers()).isEmpty();
  }

  @Test
  void discover_titleSetAfterStart_isSeenWhenTheNameChanges() {
    proc.process(1100, 1, 10, "vllm", "vllm", "serve", "m")
        .process(1101, 1100, 11, "python3", "python3", "-c", "from multiprocessing.spawn import spawn_main; spawn_main()",
            "--multiprocessing-fork");
    ProcessDiscovery d = discovery(Scope.ALL, new FakeGpus(), null);
    assertThat(d.discover().servers().get(0).pids()).containsExactly(1100L);

    proc.process(1101, 1100, 11, 'S', "VLLM::EngineCor", "VLLM::EngineCore");
    assertThat(d.discover().servers().get(0).pids()).containsExactly(1100L, 1101L);
  }

  // ------------------------------------------------------------------ containers and pods

  private static final class Pods implements PodLookup {
    final Map<String, PodInfo> byId = new HashMap<>();
    String problem;
    int refreshes;

    @Override
    public void refreshIfDue() {
      refreshes++;
    }

    @Override
    public PodInfo find(String containerId, String podUid) {
      PodInfo p = byId.get(containerId);
      return p != null ? p : byId.get(podUid);
    }

    @Override
    public String problem() {
      return problem;
    }

    @Override
    public String source() {
      return "test pods";
    }
  }

  private void containerizedVllm(long pid, String host, String cgroup) {
    if (host == null) {
      proc.process(pid, 1, 10, "vllm", "vllm", "serve", "m", "--port", "8000");
    } else {
      proc.process(pid, 1, 10, "vllm", "vllm", "serve", "m", "--port", "8000", "--host", host);
    }
    proc.cgroup(pid, cgroup).netns(Long.toString(pid), "net:[4026532777]");
  }

  @Test
  void discover_containerWithPodIp_urlUsesPodIpAndNameThePod() {
    containerizedVllm(1200, null, "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
        + UID.replace('-', '_') + ".slice/cri-containerd-" + ID + ".scope\n");
    Pods pods = new Pods();
    pods.byId.put(ID, new PodInfo("llm", "chat-7f9c", UID, "10.244.1.17", false));
    DiscoveryResult r = discovery(Scope.GPU, new FakeGpus().on(1200, 0), pods).discover();

    assertThat(r.servers()).singleElement().satisfies(s -> {
      assertThat(s.name()).isEqualTo("llm/chat-7f9c:8000");
      assertThat(s.url()).hasToString("http://10.244.1.17:8000/metrics");
      assertThat(s.containerId()).isEqualTo(ID);
      assertThat(s.how()).contains("in pod llm/chat-7f9c, pod IP 10.244.1.17");
    });
    assertThat(pods.refreshes).isEqualTo(1);
  }

  @Test
  void discover_containerWithoutKnownPodIp_isSkippedWithReason() {
    containerizedVllm(1300, null, "12:memory:/docker/" + ID + "\n");
    Pods pods = new Pods();
    DiscoveryResult r = discovery(Scope.GPU, new FakeGpus().on(1300, 0), pods).discover();
    assertThat(r.servers()).isEmpty();
    assertThat(r.skipped()).singleElement().satisfies(s -> {
      assertThat(s.pid()).isEqualTo(1300);
      assertThat(s.reason()).isEqualTo("container 713a77a26fe2 has no known pod IP: no pod from test pods runs it");
    });

    pods.problem = "pod list from kubelet failed: HTTP 403";
    assertThat(discovery(Scope.GPU, new FakeGpus().on(1300, 0), pods).discover().skipped().get(0).reason())
        .isEqualTo("container 713a77a26fe2 has no known pod IP: pod list from kubelet failed: HTTP 403");

    DiscoveryResult off = discovery(Scope.GPU, new FakeGpus().on(1300, 0), null).discover();
    assertThat(off.skipped().get(0).reason())
        .isEqualTo("container 713a77a26fe2 has no known pod IP: Kubernetes lookups are off (kubernetes.enabled)");
  }

  @Test
  void discover_containerInAgentsNetworkNamespace_usesLoopback() {
    containerizedVllm(1400, null, "0::/system.slice/docker-" + ID + ".scope\n");
    proc.netns("1400", FakeProc.HOST_NET);
    DiscoveryResult r = discovery(Scope.GPU, new FakeGpus().on(1400, 0), null).discover();
    assertThat(r.servers()).singleElement().satisfies(s -> {
      assertThat(s.url()).hasToString("http://127.0.0.1:8000/metrics");
      assertThat(s.containerId()).isEqualTo(ID);
      assertThat(s.how()).contains("same network namespace as the agent");
    });
  }

  @Test
  void discover_podListeningOnLoopback_isSkipped_hostNetworkPodIsNot() {
    containerizedVllm(1500, "127.0.0.1", "0::/kubepods/besteffort/pod" + UID + "/crio-" + ID + ".scope\n");
    Pods pods = new Pods();
    pods.byId.put(UID, new PodInfo("llm", "small", UID, "10.0.0.9", false));
    DiscoveryResult r = discovery(Scope.GPU, new FakeGpus().on(1500, 0), pods).discover();
    assertThat(r.servers()).isEmpty();
    assertThat(r.skipped().get(0).reason()).isEqualTo(
        "listens on 127.0.0.1 inside pod llm/small, unreachable from the agent (start it with a wildcard host such as 0.0.0.0)");

    pods.byId.put(UID, new PodInfo("llm", "small", UID, "192.168.0.4", true));
    DiscoveryResult host = discovery(Scope.GPU, new FakeGpus().on(1500, 0), pods).discover();
    assertThat(host.servers()).singleElement().satisfies(s -> {
      assertThat(s.name()).isEqualTo("llm/small:8000");
      assertThat(s.url()).hasToString("http://127.0.0.1:8000/metrics");
      assertThat(s.how()).contains("host network, loopback");
    });
    // Bound to every interface, a host-network server is reached at the node IP (its pod IP).
    containerizedVllm(1501, "0.0.0.0", "0::/kubepods/besteffort/pod" + UID + "/crio-" + ID + ".scope\n");
    DiscoveryResult wildcard = discovery(Scope.GPU, new FakeGpus().on(1501, 0), pods).discover();
    assertThat(wildcard.servers()).singleElement().satisfies(s -> {
      assertThat(s.url()).hasToString("http://192.168.0.4:8000/metrics");
      assertThat(s.how()).contains("(host network), node IP 192.168.0.4");
    });
  }

  @Test
  void discover_podWithoutIpYet_isSkipped() {
    containerizedVllm(1600, null, "11:devices:/system.slice/containerd.service/kubepods-pod"
        + UID.replace('-', '_') + ".slice:cri-containerd:" + ID + "\n");
    Pods pods = new Pods();
    pods.byId.put(ID, new PodInfo("llm", "pending", UID, null, false));
    assertThat(discovery(Scope.GPU, new FakeGpus().on(1600, 0), pods).discover().skipped().get(0).reason())
        .isEqualTo("container 713a77a26fe2 is in pod llm/pending, which has no IP yet");
  }

  @Test
  void discover_disabled_saysSo() {
    DiscoveryResult r = new ProcessDiscovery(new DiscoveryConfig(false, Scope.ALL, tmp.toString()), tmp, null, null, clock)
        .discover();
    assertThat(r.servers()).isEmpty();
    assertThat(r.notes()).containsExactly("discovery is off (inference.discovery.enabled: false)");
  }

  @Test
  void discover_missingProcRoot_isANoteNotACrash() {
    DiscoveryResult r = new ProcessDiscovery(
        new DiscoveryConfig(true, Scope.ALL, "/nonexistent"), Path.of("/nonexistent/proc"), () -> new FakeGpus(), null, clock)
        .discover();
    assertThat(r.servers()).isEmpty();
    assertThat(r.notes()).singleElement().asString().startsWith("can't list /nonexistent/proc");
  }
}
