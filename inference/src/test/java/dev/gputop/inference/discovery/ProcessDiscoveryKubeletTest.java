package dev.gputop.inference.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.ManualClock;
import com.sun.net.httpserver.HttpServer;
import dev.gputop.config.DiscoveryConfig;
import dev.gputop.config.DiscoveryConfig.Scope;
import dev.gputop.config.KubernetesConfig;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery as the agent builds it (the public constructor), over a fake /proc of containerized
 * servers, with pod IPs from an in-test kubelet serving a real pod list over HTTP.
 */
@Timeout(60)
class ProcessDiscoveryKubeletTest {

  static final String VLLM_ID = "713a77a26fe2f3b4b0e0fa1a2b2c3d4e5f60718293a4b5c6d7e8f9001122733c";
  static final String TGI_ID = "dc679f8a8319c8cf7d38e1adf263bc08d23f6bdbb71c4c2c8e9cd2e6c2c9b956";
  static final String UNKNOWN_ID = "3333333333333333333333333333333333333333333333333333333333333333";

  @TempDir Path tmp;
  HttpServer kubelet;
  final AtomicInteger listed = new AtomicInteger();
  final ManualClock clock = new ManualClock(1_000_000_000L, 1_700_000_001_000_000_000L);

  @BeforeEach
  void setUp() throws Exception {
    byte[] pods;
    try (InputStream in = getClass().getResourceAsStream("/discovery/kubernetes/pods.json")) {
      pods = in.readAllBytes();
    }
    kubelet = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    kubelet.createContext("/pods", ex -> {
      listed.incrementAndGet();
      ex.sendResponseHeaders(200, pods.length);
      ex.getResponseBody().write(pods);
      ex.close();
    });
    kubelet.start();

    new FakeProc(tmp)
        // vLLM in pod llm/chat-7f9c (containerd, systemd driver, cgroup v2).
        .process(2000, 1, 10, "vllm", "vllm", "serve", "m", "--port", "8000")
        .cgroup(2000, "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod4415fd05_2c0f_4533_909b_f2180dca8d7c"
            + ".slice/cri-containerd-" + VLLM_ID + ".scope\n")
        .netns("2000", "net:[4026532001]")
        // TGI router in the host-network pod llm/tgi-0 (CRI-O).
        .process(2100, 1, 20, "text-generation", "text-generation-router", "--port", "80", "--prometheus-port", "9000")
        .cgroup(2100, "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod87a18a64_b74a_454a_b10b_a4a36059d0a3"
            + ".slice/crio-" + TGI_ID + ".scope\n")
        // llama-server in a Docker container no pod runs (cgroup v1, cgroupfs driver).
        .process(2200, 1, 30, "llama-server", "llama-server", "--host", "0.0.0.0", "--port", "8080")
        .cgroup(2200, "12:memory:/docker/" + UNKNOWN_ID + "\n11:cpu:/docker/" + UNKNOWN_ID + "\n")
        .netns("2200", "net:[4026532002]")
        // And one on the host itself.
        .process(2300, 1, 40, "llama-server", "llama-server", "--port", "8081");
  }

  @AfterEach
  void tearDown() {
    kubelet.stop(0);
  }

  @Test
  void discover_containerizedServersAtTheirPodIps_unknownContainerSkipped() {
    KubernetesConfig k8s = new KubernetesConfig(true, null, "http://127.0.0.1:" + kubelet.getAddress().getPort(), null,
        null, null, false, Duration.ofSeconds(30));
    ProcessDiscovery d = new ProcessDiscovery(new DiscoveryConfig(true, Scope.ALL, tmp.toString()), k8s,
        () -> new FakeGpus().on(2000, 0).on(2100, 1), clock);

    DiscoveryResult r = d.discover();

    assertThat(r.servers()).extracting(DiscoveredServer::name, s -> s.url().toString(), DiscoveredServer::gpus)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("llamacpp-8081", "http://127.0.0.1:8081/metrics", java.util.List.of()),
            org.assertj.core.groups.Tuple.tuple("llm/chat-7f9c:8000", "http://10.244.1.17:8000/metrics", java.util.List.of(0)),
            org.assertj.core.groups.Tuple.tuple("llm/tgi-0:9000", "http://192.168.0.4:9000/metrics", java.util.List.of(1)));
    assertThat(r.skipped()).singleElement().satisfies(s -> {
      assertThat(s.pid()).isEqualTo(2200);
      assertThat(s.command()).isEqualTo("llama-server --host 0.0.0.0 --port 8080");
      assertThat(s.reason()).isEqualTo("container 333333333333 has no known pod IP: no pod from kubelet http://127.0.0.1:"
          + kubelet.getAddress().getPort() + "/pods runs it");
    });
    assertThat(r.notes()).isEmpty();
    // Each containerized server names its pod and container (the container's name from the pod's
    // containerStatuses, matched by the container ID in the process's cgroup).
    assertThat(r.servers()).extracting(DiscoveredServer::pod).containsExactly(
        null,
        new dev.gputop.config.PodIdentity("llm", "chat-7f9c", "vllm", "4415fd05-2c0f-4533-909b-f2180dca8d7c"),
        new dev.gputop.config.PodIdentity("llm", "tgi-0", "tgi", "87a18a64-b74a-454a-b10b-a4a36059d0a3"));

    // The pod list is fetched once per kubernetes.refresh, not once per pass.
    d.discover();
    assertThat(listed).hasValue(1);
    clock.advance(Duration.ofSeconds(30));
    d.discover();
    assertThat(listed).hasValue(2);
  }

  @Test
  void discover_kubernetesHalfConfigured_isANoteAndContainersAreSkipped() {
    KubernetesConfig noNode = new KubernetesConfig(true, null, null, "https://10.96.0.1:443", null, null, false,
        Duration.ofSeconds(30));
    DiscoveryResult r = new ProcessDiscovery(new DiscoveryConfig(true, Scope.ALL, tmp.toString()), noNode,
        () -> new FakeGpus(), clock).discover();

    assertThat(r.servers()).extracting(DiscoveredServer::name).containsExactly("llamacpp-8081");
    assertThat(r.notes()).singleElement().asString().startsWith("Kubernetes pod lookups are off: kubernetes.nodeName is not set");
    assertThat(r.skipped()).extracting(SkippedProcess::pid).containsExactly(2000L, 2100L, 2200L);
    assertThat(r.skipped().get(0).reason()).startsWith("container 713a77a26fe2 has no known pod IP: Kubernetes lookups are off (");
  }
}
