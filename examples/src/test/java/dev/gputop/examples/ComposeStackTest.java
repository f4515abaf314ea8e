package dev.gputop.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The docker-compose stack: schema-valid, the five services, and every file, port and name that
 * one service takes from another actually matching (bind mounts exist, the datasource URL is the
 * Prometheus service, the Collector's endpoints are set, the agent's listen port is published).
 */
class ComposeStackTest {

  private final Path composeDir = Examples.dir().resolve("docker-compose");
  private final JsonNode compose = Examples.yaml("docker-compose/docker-compose.yml");
  private final JsonNode services = compose.path("services");

  @Test
  void composeFiles_matchTheComposeSchema() {
    var schema = Schemas.load("compose.schema.json");
    Schemas.assertValid(schema, compose, "docker-compose.yml");
    Schemas.assertValid(schema, Examples.yaml("docker-compose/docker-compose.gpu.yml"), "docker-compose.gpu.yml");
  }

  @Test
  void stack_hasTheFiveServices_withPinnedImages() {
    Set<String> names = new TreeSet<>();
    services.fieldNames().forEachRemaining(names::add);
    assertThat(names).containsExactlyInAnyOrder("agent", "otel-collector", "prometheus", "grafana", "jaeger");
    for (String name : names) {
      assertThat(services.path(name).path("image").asText()).as(name + " image").matches("[a-z0-9./_-]+:[0-9v][A-Za-z0-9._-]*");
      for (JsonNode dep : services.path(name).path("depends_on")) {
        assertThat(names).as(name + " depends on").contains(dep.asText());
      }
    }
  }

  @Test
  void bindMounts_pointAtFilesInTheRepository() {
    for (String file : List.of("docker-compose.yml", "docker-compose.gpu.yml")) {
      JsonNode svcs = Examples.yaml("docker-compose/" + file).path("services");
      svcs.fields().forEachRemaining(e -> {
        for (JsonNode v : e.getValue().path("volumes")) {
          String source = v.asText().split(":")[0];
          Path p = composeDir.resolve(source).normalize();
          if (source.endsWith("gputop-agent.jar")) {
            // A build output: the jar the agent module's shade plugin writes.
            assertThat(p).isEqualTo(Examples.dir().resolve("../agent/target/gputop-agent.jar").normalize());
          } else {
            assertThat(Files.exists(p)).as(file + " " + e.getKey() + " mounts " + p).isTrue();
          }
        }
      });
    }
  }

  @Test
  void agent_listensOnThePublishedPort_withAValidConfiguration() {
    AgentConfig config = new ConfigLoader().parse(Examples.read(Examples.file("docker-compose/agent/agent.yaml")), Map.of());
    assertThat(config.listen()).startsWith("0.0.0.0:");
    String port = config.listen().substring(config.listen().lastIndexOf(':') + 1);
    assertThat(services.path("agent").path("ports").get(0).asText()).isEqualTo(port + ":" + port);
    JsonNode prometheusConfig = Examples.yaml("docker-compose/prometheus/prometheus.yml");
    assertThat(prometheusConfig.path("scrape_configs").get(0).path("static_configs").get(0).path("targets").get(0).asText())
        .isEqualTo("agent:" + port);
    JsonNode gpu = Examples.yaml("docker-compose/prometheus/prometheus.gpu.yml");
    assertThat(gpu.path("scrape_configs").get(0).path("static_configs").get(0).path("targets").get(0).asText())
        .isEqualTo("host.docker.internal:" + port);
    List<String> command = new ArrayList<>();
    services.path("agent").path("command").forEach(c -> command.add(c.asText()));
    assertThat(command).containsSubsequence("-jar", "/opt/gputop-agent/gputop-agent.jar", "demo", "--config", "/etc/gputop-agent/agent.yaml");
    assertThat(mounts("agent")).containsKey("/etc/gputop-agent/agent.yaml");
  }

