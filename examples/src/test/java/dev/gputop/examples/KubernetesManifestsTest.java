package dev.gputop.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigLoader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes manifests: schema-valid, least-privilege RBAC, and a DaemonSet that has what the
 * agent needs on a GPU node (host PID namespace, the NVIDIA runtime, GPU nodes only, its node name,
 * the ConfigMap's agent.yaml, which the agent's own loader accepts).
 */
class KubernetesManifestsTest {

  private final List<JsonNode> docs = Examples.yamlDocuments("kubernetes/gputop-agent.yaml");
  private final Map<String, JsonNode> byKind = new LinkedHashMap<>();

  KubernetesManifestsTest() {
    for (JsonNode d : docs) {
      byKind.put(d.path("kind").asText(), d);
    }
  }

  @Test
  void manifests_matchTheKubernetesSchema() {
    var schema = Schemas.load("kubernetes.schema.json");
    for (JsonNode d : docs) {
      Schemas.assertValid(schema, d, d.path("kind").asText() + " " + d.path("metadata").path("name").asText());
    }
    assertThat(byKind.keySet()).containsExactly("Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap", "DaemonSet");
    assertThat(docs).hasSize(byKind.size());
  }

  @Test
  void clusterRole_onlyReadsPods() {
    JsonNode rules = byKind.get("ClusterRole").path("rules");
    assertThat(rules).hasSize(1);
    JsonNode rule = rules.get(0);
    assertThat(strings(rule.path("apiGroups"))).containsExactly("");
    assertThat(strings(rule.path("resources"))).containsExactly("pods");
    // The agent lists its node's pods from the API server; nothing else.
    assertThat(strings(rule.path("verbs"))).containsExactly("list");
  }

  @Test
  void binding_grantsTheRoleToTheDaemonSetsServiceAccount() {
    JsonNode binding = byKind.get("ClusterRoleBinding");
    JsonNode sa = byKind.get("ServiceAccount");
    assertThat(binding.path("roleRef").path("name").asText()).isEqualTo(byKind.get("ClusterRole").path("metadata").path("name").asText());
    JsonNode subject = binding.path("subjects").get(0);
    assertThat(subject.path("kind").asText()).isEqualTo("ServiceAccount");
    assertThat(subject.path("name").asText()).isEqualTo(sa.path("metadata").path("name").asText());
    assertThat(subject.path("namespace").asText()).isEqualTo(sa.path("metadata").path("namespace").asText());
    assertThat(podSpec().path("serviceAccountName").asText()).isEqualTo(sa.path("metadata").path("name").asText());
    String ns = byKind.get("Namespace").path("metadata").path("name").asText();
    for (String kind : List.of("ServiceAccount", "ConfigMap", "DaemonSet")) {
      assertThat(byKind.get(kind).path("metadata").path("namespace").asText()).as(kind).isEqualTo(ns);
    }
  }

  @Test
  void daemonSet_hasHostPidTheNvidiaRuntimeAndRunsOnGpuNodesOnly() {
    JsonNode spec = podSpec();
    assertThat(spec.path("hostPID").asBoolean()).isTrue();
    assertThat(spec.path("hostNetwork").asBoolean()).as("pod IPs are reached from the pod network").isFalse();
    assertThat(spec.path("runtimeClassName").asText()).isEqualTo("nvidia");
    assertThat(spec.path("nodeSelector").size()).isPositive();
    JsonNode ds = byKind.get("DaemonSet").path("spec");
    ds.path("selector").path("matchLabels").fields().forEachRemaining(e ->
        assertThat(ds.path("template").path("metadata").path("labels").path(e.getKey()).asText()).isEqualTo(e.getValue().asText()));
  }

  /**
   * A pod's deletion sends SIGTERM, as {@code systemctl stop} does; the agent flushes and exits 0
   * within 5 s (README, Exit codes; ShadedJarIT), so the grace period must outlast that before the
   * kubelet's SIGKILL (137) would cut the last export short.
   */
  @Test
  void daemonSet_givesTheAgentsStopMoreThanItsFiveSeconds() {
    assertThat(podSpec().path("terminationGracePeriodSeconds").asInt()).isGreaterThan(5);
  }

