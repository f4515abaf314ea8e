package dev.gputop.inference.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Profile files: what is accepted, and that every error names the file, key and line. */
class ProfileLoaderTest {

  private final ProfileLoader loader = new ProfileLoader();

  private static final String MINIMAL =
      "engine: demo\nname: Demo\npriority: 50\nprefixes:\n  \"demo:\": \"demo:\"\n"
          + "concepts:\n  running:\n    - gauge: demo:running\n";

  private static ProfileException error(String yaml) {
    try {
      new ProfileLoader().parse(yaml, "my.yaml");
    } catch (ProfileException e) {
      return e;
    }
    throw new AssertionError("accepted: " + yaml);
  }

  @Test
  void parse_minimalProfile() {
    EngineProfile p = loader.parse(MINIMAL, "my.yaml");
    assertThat(p.engine().id()).isEqualTo("demo");
    assertThat(p.priority()).isEqualTo(50);
    assertThat(p.sources(Concept.RUNNING)).containsExactly(Source.gauge("demo:running"));
    assertThat(p.discovery().commands()).isEmpty();
    assertThat(p.origin()).isEqualTo("my.yaml");
  }

  @Test
  void parse_unknownKeyNamesFileKeyAndLine() {
    ProfileException e = error(MINIMAL + "colour: blue\n");
    assertThat(e.file()).isEqualTo("my.yaml");
    assertThat(e.key()).isEqualTo("colour");
    assertThat(e.line()).isEqualTo(9);
    assertThat(e.getMessage()).startsWith("my.yaml: line 9: colour: unknown key; known keys: [");
  }

  @Test
  void parse_unknownConcept() {
    ProfileException e = error(MINIMAL + "  speed:\n    - gauge: demo:speed\n");
    assertThat(e.key()).isEqualTo("concepts.speed");
    assertThat(e.line()).isEqualTo(9);
    assertThat(e.getMessage()).contains("unknown concept; known concepts: [running, waiting, kvCache");
  }

  @Test
  void parse_sourceOfTheWrongForm() {
    ProfileException e = error(MINIMAL + "  ttft:\n    - counter: demo:ttft\n");
    assertThat(e.key()).isEqualTo("concepts.ttft[0].counter");
    assertThat(e.line()).isEqualTo(10);
    assertThat(e.getMessage()).endsWith("concept ttft reads a histogram, not a counter");
  }

  @Test
  void parse_sourceWithTwoForms() {
    ProfileException e = error(MINIMAL.replace("    - gauge: demo:running\n", "    - gauge: demo:running\n      counter: demo:x\n"));
    assertThat(e.key()).isEqualTo("concepts.running[0].counter");
    assertThat(e.line()).isEqualTo(9);
  }

  @Test
  void parse_badMetricNameAndAliasPrefix() {
    assertThat(error(MINIMAL.replace("demo:running", "demo-running")).getMessage())
        .isEqualTo("my.yaml: line 8: concepts.running[0].gauge: 'demo-running' is not a metric name");
    String aliased = MINIMAL.replace("  \"demo:\": \"demo:\"\n", "  \"demo:\": \"demo:\"\n  \"ray_demo:\": \"demo:\"\n")
        .replace("gauge: demo:running", "gauge: ray_demo:running");
    assertThat(error(aliased).getMessage()).contains("alias prefix 'ray_demo:'; write the canonical one, 'demo:'");
  }

  @Test
  void parse_missingKeys() {
    assertThat(error(MINIMAL.replace("engine: demo\n", "")).getMessage()).isEqualTo("my.yaml: line 1: engine: missing");
    assertThat(error(MINIMAL.replace("priority: 50\n", "")).key()).isEqualTo("priority");
    assertThat(error("engine: demo\nname: D\npriority: 1\nconcepts: {}\n").key()).isEqualTo("prefixes");
  }

