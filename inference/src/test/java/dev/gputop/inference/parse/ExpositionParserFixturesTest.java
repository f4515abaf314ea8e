package dev.gputop.inference.parse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.Ci;
import dev.gputop.testing.SharedFixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Parses every real capture under {@code ${gputop.shared.dir}/fixtures} (see SOURCES.md there)
 * and the project's own vLLM V1 DP=2 file. Skipped when the shared directory is absent.
 */
class ExpositionParserFixturesTest {

  private final ExpositionParser parser = new ExpositionParser(ParserLimits.defaults());

  /** ../shared/fixtures: skipped with the reason printed when absent, a failure in CI. */
  private static Path fixtures() {
    Path path = SharedFixtures.dir().resolve("fixtures");
    Ci.require(Files.isDirectory(path), "no shared fixtures at " + path);
    return path;
  }

  private Exposition parse(String relative) throws Exception {
    byte[] body = Files.readAllBytes(fixtures().resolve(relative));
    return parser.parse(body, 0, body.length);
  }

  private static double value(Exposition e, String family, int index) {
    return e.family(family).samples().get(index).value();
  }

  /** Every file parses, with one sample per sample line and each family named by a TYPE line. */
  @TestFactory
  Stream<DynamicTest> parse_everySharedFixture() throws IOException {
    Path root = fixtures();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(root)) {
      files = walk.filter(p -> p.toString().endsWith(".prom")).sorted().collect(Collectors.toList());
    }
    assertThat(files).hasSizeGreaterThanOrEqualTo(24);
    return files.stream()
        .map(
            file ->
                DynamicTest.dynamicTest(
                    root.relativize(file).toString(),
                    () -> {
                      List<String> lines = readLines(file);
                      Exposition e = parser.parse(String.join("\n", lines));
                      long sampleLines =
                          lines.stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).count();
                      assertThat((long) e.sampleCount()).isEqualTo(sampleLines);
                      Set<String> declared = new HashSet<>();
                      for (String l : lines) {
                        if (l.startsWith("# TYPE ")) {
                          declared.add(l.split(" ")[2]);
                        }
                      }
                      for (MetricFamily f : e.families()) {
                        if (f.type() != MetricType.UNTYPED) {
                          assertThat(declared).contains(f.name());
                        }
                        for (Sample s : f.samples()) {
                          assertThat(s.name()).startsWith(f.name());
                        }
                      }
                      // Parsing again with the warm cache gives equal results.
                      Exposition again = parser.parse(String.join("\n", lines));
                      assertThat(again).isEqualTo(e);
                    }));
  }

  /** The project's own fixtures (src/test/resources/fixtures) parse too. */
  @TestFactory
  Stream<DynamicTest> parse_everyProjectFixture() throws Exception {
    Path root = Path.of(getClass().getResource("/fixtures").toURI());
    List<Path> files;
    try (Stream<Path> walk = Files.walk(root)) {
      files = walk.filter(p -> p.toString().endsWith(".prom")).sorted().collect(Collectors.toList());
    }
    assertThat(files).isNotEmpty();
    return files.stream()
        .map(
            file ->
                DynamicTest.dynamicTest(
                    root.relativize(file).toString(),
                    () -> {
                      byte[] body = Files.readAllBytes(file);
                      Exposition e = parser.parse(body, 0, body.length);
                      long sampleLines =
                          readLines(file).stream()
                              .map(String::strip)
                              .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                              .count();
                      assertThat((long) e.sampleCount()).isEqualTo(sampleLines);
                      assertThat(e.families()).isNotEmpty();
                    }));
  }

  private static List<String> readLines(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  @Test
  void parse_llamacppAfterInflightHasInf() throws Exception {
    Exposition e = parse("llamacpp/b4748-after-inflight.prom");
    assertThat(e.families()).hasSize(12);
    assertThat(value(e, "llamacpp:prompt_tokens_seconds", 0)).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(value(e, "llamacpp:tokens_predicted_total", 0)).isEqualTo(16400.0);
    assertThat(value(e, "llamacpp:predicted_tokens_seconds", 0)).isEqualTo(1129.96);
    assertThat(e.family("llamacpp:n_busy_slots_per_decode").type()).isEqualTo(MetricType.COUNTER);
    assertThat(value(e, "llamacpp:n_busy_slots_per_decode", 0)).isEqualTo(1.95238);
    assertThat(e.family("llamacpp:kv_cache_tokens").help()).isEqualTo("KV-cache tokens.");
  }

  @Test
  void parse_llamacppInflightWithDeferred() throws Exception {
    Exposition e = parse("llamacpp/b4748-inflight-2-plus-1-deferred.prom");
    assertThat(value(e, "llamacpp:requests_processing", 0)).isEqualTo(2.0);
    assertThat(value(e, "llamacpp:requests_deferred", 0)).isEqualTo(1.0);
    assertThat(value(e, "llamacpp:kv_cache_usage_ratio", 0)).isEqualTo(0.638672);
    assertThat(e.family("llamacpp:requests_deferred").samples().get(0).labels()).isEqualTo(Labels.EMPTY);
  }

  @Test
  void parse_llamacppAfterRestartIsAllZeroCounters() throws Exception {
    Exposition e = parse("llamacpp/b4748-after-restart.prom");
    assertThat(value(e, "llamacpp:prompt_tokens_total", 0)).isZero();
    assertThat(value(e, "llamacpp:n_decode_total", 0)).isZero();
  }

  @Test
  void parse_functionaryFamiliesWithoutSamples() throws Exception {
    Exposition e = parse("vllm/functionary263-v0-help-type-only-excerpt.prom");
    assertThat(e.families()).hasSize(7);
    assertThat(e.sampleCount()).isZero();
    assertThat(e.families()).allSatisfy(f -> assertThat(f.type()).isEqualTo(MetricType.GAUGE));
    assertThat(e.family("vllm:gpu_prefix_cache_hit_rate").help()).isEqualTo("GPU prefix cache block hit rate.");
  }

  @Test
  void parse_rayVllmPrefixAndRayLabels() throws Exception {
    Exposition e = parse("vllm/datadog-ray-vllm-v0-partial.prom");
    assertThat(e.families()).hasSize(22);
    assertThat(e.families().stream().filter(f -> f.name().startsWith("ray_vllm:")).count())
        .isGreaterThanOrEqualTo(10);
    MetricFamily prompt = e.family("ray_vllm:prompt_tokens_total");
    assertThat(prompt.type()).isEqualTo(MetricType.COUNTER);
    Sample s = prompt.samples().get(0);
    assertThat(s.value()).isEqualTo(58.0);
    assertThat(s.labels().get("Version")).isEqualTo("2.32.0");
    assertThat(s.labels().get("model_name")).isEqualTo("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8");
    assertThat(s.labels().size()).isEqualTo(6);
  }

  @Test
  void parse_tgiCountersWithoutTotalAndSummary() throws Exception {
    Exposition e = parse("tgi/datadog-hugging-face-tgi-payload-partial.prom");
    assertThat(e.families()).hasSize(13);
    assertThat(e.sampleCount()).isEqualTo(264);
    assertThat(e.family("tgi_request_count").type()).isEqualTo(MetricType.COUNTER);
    assertThat(value(e, "tgi_request_count", 0)).isEqualTo(111.0);
    MetricFamily skipped = e.family("tgi_request_skipped_tokens");
    assertThat(skipped.type()).isEqualTo(MetricType.SUMMARY);
    assertThat(skipped.samples()).hasSize(9);
    assertThat(skipped.samples().get(1).labels().get("quantile")).isEqualTo("0.5");
    assertThat(skipped.samples().get(8).name()).isEqualTo("tgi_request_skipped_tokens_count");
    assertThat(skipped.samples().get(8).value()).isEqualTo(3423.0);
    MetricFamily input = e.family("tgi_request_input_length");
    assertThat(input.type()).isEqualTo(MetricType.HISTOGRAM);
    assertThat(input.samples()).hasSize(103);
    assertThat(input.samples().get(102).value()).isEqualTo(109.0);
    // Some TGI families have TYPE but no HELP.
    assertThat(e.family("tgi_batch_concat").help()).isNull();
  }

  @Test
  void parse_vllm010CreatedSeriesAreGauges() throws Exception {
    Exposition e = parse("vllm/prodstack617-vllm0.10.0-v1-created-excerpt.prom");
    assertThat(e.families()).hasSize(5);
    MetricFamily created = e.family("vllm:gpu_prefix_cache_queries_created");
    assertThat(created.type()).isEqualTo(MetricType.GAUGE);
    assertThat(created.samples().get(0).value()).isEqualTo(1.7537953269352946e9);
    assertThat(created.samples().get(0).labels())
        .isEqualTo(Labels.of("engine", "0", "model_name", "zai-org/GLM-4.5"));
    assertThat(value(e, "vllm:prefix_cache_queries_total", 0)).isEqualTo(32.0);
    assertThat(value(e, "vllm:kv_cache_usage_perc", 0)).isEqualTo(9.75010481363281e-06);
  }

  @Test
  void parse_datadogMixedVllm() throws Exception {
    Exposition e = parse("vllm/datadog-vllm-metrics-mixed.prom");
    assertThat(e.families()).hasSize(50);
    assertThat(e.sampleCount()).isEqualTo(185);
    assertThat(e.family("vllm:engine_sleep_state").samples()).hasSize(3);
    MetricFamily ttft = e.family("vllm:time_to_first_token_seconds");
    assertThat(ttft.type()).isEqualTo(MetricType.HISTOGRAM);
    assertThat(ttft.samples().get(ttft.samples().size() - 1).value()).isEqualTo(0.31326723098754883);
    assertThat(value(e, "process_cpu_seconds_total", 0)).isEqualTo(10.950000000000001);
    assertThat(value(e, "process_max_fds", 0)).isEqualTo(1048576.0);
    assertThat(e.family("vllm:cache_config_info").samples().get(0).labels().get("num_gpu_blocks"))
        .isEqualTo("7281");
  }

  @Test
  void parse_excerptWithoutTypeIsUntypedByName() throws Exception {
    Exposition e = parse("vllm/issue8819-v0-ttft-excerpt.prom");
    assertThat(e.families()).hasSize(1);
    MetricFamily f = e.family("vllm:time_to_first_token_seconds_bucket");
    assertThat(f.type()).isEqualTo(MetricType.UNTYPED);
    assertThat(f.samples()).hasSize(15);
    assertThat(f.samples().get(14).labels().get("le")).isEqualTo("+Inf");
  }

  @Test
  void parse_aioprometheusEra() throws Exception {
    Exposition e = parse("vllm/pr1890-v0.2.x-aioprometheus-excerpt.prom");
    assertThat(e.family("exceptions_total_counter").samples()).isEmpty();
    assertThat(e.family("status_codes_counter").samples().get(0).labels().get("status_code"))
        .isEqualTo("200");
  }

  @Test
  void parse_sglangFixtures() throws Exception {
    Exposition e = parse("sglang/datadog-sglang-0.5.10.post1.prom");
    assertThat(e.families()).hasSize(25);
    assertThat(e.sampleCount()).isEqualTo(43);
    assertThat(value(e, "sglang:token_usage", 0)).isEqualTo(0.25);
    assertThat(e.family("sglang:cache_hit_rate").samples().get(0).labels().get("tp_rank")).isEqualTo("0");

    Exposition gateway = parse("sglang/smg813-gateway-underscore-excerpt.prom");
    assertThat(gateway.family("sglang_cache_hit_rate").samples().get(0).labels().get("worker_addr"))
        .isEqualTo("grpc://127.0.0.1:8001");

    Exposition wip = parse("sglang/pr1461-wip-never-released-excerpt.prom");
    assertThat(value(wip, "sglang:cache_hit_rate", 0)).isEqualTo(87.58777633289988);

    Exposition old = parse("sglang/issue13485-v0.5.1-excerpt.prom");
    assertThat(old.family("sglang:num_running_reqs").samples().get(0).labels().get("engine_type"))
        .isEqualTo("unified");
  }

  @Test
  void parse_ibmFork() throws Exception {
    Exposition e = parse("other/ibm-vllm-tgis-adapter-tgi-names-excerpt.prom");
    assertThat(e.family("tgi_batch_inference_duration").samples().get(0).labels().get("method"))
        .isEqualTo("{'method': 'prefill'}");
  }

  @Test
  void parse_projectVllmV1Dp2() throws Exception {
    byte[] body;
    try (var in = getClass().getResourceAsStream("/fixtures/vllm/vllm-v1-dp2.prom")) {
      assertThat(in).isNotNull();
      body = in.readAllBytes();
    }
    assertThat(body.length).isBetween(50_000, 70_000);
    Exposition e = parser.parse(body, 0, body.length);
    MetricFamily success = e.family("vllm:request_success_total");
    assertThat(success.type()).isEqualTo(MetricType.COUNTER);
    assertThat(success.samples()).hasSize(6);
    assertThat(success.samples())
        .extracting(s -> s.labels().get("engine") + "/" + s.labels().get("finished_reason"))
        .containsExactly("0/stop", "0/length", "0/abort", "1/stop", "1/length", "1/abort");
    MetricFamily ttft = e.family("vllm:time_to_first_token_seconds");
    assertThat(ttft.type()).isEqualTo(MetricType.HISTOGRAM);
    // 22 finite buckets + Inf, count, sum; per engine.
    assertThat(ttft.samples()).hasSize(2 * 25);
    assertThat(e.family("vllm:time_to_first_token_seconds_created").type()).isEqualTo(MetricType.GAUGE);
    assertThat(e.family("vllm:prompt_tokens_total").samples())
        .allSatisfy(s -> assertThat(s.value()).isGreaterThan(0));
    assertThat(e.family("python_gc_objects_collected_total")).isNotNull();
    assertThat(e.family("process_resident_memory_bytes")).isNotNull();
    for (MetricFamily f : e.families()) {
      for (Sample s : f.samples()) {
        if (f.name().startsWith("vllm:") && !f.name().equals("vllm:cache_config_info")) {
          assertThat(s.labels().get("engine")).as(s.toString()).isIn("0", "1");
          assertThat(s.labels().get("model_name")).isEqualTo("Qwen/Qwen3-8B");
        }
      }
    }
  }
}
