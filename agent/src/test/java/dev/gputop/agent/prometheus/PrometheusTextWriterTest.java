package dev.gputop.agent.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.agent.FakeNvmlLibrary;
import dev.gputop.agent.demo.DemoReplicas;
import dev.gputop.agent.demo.Replica;
import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.agent.runtime.ExportedHistogramProducer;
import dev.gputop.agent.runtime.StandaloneSdk;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigLoader;
import dev.gputop.config.PodIdentity;
import dev.gputop.receiver.ExportedHistogram;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.prometheus.PrometheusMetricReader;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.metrics.Aggregation;
import io.opentelemetry.sdk.metrics.ExemplarFilter;
import io.opentelemetry.sdk.metrics.InstrumentSelector;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.SdkMeterProviderBuilder;
import io.opentelemetry.sdk.metrics.View;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.DoubleExemplarData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricProducer;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableDoublePointData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableGaugeData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableHistogramData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableMetricData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableSumData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableSummaryData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableSummaryPointData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableValueAtQuantile;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The guard of the agent's own exposition writer: on one SDK, OpenTelemetry's Prometheus reader
 * with Prometheus's writers ({@link LibraryExposition}, what /metrics served before) and the
 * agent's {@link ExpositionReader} must give the same bytes, in text 0.0.4 and in OpenMetrics.
 */
class PrometheusTextWriterTest {

  private static final InstrumentationScopeInfo PRODUCED = InstrumentationScopeInfo.create("produced");

  /** Both readers on one meter provider. */
  private static final class Both implements AutoCloseable {
    final PrometheusMetricReader library = PrometheusMetricReader.builder().setOtelScopeLabelsEnabled(false).build();
    final ExpositionReader own = new ExpositionReader();
    final SdkMeterProvider provider;

    Both(Resource resource, List<MetricProducer> producers, List<View> views) {
      this(resource, producers, views, null);
    }

    Both(Resource resource, List<MetricProducer> producers, List<View> views, ExemplarFilter exemplars) {
      SdkMeterProviderBuilder b = SdkMeterProvider.builder().setResource(resource)
          .registerMetricReader(library).registerMetricReader(own);
      producers.forEach(b::registerMetricProducer);
      views.forEach(v -> b.registerView(InstrumentSelector.builder().setName("exp.*").build(), v));
      if (exemplars != null) {
        b.setExemplarFilter(exemplars);
        b.registerView(InstrumentSelector.builder().setName("filtered.*").build(),
            View.builder().setAttributeFilter(k -> k.equals("route")).build());
      }
      provider = b.build();
    }

    Both(Resource resource, MetricProducer... producers) {
      this(resource, List.of(producers), List.of());
    }

    String library(boolean openMetrics) throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      LibraryExposition.collect(library).write(openMetrics, out);
      return out.toString(StandardCharsets.UTF_8);
    }