  @Test
  void parse_badValues() {
    assertThat(error(MINIMAL.replace("priority: 50", "priority: soon")).getMessage())
        .isEqualTo("my.yaml: line 3: priority: 'soon' is not a whole number");
    assertThat(error(MINIMAL.replace("engine: demo", "engine: Demo Engine")).key()).isEqualTo("engine");
    assertThat(error(MINIMAL.replace("engine: demo", "engine: unknown")).getMessage()).contains("'unknown' is the engine");
    assertThat(error(MINIMAL + "    - gauge: demo:running\n").getMessage()).contains("the same source is listed twice");
    assertThat(error(MINIMAL.replace("\"demo:\": \"demo:\"", "\"demo_\": \"demo:\"")).getMessage())
        .contains("the canonical prefix 'demo:' must also be listed");
  }

  @Test
  void parse_scaleAndWhere() {
    EngineProfile p =
        loader.parse(MINIMAL + "  queue:\n    - histogram: demo:queue_ms\n      scale: 0.001\n      where: {method: prefill}\n", "my.yaml");
    Source s = p.sources(Concept.QUEUE).get(0);
    assertThat(s.scale()).isEqualTo(0.001);
    assertThat(s.where()).containsEntry("method", List.of("prefill"));
    Source failed = loader.parse(MINIMAL + "  failedRequests:\n    - counter: demo:request_success\n      where: {finished_reason: [abort, error]}\n", "my.yaml").sources(Concept.FAILED_REQUESTS).get(0);
    assertThat(failed.accepts(dev.gputop.inference.parse.Labels.of("finished_reason", "error"))).isTrue();
    assertThat(failed.accepts(dev.gputop.inference.parse.Labels.of("finished_reason", "stop"))).isFalse();
    assertThat(failed.describe()).isEqualTo("counter demo:request_success where finished_reason in [abort, error]");
    assertThat(error(MINIMAL + "  queue:\n    - histogram: demo:queue_ms\n      scale: -1\n").getMessage())
        .isEqualTo("my.yaml: line 11: concepts.queue[0].scale: a scale is a positive number (e.g. 1e-6 for microseconds to seconds)");
  }

  @Test
  void parse_sumNeedsTwoPartsAndNoNesting() {
    assertThat(error(MINIMAL + "  promptTokens:\n    - sum:\n        - counter: demo:a\n").getMessage())
        .contains("concepts.promptTokens[0].sum: expected a list of at least two sources");
    String nested = MINIMAL + "  promptTokens:\n    - sum:\n        - counter: demo:a\n        - sum:\n"
        + "            - counter: demo:b\n            - counter: demo:c\n";
    assertThat(error(nested).getMessage()).contains("reads a counter or sample (or a sum of them), not a sum");
  }

  @Test
  void parse_totalsMustNameSourcesOfTheProfile() {
    String yaml = MINIMAL.replace("concepts:", "labels:\n  totals:\n    - label: priority\n      value: \"\"\n"
        + "      metrics: [demo:runing]\nconcepts:");
    ProfileException e = error(yaml);
    assertThat(e.key()).isEqualTo("labels.totals[0].metrics");
    assertThat(e.getMessage()).contains("'demo:runing' is not a source of any concept in this profile");
  }

  @Test
  void parse_partsMustFollowTheirTotal() {
    String yaml = MINIMAL + "  waiting:\n    - gauge: demo:waiting_by_reason\n      partsOf: demo:waiting\n"
        + "    - gauge: demo:waiting\n";
    assertThat(error(yaml).getMessage()).contains("the parts must be listed after their total 'demo:waiting'");
  }

  @Test
  void parse_rankLabelCannotAlsoBeSummed() {
    String yaml = MINIMAL.replace("concepts:", "labels:\n  split: [tp_rank]\n  rank: [tp_rank]\nconcepts:");
    assertThat(error(yaml).getMessage()).contains("'tp_rank' can't be both a rank label and a summed or model label");
  }

