package dev.gputop.inference.discovery.internal.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.gputop.testing.ManualClock;
import dev.gputop.config.KubernetesConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The pod lookup against an in-test kubelet / API server serving pod lists over real HTTP. */
@Timeout(60)
class KubernetesPodsTest {

  static final String VLLM_ID = "713a77a26fe2f3b4b0e0fa1a2b2c3d4e5f60718293a4b5c6d7e8f9001122733c";
  static final String TGI_ID = "dc679f8a8319c8cf7d38e1adf263bc08d23f6bdbb71c4c2c8e9cd2e6c2c9b956";
  static final String DOCKER_ID = "2222222222222222222222222222222222222222222222222222222222222222";

  @TempDir Path tmp;
  HttpServer server;
  byte[] podList;
  final AtomicInteger status = new AtomicInteger(200);
  final List<String> requests = new CopyOnWriteArrayList<>();
  final List<String> authorizations = new CopyOnWriteArrayList<>();
  final ManualClock clock = new ManualClock(5_000_000_000L, 5_000_000_000L);
  Path token;

  @BeforeEach
  void setUp() throws IOException {
    try (InputStream in = getClass().getResourceAsStream("/discovery/kubernetes/pods.json")) {
      podList = in.readAllBytes();
    }
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
    token = tmp.resolve("token");
    Files.writeString(token, "s3cret-token\n");
  }

  @AfterEach
  void tearDown() {
    server.stop(0);
  }

  private void handle(HttpExchange ex) throws IOException {
    requests.add(ex.getRequestURI().toString());
    authorizations.add(String.valueOf(ex.getRequestHeaders().getFirst("Authorization")));
    byte[] body = status.get() == 200 ? podList : "{\"kind\":\"Status\",\"code\":403}".getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(status.get(), body.length);
    ex.getResponseBody().write(body);
    ex.close();
  }

  private String base() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private KubernetesConfig kubelet() {
    return new KubernetesConfig(true, null, base(), null, token.toString(), null, false, Duration.ofSeconds(30));
  }

  @Test
  void find_fromKubeletPods_byContainerIdOfEveryRuntimeAndByPodUid() {
    KubernetesPods pods = KubernetesPods.create(kubelet(), clock, Map.<String, String>of()::get);
    pods.refreshIfDue();

    assertThat(pods.problem()).isNull();
    assertThat(pods.source()).isEqualTo("kubelet " + base() + "/pods");
    assertThat(requests).containsExactly("/pods");
    assertThat(authorizations).containsExactly("Bearer s3cret-token");
    assertThat(pods.find(VLLM_ID, null))
        .isEqualTo(new PodInfo("llm", "chat-7f9c", "4415fd05-2c0f-4533-909b-f2180dca8d7c", "10.244.1.17", false));
    assertThat(pods.find(TGI_ID, null)).satisfies(p -> {
      assertThat(p.qualifiedName()).isEqualTo("llm/tgi-0");
      assertThat(p.hostNetwork()).isTrue();
    });
    assertThat(pods.find(DOCKER_ID, null).podIp()).isEqualTo("10.244.1.30");
    assertThat(pods.find("1111111111111111111111111111111111111111111111111111111111111111", null).name())
        .isEqualTo("chat-7f9c");
    // A container the statuses don't list yet is still found through the pod UID from its cgroup.
    assertThat(pods.find("ffff", "00000000-0000-0000-0000-000000000001"))
        .isEqualTo(new PodInfo("batch", "pending", "00000000-0000-0000-0000-000000000001", null, false));
    assertThat(pods.find("ffff", null)).isNull();
    assertThat(pods.find(null, null)).isNull();
  }

  @Test
  void create_apiServerModeAsksForThisNodesPodsOnly() {
    KubernetesConfig cfg =
        new KubernetesConfig(true, "gpu-node-1", null, base() + "/", token.toString(), null, false, Duration.ofSeconds(30));
    KubernetesPods pods = KubernetesPods.create(cfg, clock, Map.<String, String>of()::get);
    pods.refreshIfDue();

    assertThat(requests).containsExactly("/api/v1/pods?fieldSelector=spec.nodeName%3Dgpu-node-1");
    assertThat(pods.source()).isEqualTo("API server " + base() + " (node gpu-node-1)");
    assertThat(pods.find(VLLM_ID, null).podIp()).isEqualTo("10.244.1.17");
  }

