package dev.gputop.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.sdk.autoconfigure.spi.internal.DefaultConfigProperties;
import io.opentelemetry.sdk.resources.Resource;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StandaloneSdkTest {

  private static Map<String, String> defaults(Map<String, String> given) {
    return StandaloneSdk.agentDefaults(DefaultConfigProperties.createFromMap(given));
  }

  @Test
  void agentDefaults_noEndpointMeansNoExporter() {
    assertThat(defaults(Map.of()))
        .containsEntry("otel.metrics.exporter", "none")
        .containsEntry("otel.traces.exporter", "none")
        .containsEntry("otel.logs.exporter", "none")
        .containsEntry("otel.exporter.otlp.protocol", "http/protobuf");
  }

  @Test
  void agentDefaults_protocolChoiceIsKept() {
    assertThat(defaults(Map.of("otel.exporter.otlp.protocol", "grpc"))).doesNotContainKey("otel.exporter.otlp.protocol");
    assertThat(defaults(Map.of("otel.exporter.otlp.metrics.protocol", "grpc")))
        .doesNotContainKey("otel.exporter.otlp.protocol");
  }

  @Test
  void agentDefaults_endpointMeansOtlp() {
    assertThat(defaults(Map.of("otel.exporter.otlp.endpoint", "http://collector:4318")))
        .containsEntry("otel.metrics.exporter", "otlp");
    assertThat(defaults(Map.of("otel.exporter.otlp.metrics.endpoint", "http://c:4318/v1/metrics")))
        .containsEntry("otel.metrics.exporter", "otlp");
  }

  @Test
  void agentDefaults_userChoiceIsKeptButPrometheusIsServedByTheListener() {
    assertThat(defaults(Map.of("otel.metrics.exporter", "logging", "otel.traces.exporter", "otlp")))
        .doesNotContainKey("otel.metrics.exporter")
        .doesNotContainKey("otel.traces.exporter");
    assertThat(defaults(Map.of("otel.metrics.exporter", "otlp, prometheus")))
        .containsEntry("otel.metrics.exporter", "otlp");
    assertThat(defaults(Map.of("otel.metrics.exporter", "prometheus")))
        .containsEntry("otel.metrics.exporter", "none");
  }

  @Test
  void agentDefaults_exemplarsOffUnlessConfigured() {
    assertThat(defaults(Map.of())).containsEntry("otel.metrics.exemplar.filter", "always_off");
    assertThat(defaults(Map.of("otel.metrics.exemplar.filter", "trace_based")))
        .doesNotContainKey("otel.metrics.exemplar.filter");
  }

  @Test
  void agentResource_namesTheServiceUnlessConfigured() {
    Resource def = StandaloneSdk.agentResource(Resource.getDefault());
    assertThat(def.getAttribute(StandaloneSdk.SERVICE_NAME)).isEqualTo("gputop-agent");
    assertThat(def.getAttribute(StandaloneSdk.SERVICE_VERSION)).isNotBlank();
    assertThat(def.getAttribute(StandaloneSdk.HOST_NAME)).isNotBlank();

    Resource mine = StandaloneSdk.agentResource(
        Resource.getDefault().toBuilder().put(StandaloneSdk.SERVICE_NAME, "gpu-node-agent").build());
    assertThat(mine.getAttribute(StandaloneSdk.SERVICE_NAME)).isEqualTo("gpu-node-agent");
  }

  @Test
  void agentResource_inKubernetes_namesTheNodeBesideTheHost() {
    Resource node = StandaloneSdk.agentResource(Resource.getDefault(), "gpu-node-7");
    assertThat(node.getAttribute(StandaloneSdk.K8S_NODE_NAME)).isEqualTo("gpu-node-7");
    assertThat(node.getAttribute(StandaloneSdk.HOST_NAME)).isNotBlank();
    assertThat(StandaloneSdk.agentResource(Resource.getDefault(), null).getAttribute(StandaloneSdk.K8S_NODE_NAME)).isNull();
  }
}