  @Test
  void parse_wrapperAddsTheWrappedPrefixOfEachCanonicalOne() {
    String yaml = "engine: demo\nname: Demo\npriority: 50\nprefixes:\n  \"demo:\": \"demo:\"\n"
        + "wrappers:\n  ray:\n    prefix: \"ray_\"\n    sanitize: \"[^a-zA-Z0-9_]\"\n    counterGauges: ignore\n"
        + "    labels: [ReplicaId, WorkerId]\n"
        + "labels:\n  split: [engine]\n"
        + "concepts:\n  running:\n    - gauge: demo:running\n";
    EngineProfile p = loader.parse(yaml, "my.yaml");
    assertThat(p.prefixAliases()).containsEntry("ray_demo_", "demo:").containsEntry("demo:", "demo:");
    assertThat(p.canonicalName("ray_demo_running")).isEqualTo("demo:running");
    assertThat(p.wrappers()).hasSize(1);
    assertThat(p.wrappers().get(0).ignoreCounterGauges()).isTrue();
    assertThat(p.wrapperOf("ray_demo_running")).isEqualTo(p.wrappers().get(0));
    assertThat(p.wrapperOf("demo:running")).isNull();
    // The wrapper's labels are summed, like the engine's split labels.
    assertThat(p.splitLabels()).containsExactly("engine", "ReplicaId", "WorkerId");
  }

  @Test
  void parse_wrapperErrors() {
    String head = "engine: demo\nname: Demo\npriority: 50\nprefixes:\n  \"demo:\": \"demo:\"\n";
    String concepts = "concepts:\n  running:\n    - gauge: demo:running\n";
    assertThat(error(head + "wrappers:\n  ray:\n    prefix: \"ray_\"\n    counterGauges: twice\n" + concepts)
        .getMessage()).contains("wrappers.ray.counterGauges").contains("not one of ignore, read");
    assertThat(error(head + "wrappers:\n  ray:\n    sanitize: \"[\"\n" + concepts).getMessage())
        .contains("wrappers.ray.prefix").contains("missing");
    assertThat(error(head + "wrappers:\n  ray:\n    prefix: \"ray_\"\n    sanitize: \"[\"\n" + concepts)
        .getMessage()).contains("not a regular expression");
    // A name the wrapper would rewrite past the prefix could not be read back.
    assertThat(error(head + "wrappers:\n  ray:\n    prefix: \"ray_\"\n    sanitize: \"[^a-zA-Z0-9_]\"\n"
        + "concepts:\n  running:\n    - gauge: demo:run:ning\n").getMessage())
        .contains("would rewrite 'demo:run:ning' past its prefix");
  }

  @Test
  void parse_notReadAndWhen() {
    EngineProfile p = loader.parse(MINIMAL.replace("concepts:", "notRead: [demo:info, demo:tokens_total]\nconcepts:")
        + "  specDraftTokens:\n    - counter: demo:drafts\n      when: \"with a draft model\"\n", "my.yaml");
    assertThat(p.notRead()).containsExactly("demo:info", "demo:tokens_total");
    assertThat(p.sources(Concept.SPEC_DRAFT_TOKENS).get(0).history().when()).isEqualTo("with a draft model");
    assertThat(p.sources(Concept.SPEC_DRAFT_TOKENS).get(0).history().describe()).isEqualTo("only with a draft model");
    assertThat(error(MINIMAL.replace("concepts:", "notRead: [other:info]\nconcepts:")).getMessage())
        .contains("'other:info' has none of the profile's prefixes");
    assertThat(error(MINIMAL.replace("concepts:", "notRead: [demo:running]\nconcepts:")).getMessage())
        .contains("'demo:running' is a source of a concept");
  }

