package dev.gputop.agent.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gputop.agent.FakeNvmlLibrary;
import dev.gputop.agent.demo.DemoReplicas;
import dev.gputop.agent.demo.Replica;
import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.agent.top.SnapshotView;
import dev.gputop.agent.top.TopScreen;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The history holds what {@code /api/snapshot} shows: a runtime with the real receivers scrapes
 * the demo's replicas of five engines over loopback HTTP and samples the fake NVML (two GPUs and a
 * MIG instance) through JNA; once its refreshes stop, the point it records from the receivers'
 * typed contributions is, value for value and null for null, the snapshot document's.
 */
class HistorySnapshotTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long GIB = 1L << 30;

  /** The GPU entry's key as top reads it: from the entry's JSON text, into its typed row. */
  private static String gpuKey(JsonNode gpu) {
    try {
      String doc = "{\"gpus\":[" + gpu + "]}";
      return TopScreen.gpuKey(SnapshotView.parse(doc.getBytes(java.nio.charset.StandardCharsets.UTF_8)).gpus().get(0));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** As a client reads it: written as JSON text and parsed back. */
  private static JsonNode asServed(JsonNode doc) {
    try {
      return JSON.readTree(JSON.writeValueAsString(doc));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String config(List<Replica> replicas, Path nvml) {
    StringBuilder y = new StringBuilder();
    y.append("listen: 'off'\nrefresh:\n  normal: 250ms\n");
    y.append("nvml:\n  library: ").append(nvml).append('\n');
    y.append("inference:\n  window: 30s\n  discovery:\n    enabled: false\n  endpoints:\n");
    for (Replica r : replicas) {
      y.append("    - name: ").append(r.name()).append("\n      url: ").append(r.url()).append('\n');
    }
    return y.toString();
  }

  /** Every server of the snapshot has its rates (two scrapes in its window), or the deadline passed. */
  private static boolean ratesKnown(JsonNode snapshot, int servers) {
    JsonNode inference = snapshot.path("inference");
    if (inference.size() != servers) {
      return false;
    }
    for (JsonNode s : inference) {
      if (!"up".equals(s.path("state").asText()) || s.path("generationTokensPerSecond").isNull()
          && s.path("requestsPerSecond").isNull()) {
        return false;
      }
    }
    return snapshot.path("gpus").size() == 3;
  }

  @Test
  void recordHistory_pointsAreTheSnapshotsValuesForTheSameState() throws Exception {
    FakeNvmlLibrary.Copy copy = FakeNvmlLibrary.copy("libfake-nvml-history-snapshot.so", 2);
    Path nvml = copy.path();
    FakeNvmlLibrary.Control fake = copy.control();
    fake.fake_nvml_set(0, "util.gpu", 87);
    fake.fake_nvml_set(0, "memory.used", 20 * GIB + 12_345_678); // more digits than a float keeps
    fake.fake_nvml_set(1, "util.gpu", 93);
    fake.fake_nvml_add_mig(1, 1, 0, 10 * GIB);
    try (DemoReplicas replicas = DemoReplicas.builder().seed(11).restarts(false).earlyBurst(true).start()) {
      AgentConfig cfg = new ConfigLoader().parse(config(replicas.replicas(), nvml), Map.of());
      try (AgentRuntime runtime = AgentRuntime.builder(cfg).build()) {
        runtime.start();
        assertThat(runtime.awaitFirstRefresh(Duration.ofSeconds(20))).isTrue();
        int servers = replicas.replicas().size();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!ratesKnown(runtime.snapshot(), servers) && System.nanoTime() < deadline) {
          Thread.sleep(100);
        }
        runtime.stopRefreshing(Duration.ofSeconds(10)); // the published state stays as it is now

        JsonNode snapshot = asServed(runtime.snapshot());
        assertThat(ratesKnown(snapshot, servers)).as("rates of every server and 3 GPUs: %s", snapshot).isTrue();
        long t = runtime.epochMillis();

        // What the recorder does: from the typed contributions, no JSON.
        History typed = History.forRefresh(cfg.refreshNormal());
        typed.record(t, runtime.contributions());

        int numbers = 0;
        int nulls = 0;
        for (JsonNode s : snapshot.get("inference")) {
          String name = s.get("name").asText();
          JsonNode doc = asServed(typed.server(name, t));
          assertThat(doc.get("times")).hasSize(1);
          for (History.ServerSeries series : History.ServerSeries.values()) {
            JsonNode expected = HistoryTest.documentValue(series, s);
            JsonNode point = doc.get("series").get(series.json).get(0);
            if (expected == null || expected.isNull()) {
              assertThat(point.isNull()).as(name + " " + series.json).isTrue();
              nulls++;
            } else {
              assertThat(point.isNull()).as(name + " " + series.json).isFalse();
              assertThat((float) point.asDouble()).as(name + " " + series.json).isEqualTo((float) expected.asDouble());
              numbers++;
            }
          }
        }
        for (JsonNode g : snapshot.get("gpus")) {
          String key = gpuKey(g);
          JsonNode doc = asServed(typed.gpu(key, t));
          assertThat(doc.get("times")).hasSize(1);
          for (String series : History.gpuSeriesNames()) {
            JsonNode expected = g.get(series);
            JsonNode point = doc.get("series").get(series).get(0);
            if (expected == null || expected.isNull()) {
              assertThat(point.isNull()).as("GPU " + key + " " + series).isTrue();
              nulls++;
            } else {
              assertThat((float) point.asDouble()).as("GPU " + key + " " + series).isEqualTo((float) expected.asDouble());
              numbers++;
            }
          }
        }
        List<String> names = new java.util.ArrayList<>();
        snapshot.get("inference").forEach(s -> names.add(s.get("name").asText()));
        assertThat(typed.index().get("servers")).extracting(JsonNode::asText).containsExactlyElementsOf(names);
        assertThat(typed.index().get("gpus").toString()).isEqualTo("[\"0\",\"1\",\"1:0\"]");
        assertThat(typed.serverNames()).containsExactlyElementsOf(DemoReplicas.NAMES);
        // Both kinds of values were compared: the engines differ in what they export.
        assertThat(numbers).isGreaterThan(50);
        assertThat(nulls).isGreaterThan(5);

        // The runtime's own recording is the same point.
        runtime.recordHistory();
        for (String name : DemoReplicas.NAMES) {
          JsonNode doc = asServed(runtime.history().server(name, runtime.epochMillis()));
          JsonNode last = asServed(typed.server(name, t)).get("series");
          int n = doc.get("times").size();
          for (String series : History.serverSeriesNames()) {
            assertThat(doc.get("series").get(series).get(n - 1)).as(name + " " + series).isEqualTo(last.get(series).get(0));
          }
        }
      }
    }
  }
}