    byte[] ownBytes(boolean openMetrics) throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      own.write(openMetrics, out);
      return out.toByteArray();
    }

    /** Both formats, byte for byte; returns the text 0.0.4 exposition. */
    String assertSameBytes() throws IOException {
      return assertSameBytes(false, true).get(false);
    }

    /**
     * The formats in this order (the SDK hands a reader each exemplar once, so the first read is
     * the one that has them), byte for byte; returns the expositions.
     */
    Map<Boolean, String> assertSameBytes(boolean... formats) throws IOException {
      Map<Boolean, String> out = new LinkedHashMap<>();
      for (boolean openMetrics : formats) {
        ByteArrayOutputStream lib = new ByteArrayOutputStream();
        LibraryExposition.collect(library).write(openMetrics, lib);
        byte[] mine = ownBytes(openMetrics);
        assertThat(new String(mine, StandardCharsets.UTF_8)).as(openMetrics ? "OpenMetrics" : "text 0.0.4")
            .isEqualTo(lib.toString(StandardCharsets.UTF_8));
        assertThat(mine).isEqualTo(lib.toByteArray());
        out.put(openMetrics, lib.toString(StandardCharsets.UTF_8));
      }
      return out;
    }

    Meter meter(String scope) {
      return provider.get(scope);
    }

    @Override
    public void close() {
      provider.close();
    }
  }

  private static Resource resource(String... keyValues) {
    AttributesBuilder b = Attributes.builder();
    for (int i = 0; i < keyValues.length; i += 2) {
      b.put(keyValues[i], keyValues[i + 1]);
    }
    return Resource.create(b.build());
  }

  @Test
  void agentRuntime_demoReplicasOfEveryEngineFakeNvmlAndPods_sameBytes() throws Exception {
    FakeNvmlLibrary.Copy copy = FakeNvmlLibrary.copy("libfake-nvml-exposition.so", 4);
    Path nvml = copy.path();
    FakeNvmlLibrary.Control fake = copy.control();
    fake.fake_nvml_add_process(0, 4242, 3L << 30);
    ExportedHistogramProducer histograms = new ExportedHistogramProducer();
    // The pods' histograms, as a discovered server in Kubernetes exports them.
    MetricProducer pods = resource -> ExportedHistogramProducer.toMetricData(resource, List.of(
        new ExportedHistogram("gen_ai.server.time_to_first_token", "Time to generate first token for successful responses.",
            "s", podAttributes("chat-0"), 1_700_000_000_000_000_000L, 1_700_000_030_000_000_000L,
            new double[] {0.001, 0.1, 1.0, 10.0}, new long[] {3, 1, 0, 2, 0}, 12.5),
        new ExportedHistogram("gen_ai.server.time_to_first_token", "Time to generate first token for successful responses.",
            "s", podAttributes("chat-1"), 1_700_000_000_000_000_000L, 1_700_000_030_000_000_000L,
            new double[] {0.001, 0.1, 1.0, 10.0}, new long[] {0, 0, 0, 0, 0}, 0.0)));
    try (DemoReplicas replicas = DemoReplicas.builder().seed(7).restarts(false).start();
        Both both = new Both(StandaloneSdk.agentResource(Resource.getDefault(), "node-7"), histograms, pods)) {
      StringBuilder yaml = new StringBuilder("refresh:\n  normal: 1m\nlisten: 127.0.0.1:0\nnvml:\n  library: ")
          .append(nvml).append("\ninference:\n  discovery:\n    enabled: false\n  endpoints:\n");
      AgentConfig config = new ConfigLoader().parse(replicaEndpoints(yaml, replicas), Map.of());
      OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setMeterProvider(both.provider).build();
      try (AgentRuntime runtime = AgentRuntime.builder(config).setOpenTelemetry(sdk)
          .setHistogramProducer(histograms).build()) {
        runtime.start();
        assertThat(runtime.awaitFirstRefresh(Duration.ofSeconds(20))).isTrue();
        String text = both.assertSameBytes();
        // The whole instrument set is there: every engine, the GPUs, the scrape telemetry, the
        // servers' histograms, the pods' labels renamed, target_info with its HELP.
        assertThat(text)
            .contains("server=\"vllm-dp2\"", "server=\"sglang-tp2\"", "server=\"tgi\"", "server=\"llamacpp\"",
                "server=\"trtllm\"")
            .contains("# TYPE gen_ai_server_time_to_first_token_seconds histogram\n")
            // The servers' monotonic totals, sums with start times of their own.
            .contains("# TYPE gputop_inference_requests_total counter\n",
                "gputop_inference_requests_total{engine=\"vllm\",outcome=\"success\",server=\"vllm-dp2\"} 0")
            .contains("pod=\"chat-0\"", "namespace=\"llm\"", "container=\"vllm\"", "k8s_pod_uid=\"uid-chat-0\"")
            .contains("# HELP target_info Target metadata\n", "k8s_node_name=\"node-7\"")
            .contains("hw_")
            .contains("le=\"+Inf\"")
            .doesNotContain("k8s_pod_name", "k8s_namespace_name");
        assertThat(text.lines().count()).isGreaterThan(500);
      }
    }
  }

  /**
   * docs/metrics.md is the contract both ways: the inference receiver over every demo engine, a
   * server of two models and SLO targets, and the NVML receiver over a fake GPU with faults, each
   * refreshed three times on a manual clock, write every documented series and nothing else
   * (but for the few this setup can't cause, each said why).
   */
  @Test
  void everySeriesOnMetricsIsInDocsMetricsMd_andEveryRowOfItIsOnMetrics() throws Exception {
    FakeNvmlLibrary.Copy copy = FakeNvmlLibrary.copy("libfake-nvml-doc.so", 2);
    Path nvml = copy.path();
    FakeNvmlLibrary.Control fake = copy.control();
    fake.fake_nvml_add_process(0, 4242, 3L << 30);
    fake.fake_nvml_set(0, "nvlink.count", 2); // GPU 0: NVLink; GPU 1: a GPU that retires pages
    fake.fake_nvml_set(1, "memory.retirement", 1);
    fake.fake_nvml_set(1, "retired.sbe", 5);
    fake.fake_nvml_set(1, "retired.pending", 1);
    dev.gputop.testing.ManualClock clock = new dev.gputop.testing.ManualClock();
    java.util.concurrent.atomic.AtomicInteger scrapes = new java.util.concurrent.atomic.AtomicInteger();
    com.sun.net.httpserver.HttpServer twoModels = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    twoModels.createContext("/metrics", ex -> {
      int k = scrapes.incrementAndGet();
      byte[] body = ("# TYPE vllm:num_requests_running gauge\n"
          + "vllm:num_requests_running{model_name=\"a\"} 9\nvllm:num_requests_running{model_name=\"b\"} 4\n"
          + "# TYPE vllm:request_success counter\n"
          + "vllm:request_success_total{finished_reason=\"stop\",model_name=\"a\"} " + 10 * k + "\n"
          + "vllm:request_success_total{finished_reason=\"stop\",model_name=\"b\"} " + 3 * k + "\n"
          // A server-side failure: failedRequestsPerSecond (the demo's replicas only abort).
          + "vllm:request_success_total{finished_reason=\"error\",model_name=\"a\"} " + k + "\n"
          + "# TYPE vllm:spec_decode_num_draft_tokens counter\n"
          + "vllm:spec_decode_num_draft_tokens_total{model_name=\"a\"} " + 100 * k + "\n"
          + "# TYPE vllm:spec_decode_num_accepted_tokens counter\n"
          + "vllm:spec_decode_num_accepted_tokens_total{model_name=\"a\"} " + 70 * k + "\n")
          .getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    twoModels.start();
    ExportedHistogramProducer producer = new ExportedHistogramProducer();
    try (DemoReplicas replicas = DemoReplicas.builder().seed(7).clock(clock).restarts(false).start();
        Both both = new Both(Resource.getDefault(), producer)) {
      StringBuilder yaml = new StringBuilder("refresh:\n  normal: 5s\nlisten: 127.0.0.1:0\nnvml:\n  library: ")
          .append(nvml).append("\ninference:\n  slo:\n    ttft: 1s\n    itl: 100ms\n    e2e: 20s\n    queue: 1s\n")
          .append("  discovery:\n    enabled: false\n  endpoints:\n")
          .append("    - name: two-models\n      url: http://127.0.0.1:").append(twoModels.getAddress().getPort())
          .append("/metrics\n");
      AgentConfig config = new ConfigLoader().parse(replicaEndpoints(yaml, replicas), Map.of());
      OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setMeterProvider(both.provider).build();
      dev.gputop.testing.TestReceiverContext context = new dev.gputop.testing.TestReceiverContext(config, sdk, clock);
      try (dev.gputop.receiver.Receiver gpus = new dev.gputop.nvml.NvmlReceiverProvider().create(context);
          dev.gputop.receiver.Receiver inference = new dev.gputop.inference.InferenceReceiverProvider().create(context)) {
        producer.bind(inference::exportedHistograms, inference::exportedCounters);
        for (int i = 0; i < 3; i++) {
          gpus.refresh();
          inference.refresh();
          clock.advance(Duration.ofSeconds(5));
        }
        String text = both.assertSameBytes();
        assertThat(text).contains("gputop_inference_model_requests_running{engine=\"vllm\",model=\"a\",server=\"two-models\"} 9");
        assertThat(text).contains("gputop_inference_served_model{engine=\"vllm\",model=\"b\",server=\"two-models\"} 1");
        MetricsDoc.assertMatches(text, Map.of(
            "gputop_agent_export_failed_exports_total", "the standalone agent's, counted when an OTLP export fails (OtlpExportOutageTest)",
            "gputop_agent_export_dropped_points_total", "the standalone agent's, counted when an OTLP export fails (OtlpExportOutageTest)"));
      } finally {
        producer.unbind();
      }
    } finally {
      twoModels.stop(0);
    }
  }

  /**
   * The configuration {@code yaml} begins, with an endpoint for each of the demo's replicas after
   * it (the first on GPU 1: its efficiency, power, energy per token and the energy counter) and a
   * GPU-hour cost.
   */
  private static String replicaEndpoints(StringBuilder yaml, DemoReplicas replicas) {
    boolean first = true;
    for (Replica r : replicas.replicas()) {
      yaml.append("    - name: ").append(r.name()).append("\n      url: ").append(r.url()).append('\n');
      if (first) {
        yaml.append("      gpus: [1]\n");
        first = false;
      }
    }
    return yaml.append("  costPerGpuHour: 2.5\n").toString();
  }

  private static Attributes podAttributes(String pod) {
    return new PodIdentity("llm", pod, "vllm", "uid-" + pod)
        .addTo(Attributes.builder().put("server", pod).put("engine", "vllm").put("model", "llama")).build();
  }

  @Test
  void doubles_specialAndOrdinaryValues_sameBytes() throws Exception {
    double[] values = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 0.0, 1.0, -1.0,
        3.0, 9_999_999.0, 1e7, 1e7 + 1, 123_456_789.0, 0.1, 0.25, 2.5, 1.0 / 3, 1e-3, 9.99e-4, 1e-5,
        Double.MIN_VALUE, Double.MIN_NORMAL, Double.MAX_VALUE, 1e22, 1e21, 4.35, 2e-300, -123.456,
        (double) (1L << 53), (double) Long.MAX_VALUE, 0.30000000000000004, 100.0, 1234567.5};
    try (Both both = new Both(resource("service.name", "values"))) {
      Meter meter = both.meter("values");
      meter.gaugeBuilder("values.gauge").setDescription("Every kind of double.").buildWithCallback(m -> {
        for (int i = 0; i < values.length; i++) {
          m.record(values[i], Attributes.of(AttributeKey.longKey("i"), (long) i));
        }
      });
      meter.gaugeBuilder("values.long").ofLongs().buildWithCallback(m -> {
        long[] longs = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, (1L << 53) + 1, 10_000_000, 9_999_999};
        for (int i = 0; i < longs.length; i++) {
          m.record(longs[i], Attributes.of(AttributeKey.longKey("i"), (long) i));
        }
      });
      LongCounter big = meter.counterBuilder("values.big").setUnit("By").build();
      big.add((1L << 53) + 1, Attributes.of(AttributeKey.stringKey("k"), "a"));
      big.add(Long.MAX_VALUE / 2, Attributes.of(AttributeKey.stringKey("k"), "b"));
      meter.counterBuilder("values.fraction").ofDoubles().build().add(0.1 + 0.2);
      meter.upDownCounterBuilder("values.updown").build().add(-42);
      DoubleHistogram h = meter.histogramBuilder("values.latency").setUnit("ms")
          .setExplicitBucketBoundariesAdvice(List.of(0.0, 0.5, 1.0, 2.5, 1e-4, 1e7, 123456.789).stream().sorted().toList())
          .build();
      for (double v : new double[] {0.1, 0.7, 3.0, 1e8, -1.0, 0.0}) {
        h.record(v, Attributes.of(AttributeKey.stringKey("route"), "/x"));
      }
      h.record(Double.POSITIVE_INFINITY, Attributes.of(AttributeKey.stringKey("route"), "/inf"));
      both.assertSameBytes();
      // (the SDK drops a NaN that a callback records; the produced test has NaN)
      assertThat(both.library(false)).contains("values_gauge{i=\"3\"} -0.0\n",
          "values_big_bytes_total{k=\"a\"} 9.007199254740992E15\n");
    }
  }

  @Test
  void namesUnitsHelpAndLabelValues_needingConversionOrEscaping_sameBytes() throws Exception {
    String[] names = {"my-metric.name/with spaces", "9lives", "\u00e4rger.count", "a__b", "foo_total", "foo.total.g",
        "x_created", "bucket_bucket", "info_info", "colon:name", "k8s.like_metric", "dots...and__unders_", "A.B"};
    String[] units = {"s", "ms", "By", "By/s", "{request}", "1", "%", "m/s", "MiBy", "custom unit!", "foo_total",
        "/s", "Cel", "{tok}/s", "", "total", "x.total", "bytes", "1/s", "{a}{b}"};
    String[] helps = {"", "plain", "line1\nline2 back\\slash \"quoted\"", "Zeit \u23f1 \ud834\udd1e", "see {k8s_pod_name=\"p\"}",
        "tab\there", "lone \ud800 surrogate", "ends with backslash \\"};
    try (Both both = new Both(resource("service.name", "names", "k8s.node.name", "n1", "weird key!", "v\"1\"",
        "host.arch", "amd64"))) {
      Meter meter = both.meter("names");
      for (int i = 0; i < names.length; i++) {
        String unit = units[i % units.length];
        String help = helps[i % helps.length];
        int n = i;
        meter.gaugeBuilder(names[i] + ".g").setUnit(unit).setDescription(help)
            .buildWithCallback(m -> m.record(n, Attributes.of(AttributeKey.stringKey("server"), "s" + n)));
        meter.counterBuilder(names[i] + ".c").setUnit(units[(i + 7) % units.length]).setDescription(help).build()
            .add(n, Attributes.of(AttributeKey.stringKey("server"), "s" + n));
        meter.histogramBuilder(names[i] + ".h").setUnit(units[(i + 3) % units.length]).setDescription(help).build()
            .record(n / 2.0, Attributes.of(AttributeKey.stringKey("server"), "s" + n));
      }
      for (int i = 0; i < units.length; i++) {
        int n = i;
        meter.gaugeBuilder("unit.gauge." + i).setUnit(units[i]).buildWithCallback(m -> m.record(n));
      }
      String[] values = {"", "plain", "quote \" here", "back\\slash", "new\nline", "unicode \u00fc\u4e2d\ud83d\ude00",
          "lone \udc00", "x,k8s_pod_name=", "{k8s_namespace_name=", "k8s_pod_name=", "a,k8s_container_name=\"",
          "tab\t", "=", "\\"};
      meter.gaugeBuilder("label.values").buildWithCallback(m -> {
        for (int i = 0; i < values.length; i++) {
          m.record(i, Attributes.of(AttributeKey.stringKey("v"), values[i], AttributeKey.longKey("i"), (long) i));
        }
      });
      meter.gaugeBuilder("label.names").buildWithCallback(m -> {
        m.record(1, Attributes.builder().put("a.b", "1").put("a-c", "2").put("9key", "3").put("\u00e9t\u00e9", "4")
            .put("k8s.pod.name", "p").put("k8s.namespace.name", "ns").put("k8s.container.name", "c")
            .put("k8s.pod.uid", "u").put("zz", "last").put("A", "upper").put("_x", "under").build());
        m.record(2, Attributes.builder().put("a.b", "1").put("a_b", "2").put("a-b", "3").build()); // one label, values joined
        m.record(3, Attributes.builder().put("flag", true).put("n", 42L).put("d", 2.5)
            .put(AttributeKey.stringArrayKey("arr"), List.of("x", "y\"z", "\n")).put(AttributeKey.longArrayKey("la"), List.of(1L, 2L))
            .put(AttributeKey.booleanArrayKey("ba"), List.of(true)).put(AttributeKey.doubleArrayKey("da"), List.of(0.5, 1.0))
            .build());
        m.record(4, Attributes.empty());
        m.record(5, Attributes.builder().put("namespace", "both").put("k8s.namespace.name", "renamed").build());
      });
      // left out by the exporter: a label name with nothing valid in it, le on a histogram, a negative counter
      meter.gaugeBuilder("dropped.label").buildWithCallback(m -> m.record(1, Attributes.builder().put("_", "x").build()));
      meter.histogramBuilder("dropped.le").build().record(1, Attributes.builder().put("le", "x").build());
      meter.counterBuilder("dropped.negative").ofDoubles().buildWithCallback(m -> m.record(-1));
      meter.gaugeBuilder("dropped.twice").buildWithCallback(m -> {
        m.record(1, Attributes.builder().put("a.b", "x").build());
        m.record(2, Attributes.builder().put("a_b", "x").build());
      });
      meter.gaugeBuilder("no.points").buildWithCallback(m -> { });
      String text = both.assertSameBytes();
      assertThat(text).contains("label_values{i=\"7\",v=\"x,pod=\"}")
          .doesNotContain("dropped_label", "dropped_le", "dropped_negative", "dropped_twice");
    }
  }

  @Test
  void kubernetesRenaming_onlyWhenALabelOrHelpNeedsIt_sameBytes() throws Exception {
    // No label name starts with k8s and no HELP has k8s_ in it: a value's k8s_pod_name= stays.
    AtomicBoolean pod = new AtomicBoolean();
    String value = "x,k8s_pod_name=";
    try (Both both = new Both(resource("service.name", "plain"))) {
      both.meter("m").gaugeBuilder("values").buildWithCallback(m -> {
        m.record(1, Attributes.of(AttributeKey.stringKey("v"), value));
        if (pod.get()) {
          m.record(2, Attributes.of(AttributeKey.stringKey("k8s.pod.name"), "p"));
        }
      });
      assertThat(both.assertSameBytes()).contains("values{v=\"x,k8s_pod_name=\"} 1.0\n");
      // the same value string in a read that renames, then in one that does not again
      pod.set(true);
      assertThat(both.assertSameBytes()).contains("values{v=\"x,pod=\"} 1.0\n", "values{pod=\"p\"} 2.0\n");
      pod.set(false);
      assertThat(both.assertSameBytes()).contains("values{v=\"x,k8s_pod_name=\"} 1.0\n");
    }
  }

  @Test
  void scopes_sameNameInTwoScopes_mergedOrLeftOutAsTheExporterDoes() throws Exception {
    try (Both both = new Both(resource("service.name", "scopes"))) {
      both.meter("one").gaugeBuilder("shared").setDescription("same").buildWithCallback(m -> m.record(1,
          Attributes.of(AttributeKey.stringKey("s"), "b")));
      both.meter("two").gaugeBuilder("shared").setDescription("same").buildWithCallback(m -> m.record(2,
          Attributes.of(AttributeKey.stringKey("s"), "a")));
      both.meter("one").gaugeBuilder("help.differs").setDescription("one").buildWithCallback(m -> m.record(1,
          Attributes.of(AttributeKey.stringKey("s"), "1")));
      both.meter("two").gaugeBuilder("help.differs").setDescription("two").buildWithCallback(m -> m.record(2,
          Attributes.of(AttributeKey.stringKey("s"), "2")));
      both.meter("one").gaugeBuilder("kind.differs").buildWithCallback(m -> m.record(1));
      both.meter("two").counterBuilder("kind.differs").build().add(1);
      both.meter("one").gaugeBuilder("unit.differs").setUnit("s").buildWithCallback(m -> m.record(1));
      both.meter("two").gaugeBuilder("unit.differs_seconds").buildWithCallback(m -> m.record(2,
          Attributes.of(AttributeKey.stringKey("s"), "x")));
      both.meter("one").gaugeBuilder("target").buildWithCallback(m -> m.record(5));
      String text = both.assertSameBytes();
      assertThat(text).contains("shared{s=\"a\"} 2.0\nshared{s=\"b\"} 1.0\n");
    }
  }

  @Test
  void producedMetrics_summaryDeltaEmptyAndExponential_sameBytes() throws Exception {
    MetricProducer producer = resource -> List.of(
        ImmutableMetricData.createDoubleSummary(resource, PRODUCED, "rpc.latency", "A summary.", "s",
            ImmutableSummaryData.create(List.of(
                ImmutableSummaryPointData.create(1, 2, Attributes.of(AttributeKey.stringKey("m"), "get"), 10, 4.5,
                    List.of(ImmutableValueAtQuantile.create(0.99, 2.0), ImmutableValueAtQuantile.create(0.5, 0.25))),
                ImmutableSummaryPointData.create(1, 2, Attributes.of(AttributeKey.stringKey("m"), "put"), 0, Double.NaN,
                    List.of())))),
        ImmutableMetricData.createDoubleSum(resource, PRODUCED, "delta.sum", "", "1",
            ImmutableSumData.create(true, AggregationTemporality.DELTA,
                List.of(ImmutableDoublePointData.create(1, 2, Attributes.empty(), 3)))),
        ImmutableMetricData.createDoubleGauge(resource, PRODUCED, "empty.gauge", "Nothing in it.", "1",
            ImmutableGaugeData.create(List.of())),
        ImmutableMetricData.createDoubleGauge(resource, PRODUCED, "nan.gauge", "NaN and friends.", "1",
            ImmutableGaugeData.create(List.of(
                ImmutableDoublePointData.create(1, 2, Attributes.of(AttributeKey.stringKey("v"), "nan"), Double.NaN),
                ImmutableDoublePointData.create(1, 2, Attributes.of(AttributeKey.stringKey("v"), "inf"),
                    Double.POSITIVE_INFINITY)))),
        ImmutableMetricData.createDoubleSum(resource, PRODUCED, "nan.counter", "", "1",
            ImmutableSumData.create(true, AggregationTemporality.CUMULATIVE,
                List.of(ImmutableDoublePointData.create(1, 2, Attributes.empty(), Double.NaN)))),
        ImmutableMetricData.createDoubleSum(resource, PRODUCED, "monotonic.double", "", "{x}",
            ImmutableSumData.create(true, AggregationTemporality.CUMULATIVE,
                List.of(ImmutableDoublePointData.create(1, 2, Attributes.empty(), 3.5)))));
    try (Both both = new Both(resource("service.name", "produced"), List.of(producer),
        List.of(View.builder().setAggregation(Aggregation.base2ExponentialBucketHistogram()).build()))) {
      DoubleHistogram exp = both.meter("m").histogramBuilder("exp.latency").setUnit("s").build();
      for (double v : new double[] {0.001, 0.5, 2.0, 2.0, 0.0, 1000.0}) {
        exp.record(v, Attributes.of(AttributeKey.stringKey("route"), "/a"));
      }
      String text = both.assertSameBytes();
      assertThat(text).contains("rpc_latency_seconds{m=\"get\",quantile=\"0.5\"} 0.25\n", "exp_latency_seconds_bucket",
          "nan_gauge{v=\"nan\"} NaN\n", "nan_counter_total NaN\n");
    }
  }

  /** A histogram point as a producer may make it, unchecked. */
  private record RawHistogramPoint(Attributes getAttributes, List<Double> getBoundaries, List<Long> getCounts,
      double getSum, long getStartEpochNanos) implements HistogramPointData {
    @Override
    public long getEpochNanos() {
      return getStartEpochNanos + 1;
    }

    @Override
    public long getCount() {
      return 999; // what the point says; Prometheus's count is the buckets' sum
    }

    @Override
    public boolean hasMin() {
      return false;
    }

    @Override
    public double getMin() {
      return 0;
    }

    @Override
    public boolean hasMax() {
      return false;
    }

    @Override
    public double getMax() {
      return 0;
    }

    @Override
    public List<DoubleExemplarData> getExemplars() {
      return List.of();
    }
  }

  private static MetricData histogram(Resource resource, String name, RawHistogramPoint... points) {
    return ImmutableMetricData.createDoubleHistogram(resource, PRODUCED, name, "", "s",
        ImmutableHistogramData.create(AggregationTemporality.CUMULATIVE, List.of(points)));
  }

  @Test
  void producedHistograms_unsortedOrInvalidBuckets_sortedOrLeftOutAsTheLibraryDoes() throws Exception {
    Attributes a = Attributes.of(AttributeKey.stringKey("s"), "a");
    Attributes b = Attributes.of(AttributeKey.stringKey("s"), "b");
    MetricProducer producer = resource -> List.of(
        histogram(resource, "unsorted", new RawHistogramPoint(a, List.of(2.0, 0.5, 1.0), List.of(1L, 2L, 3L, 4L), 9.5, 1),
            new RawHistogramPoint(b, List.of(), List.of(7L), Double.NaN, 1)),
        histogram(resource, "with.neg.inf", new RawHistogramPoint(a, List.of(Double.NEGATIVE_INFINITY, 0.0), List.of(1L, 0L, 2L), -3, 1)),
        histogram(resource, "nan.bound", new RawHistogramPoint(a, List.of(0.5, Double.NaN), List.of(1L, 2L, 3L), 1, 1)),
        histogram(resource, "negative.count", new RawHistogramPoint(a, List.of(0.5), List.of(1L, -2L), 1, 1)),
        histogram(resource, "duplicate.bound", new RawHistogramPoint(a, List.of(0.5, 0.5), List.of(1L, 2L, 3L), 1, 1)),
        histogram(resource, "explicit.inf", new RawHistogramPoint(a, List.of(0.5, Double.POSITIVE_INFINITY), List.of(1L, 2L, 3L), 1, 1)),
        histogram(resource, "wrong.length", new RawHistogramPoint(a, List.of(0.5), List.of(1L), 1, 1)),
        histogram(resource, "negative.start", new RawHistogramPoint(a, List.of(0.5), List.of(1L, 1L), 1, -5_000_000)),
        histogram(resource, "big.counts", new RawHistogramPoint(a, List.of(1.0, 2.0, 3.0),
            List.of(2_147_483_647L, 1L, 5_000_000_000L, 999_999_999L), 1e300, 1)),
        histogram(resource, "fine", new RawHistogramPoint(b, List.of(0.5, 1e-7), List.of(1L, 1L, 1L), 0.25, 1),
            new RawHistogramPoint(a, List.of(0.5), List.of(0L, 0L), 0, 1)));
    try (Both both = new Both(resource("service.name", "histograms"), producer)) {
      assertThat(both.assertSameBytes()).contains("unsorted_seconds_bucket{s=\"a\",le=\"0.5\"} 2\n",
          "unsorted_seconds_count{s=\"a\"} 10\n", "big_counts_seconds_bucket{s=\"a\",le=\"2.0\"} 2147483648\n").doesNotContain("nan_bound", "negative_count", "duplicate_bound",
          "explicit_inf", "wrong_length", "negative_start");
    }
  }

  @Test
  void exemplars_whenRecorded_writtenInOpenMetricsAsTheLibraryDoes() throws Exception {
    SpanContext span = SpanContext.create("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331",
        TraceFlags.getSampled(), TraceState.getDefault());
    Context traced = Context.root().with(Span.wrap(span));
    Resource resource = resource("service.name", "exemplars", "k8s.pod.name", "p");
    // Recorded once and handed to both readers as the same data: a reader of the recording SDK
    // keeps exemplar reservoirs of its own, stamped with the wall clock when offered, so two
    // readers there could hold exemplars a millisecond apart.
    InMemoryMetricReader recorded = InMemoryMetricReader.create();
    Collection<MetricData> data;
    try (SdkMeterProvider recording = SdkMeterProvider.builder().setResource(resource)
        .setExemplarFilter(ExemplarFilter.alwaysOn())
        .registerView(InstrumentSelector.builder().setName("filtered.*").build(),
            View.builder().setAttributeFilter(k -> k.equals("route")).build())
        .registerMetricReader(recorded).build()) {
      Meter meter = recording.get("m");
      LongCounter requests = meter.counterBuilder("requests").build();
      requests.add(3, Attributes.of(AttributeKey.stringKey("route"), "/a"), traced);
      requests.add(1, Attributes.of(AttributeKey.stringKey("route"), "/b"), Context.root());
      meter.counterBuilder("filtered.requests").ofDoubles().build().add(2.5, Attributes.builder().put("route", "/a")
          .put("user.id", "u-1").put("k8s.namespace.name", "ns").put("odd-key!", "x,k8s_pod_name=").build(), traced);
      meter.counterBuilder("filtered.long").build().add(1, Attributes.builder().put("route", "/a")
          .put("note", "x".repeat(200)).build(), traced);
      DoubleHistogram latency = meter.histogramBuilder("filtered.latency").setUnit("s")
          .setExplicitBucketBoundariesAdvice(List.of(0.1, 1.0)).build();
      for (double v : new double[] {0.05, 0.5, 0.7, 3.0}) {
        latency.record(v, Attributes.builder().put("route", "/a").put("user.id", "u" + v).build(), traced);
      }
      latency.record(0.2, Attributes.of(AttributeKey.stringKey("route"), "/b"), Context.root());
      meter.gaugeBuilder("gauge.sync").build().set(7, Attributes.of(AttributeKey.stringKey("route"), "/a"), traced);
      data = recorded.collectAllMetrics();
    }
    try (Both both = new Both(resource, r -> data)) {
      String openMetrics = both.assertSameBytes(true, false).get(true);
      assertThat(openMetrics).contains("requests_total{route=\"/a\"} 3.0 # {span_id=\"b7ad6b7169203331\","
          + "trace_id=\"0af7651916cd43dd8448eb211c80319c\"} 3.0 ", "filtered_latency_seconds_bucket{route=\"/a\",le=\"1.0\"} 3 # {",
          "user_id=\"u-1\"} 2.5 ");
    }
  }


  @Test
  void randomMetrics_fixedSeed_sameBytes() throws Exception {
    Random random = new Random(20261201);
    String[] keys = {"server", "engine", "model", "k8s.pod.name", "gpu", "a.b", "a_b", "x-y", "Z", "le", "quantile",
        "k8s.pod.uid", "_", "0", "\u00fc"};
    String[] words = {"", "a", "b", "vllm", "quote\"", "back\\", "nl\n", "\u4e2d", "x,k8s_pod_name=", "1", "2"};
    String[] unitPool = {"", "s", "ms", "By", "{req}", "1", "%", "By/s", "weird/unit"};
    double[] specials = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 0.0, 1e-9, 1e12};
    try (Both both = new Both(resource("service.name", "random", "k8s.node.name", "r"))) {
      for (int metric = 0; metric < 60; metric++) {
        Meter meter = both.meter("scope" + random.nextInt(3));
        String name = "m" + random.nextInt(40) + (random.nextBoolean() ? "." + words[random.nextInt(words.length)] : "");
        String unit = unitPool[random.nextInt(unitPool.length)];
        int points = random.nextInt(6);
        List<Attributes> sets = new ArrayList<>();
        List<Double> vals = new ArrayList<>();
        for (int p = 0; p < points; p++) {
          AttributesBuilder b = Attributes.builder();
          int n = random.nextInt(4);
          for (int k = 0; k < n; k++) {
            b.put(keys[random.nextInt(keys.length)], words[random.nextInt(words.length)]);
          }
          sets.add(b.build());
          vals.add(random.nextInt(4) == 0 ? specials[random.nextInt(specials.length)]
              : random.nextBoolean() ? random.nextInt(1000) : random.nextGaussian() * Math.pow(10, random.nextInt(20) - 10));
        }
        try {
          switch (random.nextInt(3)) {
            case 0:
              meter.gaugeBuilder(name).setUnit(unit).setDescription(words[random.nextInt(words.length)])
                  .buildWithCallback(m -> {
                    for (int p = 0; p < sets.size(); p++) {
                      m.record(vals.get(p), sets.get(p));
                    }
                  });
              break;
            case 1:
              LongCounter c = meter.counterBuilder(name).setUnit(unit).build();
              for (int p = 0; p < sets.size(); p++) {
                c.add(Math.abs(vals.get(p).longValue()), sets.get(p));
              }
              break;
            default:
              DoubleHistogram h = meter.histogramBuilder(name).setUnit(unit).build();
              for (int p = 0; p < sets.size(); p++) {
                h.record(vals.get(p), sets.get(p));
              }
          }
        } catch (IllegalArgumentException e) {
          // the SDK refused the instrument name: nothing to compare
        }
      }
      both.assertSameBytes();
    }
  }

  @Test
  void prepare_caches_stayBounded() {
    PrometheusTextWriter writer = new PrometheusTextWriter();
    Resource resource = resource("service.name", "bounded");
    for (int batch = 0; batch < 3; batch++) {
      Collection<MetricData> metrics = new ArrayList<>();
      for (int i = 0; i < PrometheusTextWriter.CACHE_LIMIT; i++) {
        metrics.add(ImmutableMetricData.createDoubleGauge(resource, PRODUCED, "g" + batch + "_" + i, "", "1",
            ImmutableGaugeData.create(List.of(ImmutableDoublePointData.create(1, 2,
                Attributes.of(AttributeKey.stringKey("k" + batch + "_" + i), "v"), i)))));
      }
      writer.prepare(metrics);
    }
    assertThat(writer.toString()).isEqualTo("PrometheusTextWriter{" + PrometheusTextWriter.CACHE_LIMIT
        + " metrics, " + PrometheusTextWriter.CACHE_LIMIT + " label names cached}");
  }
}