  @Test
  void container_getsItsNodeNameAndRunsUnprivileged_withoutAllocatingAGpu() {
    JsonNode c = podSpec().path("containers").get(0);
    Map<String, JsonNode> env = new LinkedHashMap<>();
    c.path("env").forEach(e -> env.put(e.path("name").asText(), e));
    assertThat(env.get("NODE_NAME").path("valueFrom").path("fieldRef").path("fieldPath").asText()).isEqualTo("spec.nodeName");
    assertThat(env.get("NVIDIA_VISIBLE_DEVICES").path("value").asText()).isEqualTo("all");
    JsonNode sc = c.path("securityContext");
    assertThat(sc.path("privileged").asBoolean()).isFalse();
    assertThat(sc.path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(sc.path("allowPrivilegeEscalation").asBoolean()).isFalse();
    assertThat(strings(sc.path("capabilities").path("drop"))).containsExactly("ALL");
    assertThat(sc.path("capabilities").has("add")).isFalse();
    assertThat(c.path("resources").path("limits").has("nvidia.com/gpu")).isFalse();
    assertThat(c.path("resources").path("requests").has("nvidia.com/gpu")).isFalse();
  }

  @Test
  void configMap_holdsAnAgentYamlThatTheAgentAccepts_andTheContainerUsesIt() {
    JsonNode cm = byKind.get("ConfigMap");
    AgentConfig config = new ConfigLoader().parse(cm.path("data").path("agent.yaml").asText(), Map.of());
    assertThat(config.kubernetes().enabled()).isTrue();
    assertThat(config.inference().discovery().enabled()).isTrue();
    assertThat(config.listen()).startsWith("0.0.0.0:");
    int port = Integer.parseInt(config.listen().substring(config.listen().lastIndexOf(':') + 1));

    JsonNode c = podSpec().path("containers").get(0);
    assertThat(c.path("ports").get(0).path("containerPort").asInt()).isEqualTo(port);
    // Liveness asks /livez (the process and listener), readiness /readyz (receivers, exports).
    String portName = c.path("ports").get(0).path("name").asText();
    assertThat(c.path("livenessProbe").path("httpGet").path("path").asText()).isEqualTo("/livez");
    assertThat(c.path("livenessProbe").path("httpGet").path("port").asText()).isEqualTo(portName);
    assertThat(c.path("readinessProbe").path("httpGet").path("path").asText()).isEqualTo("/readyz");
    assertThat(c.path("readinessProbe").path("httpGet").path("port").asText()).isEqualTo(portName);
    // Both are answered without credentials, whatever listener.auth says.
    assertThat(config.listener().exemptPaths()).contains("/livez", "/readyz");
    assertThat(byKind.get("DaemonSet").path("spec").path("template").path("metadata").path("annotations")
        .path("prometheus.io/port").asText()).isEqualTo(String.valueOf(port));

    String volume = null;
    for (JsonNode v : podSpec().path("volumes")) {
      if (v.path("configMap").path("name").asText().equals(cm.path("metadata").path("name").asText())) {
        volume = v.path("name").asText();
      }
    }
    assertThat(volume).as("a volume of the ConfigMap").isNotNull();
    String mountPath = null;
    for (JsonNode m : c.path("volumeMounts")) {
      if (m.path("name").asText().equals(volume)) {
        mountPath = m.path("mountPath").asText();
      }
    }
    assertThat(strings(c.path("args"))).containsSubsequence("run", "--config", mountPath + "/agent.yaml");
  }

  @Test
  void dockerfile_packagesTheShadedJarThatTheImageRuns() {
    String dockerfile = Examples.read(Examples.file("kubernetes/Dockerfile"));
    assertThat(dockerfile).contains("COPY agent/target/gputop-agent.jar /opt/gputop-agent/gputop-agent.jar")
        .contains("\"-jar\", \"/opt/gputop-agent/gputop-agent.jar\"").containsPattern("(?m)^USER 65534");
  }

  @Test
  void prometheusScrapeConfig_keepsTheAgentsMetricsPort() {
    JsonNode job = Examples.yaml("kubernetes/prometheus.yml").path("scrape_configs").get(0);
    assertThat(job.path("job_name").asText()).isEqualTo(Examples.AGENT_JOB);
    String portName = podSpec().path("containers").get(0).path("ports").get(0).path("name").asText();
    boolean keepsPort = false;
    for (JsonNode r : job.path("relabel_configs")) {
      if (r.path("action").asText().equals("keep") && r.path("regex").asText().equals(portName)) {
        keepsPort = true;
      }
    }
    assertThat(keepsPort).isTrue();
    assertThat(job.path("kubernetes_sd_configs").get(0).path("namespaces").path("names").get(0).asText())
        .isEqualTo(byKind.get("Namespace").path("metadata").path("name").asText());
  }

  private JsonNode podSpec() {
    return byKind.get("DaemonSet").path("spec").path("template").path("spec");
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
