package dev.gputop.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The efficiency recording rules of examples/prometheus/efficiency.yml: valid and unit-tested by promtool. */
class EfficiencyRulesTest {

  @Test
  void promtoolCheckRules_passes() {
    Path promtool = Promtool.promtool();
    Examples.Run r = Examples.run(Examples.dir().resolve("prometheus"), 60, promtool.toString(), "check", "rules",
        "efficiency.yml");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS: 2 rules found");
  }

  @Test
  void promtoolTestRules_passes() {
    Path promtool = Promtool.promtool();
    Examples.Run r = Examples.run(Examples.dir().resolve("prometheus"), 60, promtool.toString(), "test", "rules",
        "efficiency.test.yml");
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS");
  }
}