  @Test
  void parse_discoveryRules() {
    String yaml = MINIMAL + "discovery:\n  endpoints:\n    server: {portFlags: [--port], defaultPort: 8000, path: /prometheus/metrics}\n"
        + "  commands:\n    - {program: trtllm-serve, role: server, endpoint: server}\n    - {titleRegex: 'w[0-9]+', role: helper}\n";
    EngineProfile p = loader.parse(yaml, "my.yaml");
    DiscoveryRule.Command c = p.discovery().commands().get(0);
    assertThat(c.kind()).isEqualTo(DiscoveryRule.Kind.PROGRAM);
    assertThat(c.endpoint().path()).isEqualTo("/prometheus/metrics");
    assertThat(c.endpoint().defaultHost()).isEqualTo("127.0.0.1");
    assertThat(p.discovery().commands().get(1).role()).isEqualTo(DiscoveryRule.Role.HELPER);
    assertThat(error(yaml.replace("endpoint: server", "endpoint: srv")).getMessage())
        .isEqualTo("my.yaml: line 13: discovery.commands[0].endpoint: no endpoint 'srv' under discovery.endpoints [server]");
    assertThat(error(yaml.replace("'w[0-9]+'", "'w[0-9+'")).key()).isEqualTo("discovery.commands[1].titleRegex");
    assertThat(error(yaml.replace("defaultPort: 8000", "defaultPort: 80000")).getMessage())
        .contains("80000 is out of range 1–65535");
    assertThat(error(yaml.replace(", role: server, endpoint: server", "")).getMessage())
        .contains("discovery.commands[0].endpoint: missing: a server names one of [server]");
  }

  @Test
  void parse_yamlSyntaxError() {
    ProfileException e = error("engine: demo\nname: [unclosed\n");
    assertThat(e.key()).isEqualTo("(syntax)");
    assertThat(e.getMessage()).startsWith("my.yaml: line ");
  }

  @Test
  void parse_duplicateKey() {
    ProfileException e = error(MINIMAL + "name: Again\n");
    assertThat(e.getMessage()).isEqualTo("my.yaml: line 9: name: given twice");
  }

  @Test
  void readDirectory_readsEveryYamlFileAndRejectsTwoFilesForOneEngine(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("b.yaml"), MINIMAL);
    Files.writeString(dir.resolve("a.yml"), MINIMAL.replace("engine: demo", "engine: other").replace("demo:", "other:"));
    Files.writeString(dir.resolve("notes.txt"), "not a profile");
    List<EngineProfile> ps = EngineProfiles.readDirectory(dir);
    assertThat(ps).extracting(p -> p.engine().id()).containsExactly("demo", "other");
    Files.writeString(dir.resolve("c.yaml"), MINIMAL);
    assertThatThrownBy(() -> EngineProfiles.readDirectory(dir))
        .isInstanceOf(ProfileException.class)
        .hasMessageContaining("c.yaml")
        .hasMessageContaining("engine 'demo' is also defined by " + dir.resolve("b.yaml"));
  }

  @Test
  void builtIn_indexListsEveryProfileFileAndEachLoads() throws Exception {
    URL url = getClass().getClassLoader().getResource(EngineProfiles.RESOURCE_DIR + "index.txt");
    File dir = new File(url.toURI()).getParentFile();
    List<String> files = Arrays.stream(dir.list()).filter(n -> n.endsWith(".yaml")).sorted().collect(Collectors.toList());
    List<String> indexed = Files.readAllLines(dir.toPath().resolve("index.txt")).stream()
        .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).sorted().collect(Collectors.toList());
    assertThat(indexed).isEqualTo(files);
    assertThat(EngineProfiles.builtIn().all()).hasSize(files.size());
    assertThat(EngineProfiles.builtIn().all().get(0).engine()).isEqualTo(Engine.VLLM);
  }

  @Test
  void with_userProfileReplacesTheBuiltInOfTheSameEngine() {
    EngineProfile mine = loader.parse(MINIMAL.replace("engine: demo", "engine: vllm"), "mine.yaml");
    EngineProfiles ps = EngineProfiles.builtIn().with(List.of(mine));
    assertThat(ps.get(Engine.VLLM).origin()).isEqualTo("mine.yaml");
    assertThat(ps.all()).hasSize(EngineProfiles.builtIn().all().size());
  }
}
