package dev.gputop.agent.runtime;

import dev.gputop.agent.prometheus.ExpositionReader;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.export.HttpSenderProvider;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.resources.ResourceBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The OpenTelemetry SDK of the standalone agent ({@code run}, {@code demo}), built with {@link
 * AutoConfiguredOpenTelemetrySdk} so every {@code OTEL_*} variable and {@code otel.*} system
 * property works as documented by OpenTelemetry, with these agent defaults:
 *
 * <ul>
 *   <li>{@code otel.metrics.exporter}: {@code otlp} when an OTLP endpoint is configured ({@code
 *       OTEL_EXPORTER_OTLP_ENDPOINT} or {@code OTEL_EXPORTER_OTLP_METRICS_ENDPOINT}), else {@code
 *       none}, so a machine without a collector does not log connection errors. {@code prometheus}
 *       in the list is dropped: the agent's own listener serves {@code /metrics}.
 *   <li>{@code otel.exporter.otlp.protocol}: {@code http/protobuf} (the SDK alone would say {@code
 *       grpc}).
 *   <li>{@code otel.traces.exporter} and {@code otel.logs.exporter}: {@code none} (the agent emits
 *       metrics only).
 *   <li>Resource: {@code service.name=gputop-agent} unless configured, {@code service.version},
 *       {@code host.name}.
 *   <li>The OTLP exporter is watched by an {@link ExportMonitor}: failures logged throttled, the
 *       {@code export} health component, dropped data counted; the SDK's own per-failure log
 *       records are filtered out.
 *   <li>OTLP http/protobuf goes through the JDK's HTTP client ({@link LazyTlsHttpSenderProvider},
 *       which initializes TLS only for an https endpoint); gRPC through OkHttp.
 * </ul>
 *
 * <p>An {@link ExpositionReader} (when wanted: the agent's own Prometheus writer behind {@code
 * /metrics}) and the {@link ExportedHistogramProducer} are registered on the meter provider.
 * Thread-safe after {@link #create}.
 */
public final class StandaloneSdk implements AutoCloseable {

  private static final Logger logger = Logger.getLogger(StandaloneSdk.class.getName());

  // Copied from the OpenTelemetry semantic conventions (service.*, host.*).
  static final AttributeKey<String> SERVICE_NAME = AttributeKey.stringKey("service.name");
  static final AttributeKey<String> SERVICE_VERSION = AttributeKey.stringKey("service.version");
  static final AttributeKey<String> HOST_NAME = AttributeKey.stringKey("host.name");
  static final AttributeKey<String> K8S_NODE_NAME = AttributeKey.stringKey("k8s.node.name");

  static final String DEFAULT_SERVICE_NAME = "gputop-agent";

  private final OpenTelemetrySdk sdk;
  private final ExpositionReader prometheus;
  private final ExportedHistogramProducer histograms;
  private final ExportMonitor exports;

  private StandaloneSdk(
      OpenTelemetrySdk sdk, ExpositionReader prometheus, ExportedHistogramProducer histograms,
      ExportMonitor exports) {
    this.sdk = sdk;
    this.prometheus = prometheus;
    this.histograms = histograms;
    this.exports = exports;
  }

  /**
   * Builds the SDK from the environment and system properties.
   *
   * @param withPrometheus whether to register a Prometheus reader for the {@code /metrics} endpoint
   */
  public static StandaloneSdk create(boolean withPrometheus) {
    return create(withPrometheus, null);
  }

  /**
   * As {@link #create(boolean)}, with the Kubernetes node the agent runs on ({@code
   * kubernetes.nodeName}, from {@code NODE_NAME} by default) as the {@code k8s.node.name} resource
   * attribute; null outside Kubernetes.
   */
  public static StandaloneSdk create(boolean withPrometheus, String nodeName) {
    return create(withPrometheus, nodeName, ExportMonitor.create(), Map.of());
  }

  /**
   * As {@link #create(boolean, String)}, with the OTLP exporter watched by {@code exports} and
   * {@code properties} as defaults below the environment and system properties (for tests).
   */
  static StandaloneSdk create(
      boolean withPrometheus, String nodeName, ExportMonitor exports, Map<String, String> properties) {
    preferLazyTlsHttpSender();
    ExportMonitor.silenceSdkExportLogs();
    ExportedHistogramProducer histograms = new ExportedHistogramProducer();
    ExpositionReader prometheus = withPrometheus ? new ExpositionReader() : null;
    OpenTelemetrySdk sdk =
        AutoConfiguredOpenTelemetrySdk.builder()
            .disableShutdownHook() // the agent flushes and shuts down itself, within its 5 s budget
            .addPropertiesSupplier(() -> properties)
            .addPropertiesCustomizer(StandaloneSdk::agentDefaults)
            .addResourceCustomizer((resource, config) -> agentResource(resource, nodeName))
            .addMetricExporterCustomizer(
                (exporter, config) ->
                    exporter.getClass().getSimpleName().startsWith("Otlp")
                        ? exports.wrap(exporter, config)
                        : exporter)
            .addMeterProviderCustomizer(
                (builder, config) -> {
                  if (prometheus != null) {
                    builder.registerMetricReader(prometheus);
                  }
                  return builder.registerMetricProducer(histograms);
                })
            .build()
            .getOpenTelemetrySdk();
    exports.registerMetrics(sdk.getMeter("dev.gputop.agent"));
    return new StandaloneSdk(sdk, prometheus, histograms, exports);
  }

  /** The SDK, for {@link AgentRuntime.Builder#setOpenTelemetry}. */
  public OpenTelemetrySdk openTelemetry() {
    return sdk;
  }

  /** The OTLP exporter's monitor: the {@code export} health component and its failure log. */
  public ExportMonitor exports() {
    return exports;
  }

  /** The producer to hand to {@link AgentRuntime.Builder#setHistogramProducer}. */
  public ExportedHistogramProducer histograms() {
    return histograms;
  }

  /** The reader behind {@code /metrics}, or null when none was wanted. */
  public ExpositionReader prometheus() {
    return prometheus;
  }

  /**
   * Pushes what the exporters hold now, waiting at most {@code timeout}.
   *
   * @return true when the flush finished in time and succeeded
   */
  public boolean flush(Duration timeout) {
    CompletableResultCode flush = sdk.getSdkMeterProvider().forceFlush();
    flush.join(Math.max(1, timeout.toNanos()), TimeUnit.NANOSECONDS);
    return flush.isSuccess();
  }

  /**
   * Shuts the SDK and its exporters down, waiting at most {@code timeout}.
   *
   * @return true when the shutdown finished in time
   */
  public boolean shutdown(Duration timeout) {
    CompletableResultCode shutdown = sdk.shutdown();
    shutdown.join(Math.max(1, timeout.toNanos()), TimeUnit.NANOSECONDS);
    return shutdown.isDone();
  }

  /** Flushes and shuts down, two seconds for each. */
  @Override
  public void close() {
    flush(Duration.ofSeconds(2));
    shutdown(Duration.ofSeconds(2));
  }

  /**
   * The agent's defaults, applied only where the user configured nothing (a properties customizer
   * returns overrides, so it must check each key itself).
   */
  static Map<String, String> agentDefaults(ConfigProperties config) {
    Map<String, String> out = new HashMap<>();
    String metrics = config.getString("otel.metrics.exporter");
    if (metrics == null || metrics.isBlank()) {
      boolean endpoint =
          config.getString("otel.exporter.otlp.endpoint") != null
              || config.getString("otel.exporter.otlp.metrics.endpoint") != null;
      out.put("otel.metrics.exporter", endpoint ? "otlp" : "none");
    } else {
      List<String> names =
          Arrays.stream(metrics.split(","))
              .map(s -> s.trim().toLowerCase(Locale.ROOT))
              .filter(s -> !s.isEmpty())
              .collect(Collectors.toCollection(ArrayList::new));
      if (names.remove("prometheus")) {
        logger.info("otel.metrics.exporter: 'prometheus' dropped; the agent's listener serves /metrics");
        out.put("otel.metrics.exporter", names.isEmpty() ? "none" : String.join(",", names));
      }
    }
    // The Java SDK alone still defaults to gRPC; the OpenTelemetry specification, the Java agent
    // and the collector's :4318 examples use http/protobuf.
    if (config.getString("otel.exporter.otlp.protocol") == null
        && config.getString("otel.exporter.otlp.metrics.protocol") == null) {
      out.put("otel.exporter.otlp.protocol", "http/protobuf");
    }
    if (config.getString("otel.traces.exporter") == null) {
      out.put("otel.traces.exporter", "none");
    }
    if (config.getString("otel.logs.exporter") == null) {
      out.put("otel.logs.exporter", "none");
    }
    // No exemplars: the gauges are asynchronous (which never have any), the scrape telemetry
    // records outside any span's context, the text format /metrics serves has no exemplars and
    // nothing the agent exports links a point to a trace. The SDK's default (trace_based) would
    // look up the current span on every recording for nothing. (SDK 1.66 still gives each series
    // its empty reservoir; docs/PERFORMANCE.md, "The export path".) A user's choice stands.
    if (config.getString("otel.metrics.exemplar.filter") == null) {
      out.put("otel.metrics.exemplar.filter", "always_off");
    }
    return out;
  }

  public static Resource agentResource(Resource resource) {
    return agentResource(resource, null);
  }

  /** The resource with the agent's defaults, and {@code k8s.node.name} when a node name is given. */
  public static Resource agentResource(Resource resource, String nodeName) {
    ResourceBuilder b = resource.toBuilder();
    if (nodeName != null && !nodeName.isBlank() && resource.getAttribute(K8S_NODE_NAME) == null) {
      b.put(K8S_NODE_NAME, nodeName);
    }
    String name = resource.getAttribute(SERVICE_NAME);
    if (name == null || name.startsWith("unknown_service")) {
      b.put(SERVICE_NAME, DEFAULT_SERVICE_NAME);
    }
    if (resource.getAttribute(SERVICE_VERSION) == null) {
      b.put(SERVICE_VERSION, AgentVersion.get());
    }
    if (resource.getAttribute(HOST_NAME) == null) {
      String host = hostName();
      if (host != null) {
        b.put(HOST_NAME, host);
      }
    }
    return b.build();
  }

  /**
   * The host name without a DNS lookup where possible ({@code InetAddress.getLocalHost()} can stall
   * for seconds on a host with a broken resolver, which would spoil start-up).
   */
  static String hostName() {
    try {
      Path kernel = Path.of("/proc/sys/kernel/hostname");
      if (Files.isReadable(kernel)) {
        String h = Files.readString(kernel, StandardCharsets.UTF_8).trim();
        if (!h.isEmpty()) {
          return h;
        }
      }
    } catch (IOException | RuntimeException e) {
      // fall through to the environment
    }
    for (String var : List.of("HOSTNAME", "COMPUTERNAME")) {
      String h = System.getenv(var);
      if (h != null && !h.isBlank()) {
        return h.trim();
      }
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Three HTTP senders are on the class path (the JDK's, OkHttp's for gRPC, and ours around the
   * JDK's); without a preference the SDK warns and picks any. The property name and value are
   * class names, so they follow relocation. A user's own choice of the property stands.
   */
  private static void preferLazyTlsHttpSender() {
    String key = HttpSenderProvider.class.getName();
    if (System.getProperty(key) == null) {
      System.setProperty(key, LazyTlsHttpSenderProvider.class.getName());
    }
  }
}
