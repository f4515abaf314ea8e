package dev.gputop.inference.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigException;
import dev.gputop.config.ConfigLoader;
import dev.gputop.config.EnginesConfig;
import dev.gputop.inference.testing.TextExpositions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The user's profiles from agent.yaml: a directory of files and inline profiles. */
class UserProfilesTest {

  private static final String MYENGINE =
      "engine: myengine\nname: My engine\npriority: 90\nprefixes:\n  \"my_\": \"my_\"\n"
          + "concepts:\n  running:\n    - gauge: my_running\n";

  private static AgentConfig config(String yaml) {
    return new ConfigLoader().parse(yaml, Map.of());
  }

  @Test
  void none_givesTheBuiltInProfiles() {
    assertThat(UserProfiles.load(EnginesConfig.none()).all()).isEqualTo(EngineProfiles.builtIn().all());
  }

  @Test
  void inline_addsAnEngineAndOverridesABuiltIn() {
    String vllm = "engine: vllm\nname: My vLLM\npriority: 10\nprefixes:\n  \"vllm:\": \"vllm:\"\n"
        + "concepts:\n  running:\n    - gauge: vllm:num_requests_running\n    - gauge: vllm:my_running\n";
    AgentConfig c = config("inference:\n  engines:\n    profiles: |\n"
        + indent(MYENGINE) + "      ---\n" + indent(vllm));
    EngineProfiles ps = UserProfiles.load(c.inference().engines());
    assertThat(ps.get(Engine.of("myengine")).name()).isEqualTo("My engine");
    assertThat(ps.get(Engine.VLLM).name()).isEqualTo("My vLLM");
    assertThat(ps.get(Engine.SGLANG)).isEqualTo(EngineProfiles.builtIn().get(Engine.SGLANG));
    // The new engine is recognized and mapped without a release.
    ServerScrape s = new EngineMapper(ps).map(TextExpositions.parse("my_running 3\n"));
    assertThat(s.engine().id()).isEqualTo("myengine");
    assertThat(s.get(Concept.RUNNING).series().values().iterator().next().value()).isEqualTo(3);
  }

  @Test
  void inline_errorNamesTheKeyAndTheLineInAgentYaml() {
    // Line 3 holds the key, lines 4-11 the first profile, 12 the separator, 13-20 the second: 21.
    AgentConfig c = config("inference:\n  engines:\n    profiles: |\n"
        + indent(MYENGINE) + "      ---\n" + indent(MYENGINE.replace("myengine", "other").replace("my_", "ot_") + "colour: red\n"));
    assertThatThrownBy(() -> UserProfiles.load(c.inference().engines()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("line 21: inference.engines.profiles: profile 2: colour: unknown key; known keys: "
            + "[concepts, discovery, engine, labels, markers, modelLabels, name, notRead, prefixes, priority, wrappers]");
  }

  @Test
  void inline_twoProfilesForOneEngineAreAnError() {
    AgentConfig c = config("inference:\n  engines:\n    profiles: |\n" + indent(MYENGINE) + "      ---\n" + indent(MYENGINE));
    assertThatThrownBy(() -> UserProfiles.load(c.inference().engines()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("engine 'myengine' is also defined by agent.yaml inference.engines.profiles (profile 1)");
  }

  @Test
  void directory_filesAddEnginesAndErrorsNameTheFile(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("myengine.yaml"), MYENGINE);
    AgentConfig c = config("inference:\n  engines:\n    directory: " + dir + "\n");
    assertThat(UserProfiles.load(c.inference().engines()).get(Engine.of("myengine")).origin())
        .isEqualTo(dir.resolve("myengine.yaml").toString());
    Files.writeString(dir.resolve("bad.yaml"), MYENGINE.replace("gauge: my_running", "histogram: my_running"));
    assertThatThrownBy(() -> UserProfiles.load(c.inference().engines()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("inference.engines.directory: " + dir.resolve("bad.yaml")
            + ": line 8: concepts.running[0].histogram: concept running reads a gauge (or a sum of gauges), not a histogram");
  }

  @Test
  void directory_thatDoesNotExist(@TempDir Path dir) {
    AgentConfig c = config("inference:\n  engines:\n    directory: " + dir.resolve("nope") + "\n");
    assertThatThrownBy(() -> UserProfiles.load(c.inference().engines()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("is not a directory");
  }

  private static String indent(String text) {
    StringBuilder sb = new StringBuilder();
    for (String line : text.split("\n")) {
      sb.append("      ").append(line).append('\n');
    }
    return sb.toString();
  }
}