  /**
   * The healthcheck asks /livez, and its shell command works: run by bash against a server on a
   * free port (the command's port swapped for it) that answers /livez 200 or 503.
   */
  @Test
  void agent_healthcheckProbesLivez_andTheCommandTellsAnswerFromFailure() throws Exception {
    List<String> test = new ArrayList<>();
    services.path("agent").path("healthcheck").path("test").forEach(c -> test.add(c.asText()));
    assertThat(test).hasSize(4).startsWith("CMD", "bash", "-c");
    assertThat(test.get(3)).contains("GET /livez ").contains("/dev/tcp/127.0.0.1/9464");
    java.util.concurrent.atomic.AtomicInteger status = new java.util.concurrent.atomic.AtomicInteger(200);
    com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/livez", e -> {
      e.sendResponseHeaders(status.get(), -1);
      e.close();
    });
    server.start();
    try {
      String command = test.get(3).replace("/9464", "/" + server.getAddress().getPort());
      assertThat(bash(command)).as("200").isZero();
      status.set(503);
      assertThat(bash(command)).as("503").isNotZero();
    } finally {
      server.stop(0);
    }
  }

  private static int bash(String command) throws Exception {
    Process p = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    assertThat(p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    return p.exitValue();
  }

  @Test
  void agent_pushesOtlpToTheCollectorsHttpReceiver() {
    JsonNode env = services.path("agent").path("environment");
    assertThat(env.path("OTEL_EXPORTER_OTLP_ENDPOINT").asText()).isEqualTo("http://otel-collector:4318");
    assertThat(env.path("OTEL_EXPORTER_OTLP_PROTOCOL").asText()).isEqualTo("http/protobuf");
    JsonNode collector = Examples.yaml("collector/otel-collector.yaml");
    assertThat(collector.path("receivers").path("otlp").path("protocols").path("http").path("endpoint").asText()).endsWith(":4318");
    assertThat(mounts("otel-collector")).containsEntry("/etc/otelcol-contrib/config.yaml", "../collector/otel-collector.yaml");
  }

  @Test
  void collector_getsEveryEnvironmentVariableItsConfigurationReads() {
    Matcher m = Pattern.compile("\\$\\{env:(\\w+)}").matcher(Examples.read(Examples.file("collector/otel-collector.yaml")));
    JsonNode env = services.path("otel-collector").path("environment");
    int count = 0;
    while (m.find()) {
      count++;
      assertThat(env.has(m.group(1))).as("otel-collector environment sets " + m.group(1)).isTrue();
    }
    assertThat(count).isGreaterThan(0);
    assertThat(env.path("PROMETHEUS_REMOTE_WRITE_ENDPOINT").asText()).isEqualTo("http://prometheus:9090/api/v1/write");
    List<String> promFlags = new ArrayList<>();
    services.path("prometheus").path("command").forEach(c -> promFlags.add(c.asText()));
    assertThat(promFlags).as("Prometheus accepts the Collector's remote write").contains("--web.enable-remote-write-receiver");
    assertThat(env.path("OTLP_TRACES_ENDPOINT").asText()).isEqualTo("jaeger:4317");
  }

  @Test
  void prometheus_loadsTheAlertRules_andPromtoolAcceptsItsConfiguration() {
    assertThat(mounts("prometheus")).containsEntry("/etc/prometheus/rules/gputop-alerts.yml", "../prometheus/alerts.yml")
        .containsEntry("/etc/prometheus/rules/gputop-efficiency.yml", "../prometheus/efficiency.yml")
        .containsEntry("/etc/prometheus/prometheus.yml", "./prometheus/prometheus.yml");
    JsonNode config = Examples.yaml("docker-compose/prometheus/prometheus.yml");
    assertThat(config.path("rule_files").get(0).asText()).isEqualTo("/etc/prometheus/rules/*.yml");
    Path promtool = Promtool.promtool();
    for (String file : List.of("prometheus.yml", "prometheus.gpu.yml")) {
      Examples.Run r = Examples.run(composeDir.resolve("prometheus"), 60, promtool.toString(), "check", "config", file);
      assertThat(r.exitCode()).as(r.output()).isZero();
    }
  }

  @Test
  void grafana_provisionsTheDatasourceAndTheDashboard() {
    Map<String, String> m = mounts("grafana");
    assertThat(m).containsEntry("/etc/grafana/provisioning/datasources", "./grafana/provisioning/datasources")
        .containsEntry("/etc/grafana/provisioning/dashboards", "./grafana/provisioning/dashboards");
    JsonNode ds = Examples.yaml("docker-compose/grafana/provisioning/datasources/prometheus.yml").path("datasources").get(0);
    assertThat(ds.path("url").asText()).isEqualTo("http://prometheus:9090");
    assertThat(services.path("prometheus").path("ports").get(0).asText()).isEqualTo("9090:9090");
    String dashboardsPath = Examples.yaml("docker-compose/grafana/provisioning/dashboards/gputop.yml")
        .path("providers").get(0).path("options").path("path").asText();
    String dashboardMount = dashboardsPath + "/gputop-inference.json";
    assertThat(m).containsEntry(dashboardMount, "../grafana/gputop-inference.json");
    assertThat(services.path("grafana").path("environment").path("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH").asText())
        .isEqualTo(dashboardMount);
  }

  @Test
  void gpuOverride_runsTheAgentOnTheHostsGpusAndProcesses() {
    JsonNode agent = Examples.yaml("docker-compose/docker-compose.gpu.yml").path("services").path("agent");
    assertThat(agent.path("pid").asText()).isEqualTo("host");
    assertThat(agent.path("command").toString()).contains("\"run\"");
    assertThat(agent.path("deploy").path("resources").path("reservations").path("devices").get(0).path("driver").asText())
        .isEqualTo("nvidia");
  }

  /** A service's bind mounts: container path to host path. */
  private Map<String, String> mounts(String service) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (JsonNode v : services.path(service).path("volumes")) {
      String[] parts = v.asText().split(":");
      out.put(parts[1], parts[0]);
    }
    return out;
  }
}
