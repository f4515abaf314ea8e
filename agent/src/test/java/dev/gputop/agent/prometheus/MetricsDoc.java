package dev.gputop.agent.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * docs/metrics.md against a real {@code /metrics}, both ways: every family the agent writes is a
 * row of the doc, and every row is a family the agent writes (docs/metrics.md, "Names").
 */
final class MetricsDoc {

  private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) \\S+$", Pattern.MULTILINE);
  private static final String MODEL_FAMILY = "gputop_inference_model_";

  private MetricsDoc() {}

  /** The Prometheus names the doc's tables give. */
  static Set<String> documented() throws IOException {
    return PrometheusNamesTest.rows(Files.readAllLines(Path.of("..", "docs", "metrics.md"), StandardCharsets.UTF_8))
        .stream().map(PrometheusNamesTest.Row::promName).collect(Collectors.toCollection(TreeSet::new));
  }

  /** The families of an exposition, by their {@code # TYPE} lines. */
  static Set<String> families(String exposition) {
    Set<String> out = new TreeSet<>();
    Matcher m = TYPE.matcher(exposition);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /**
   * Asserts that {@code exposition} writes exactly the documented series, but for {@code
   * notHere}: documented series this exposition can't have, each with the reason (a name listed
   * there that the exposition does have fails too, so the list stays exact). A per-model family
   * ({@code gputop_inference_model_*}) is documented by its server family's row.
   */
  static void assertMatches(String exposition, Map<String, String> notHere) throws IOException {
    Set<String> documented = documented();
    Set<String> written = new TreeSet<>();
    for (String f : families(exposition)) {
      if (f.equals("target_info")) {
        continue; // the resource, described in the doc's introduction
      }
      written.add(f.startsWith(MODEL_FAMILY) ? "gputop_inference_" + f.substring(MODEL_FAMILY.length()) : f);
    }
    // A counter's family is written without its _total in OpenMetrics, an info's (a gauge named
    // *_info, whose samples keep the suffix) without its _info in both formats.
    Set<String> normalized = new TreeSet<>();
    for (String f : written) {
      normalized.add(documented.contains(f + "_total") ? f + "_total"
          : documented.contains(f + "_info") ? f + "_info" : f);
    }
    Set<String> undocumented = new TreeSet<>(normalized);
    undocumented.removeAll(documented);
    assertThat(undocumented).as("series on /metrics that docs/metrics.md does not list; TYPE lines:\n"
        + exposition.lines().filter(l -> l.startsWith("# TYPE")).collect(Collectors.joining("\n"))).isEmpty();
    Set<String> missing = new TreeSet<>(documented);
    missing.removeAll(normalized);
    missing.removeAll(notHere.keySet());
    assertThat(missing).as("series docs/metrics.md lists that /metrics does not write").isEmpty();
    Set<String> listedButWritten = new TreeSet<>(notHere.keySet());
    listedButWritten.retainAll(normalized);
    assertThat(listedButWritten).as("series said to be absent here, yet written").isEmpty();
    assertThat(documented).containsAll(notHere.keySet());
  }
}