  @Test
  void refreshIfDue_fetchesOncePerRefreshInterval_andRereadsTheRotatedToken() throws IOException {
    KubernetesPods pods = KubernetesPods.create(kubelet(), clock, Map.<String, String>of()::get);
    pods.refreshIfDue();
    pods.refreshIfDue();
    clock.advance(Duration.ofSeconds(29));
    pods.refreshIfDue();
    assertThat(requests).hasSize(1);

    Files.writeString(token, "rotated");
    clock.advance(Duration.ofSeconds(1));
    pods.refreshIfDue();
    assertThat(requests).hasSize(2);
    assertThat(authorizations).containsExactly("Bearer s3cret-token", "Bearer rotated");
  }

  @Test
  void refreshIfDue_forbidden_isAProblemWithAnRbacHint_thenKeepsTheLastGoodList() {
    status.set(403);
    KubernetesPods pods = KubernetesPods.create(kubelet(), clock, Map.<String, String>of()::get);
    pods.refreshIfDue();
    assertThat(pods.problem()).isEqualTo("pod list from kubelet " + base() + "/pods failed: HTTP 403"
        + " (the service account needs nodes/proxy, or nodes/pods on Kubernetes 1.33+ with fine-grained kubelet authorization)");
    assertThat(pods.find(VLLM_ID, null)).isNull();

    status.set(200);
    clock.advance(Duration.ofSeconds(30));
    pods.refreshIfDue();
    assertThat(pods.problem()).isNull();

    status.set(403);
    clock.advance(Duration.ofSeconds(30));
    pods.refreshIfDue();
    assertThat(pods.problem()).isNull();
    assertThat(pods.find(VLLM_ID, null)).isNotNull();
  }

  @Test
  void refreshIfDue_unreachableOrGarbage_isAProblem() throws IOException {
    podList = "[1,2]".getBytes(StandardCharsets.UTF_8);
    KubernetesPods garbage = KubernetesPods.create(kubelet(), clock, Map.<String, String>of()::get);
    garbage.refreshIfDue();
    assertThat(garbage.problem()).endsWith("failed: not a PodList: no items[]");

    int port = server.getAddress().getPort();
    server.stop(0);
    KubernetesConfig gone =
        new KubernetesConfig(true, null, "http://127.0.0.1:" + port, null, null, null, false, Duration.ofSeconds(30));
    KubernetesPods down = KubernetesPods.create(gone, clock, Map.<String, String>of()::get);
    down.refreshIfDue();
    assertThat(down.problem()).startsWith("pod list from kubelet http://127.0.0.1:" + port + "/pods failed: ");
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
  }

  @Test
  void create_autoDetectsTheCluster() {
    KubernetesConfig auto = KubernetesConfig.defaults();
    assertThat(KubernetesPods.create(auto, clock, Map.<String, String>of()::get)).isNull();
    assertThat(KubernetesPods.create(
        new KubernetesConfig(false, null, base(), null, null, null, false, Duration.ofSeconds(30)), clock,
        Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1")::get)).isNull();

    KubernetesPods inCluster = KubernetesPods.create(auto, clock,
        Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "6443", "NODE_NAME", "n1")::get);
    assertThat(inCluster.source()).isEqualTo("API server https://10.96.0.1:6443 (node n1)");

    KubernetesPods v6 = KubernetesPods.create(auto, clock,
        Map.of("KUBERNETES_SERVICE_HOST", "fd00::1", "NODE_NAME", "n1")::get);
    assertThat(v6.source()).isEqualTo("API server https://[fd00::1]:443 (node n1)");

    assertThatThrownBy(() -> KubernetesPods.create(auto, clock, Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1")::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("NODE_NAME");
    assertThatThrownBy(() -> KubernetesPods.create(
        new KubernetesConfig(true, "n1", null, null, null, null, false, Duration.ofSeconds(30)), clock,
        Map.<String, String>of()::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("kubernetes.kubeletUrl");
  }

  @Test
  void stripRuntime_knownPrefixes() {
    assertThat(PodList.stripRuntime("containerd://abc")).isEqualTo("abc");
    assertThat(PodList.stripRuntime("docker://abc")).isEqualTo("abc");
    assertThat(PodList.stripRuntime("cri-o://abc")).isEqualTo("abc");
    assertThat(PodList.stripRuntime("other://abc")).isEqualTo("abc");
    assertThat(PodList.stripRuntime("")).isNull();
  }
}
