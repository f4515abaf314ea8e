package dev.gputop.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Xid events fired at a running agent: the shaded jar against the fake libnvidia-ml, which reads
 * events from FAKE_NVML_XID_FILE. An Xid 79 (the GPU falls off the bus) and an Xid 48 (double-bit
 * ECC) must show up in /metrics, as gpu_xid alerts in /api/snapshot, and in the GPUs' xidEvents.
 */
class GpuFaultsIT {

  private static final Duration WITHIN = Duration.ofSeconds(60);

  @TempDir Path dir;

  private final ObjectMapper json = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void run_xid79AndXid48_becomeMetricsAndAlerts() throws Exception {
    Path xidFile = Files.createFile(dir.resolve("xid"));
    Path config = dir.resolve("agent.yaml");
    Files.writeString(config, "listen: 127.0.0.1:0\nrefresh:\n  normal: 500ms\nnvml:\n  library: "
        + FakeNvmlLibrary.path() + "\ninference:\n  enabled: false\n");
    try (AgentProcess agent = AgentProcess.start(dir,
        Map.of("FAKE_NVML_DEVICE_COUNT", "2", "FAKE_NVML_XID_FILE", xidFile.toString()),
        "run", "--config", config.toString())) {
      String base = agent.awaitListener(WITHIN);
      // The critical codes are exported from 0 once the GPUs are registered for events.
      awaitMetrics(base, m -> Long.valueOf(0).equals(xid(m, "GPU 1", "79")) && Long.valueOf(0).equals(xid(m, "GPU 0", "48")));

      Files.writeString(xidFile, "1 79 lost\n0 48\n", StandardCharsets.US_ASCII, StandardOpenOption.APPEND);
      long fired = System.nanoTime();
      agent.awaitErr("Xid 48 (double-bit ECC error", WITHIN);
      JsonNode snapshot = awaitSnapshot(base, s -> names(s.get("alerts")).stream().filter("gpu_xid"::equals).count() == 2);
      double seconds = (System.nanoTime() - fired) / 1e9;
      System.out.println("[GpuFaultsIT] Xid 79 + 48 fired -> both gpu_xid alerts in the snapshot after " + seconds + " s (refresh 500 ms)");

      List<String> messages = new ArrayList<>();
      snapshot.get("alerts").forEach(a -> messages.add(a.get("name").asText() + ": " + a.get("message").asText()));
      assertThat(messages).anySatisfy(m -> assertThat(m).startsWith("gpu_xid: GPU 1 (GPU-fa4e0001")
          .contains("Xid 79 (GPU has fallen off the bus)"));
      assertThat(messages).anySatisfy(m -> assertThat(m).startsWith("gpu_xid: GPU 0 (GPU-fa4e0000")
          .contains("Xid 48 (double-bit ECC error (uncorrectable memory error))"));
      JsonNode gpu0 = snapshot.get("gpus").get(0);
      assertThat(gpu0.get("xidEvents")).hasSize(1);
      assertThat(gpu0.get("xidEvents").get(0).get("xid").asLong()).isEqualTo(48);
      assertThat(gpu0.get("xidEvents").get(0).get("critical").asBoolean()).isTrue();
      assertThat(gpu0.get("remappedRows").get("failed").asBoolean()).isFalse();
      assertThat(gpu0.get("pcieReplays").asLong()).isZero();
      assertThat(SnapshotSchema.errors(snapshot)).isEmpty();

      String metrics = awaitMetrics(base, m -> Long.valueOf(1).equals(xid(m, "GPU 1", "79")) && Long.valueOf(1).equals(xid(m, "GPU 0", "48")));
      assertThat(xid(metrics, "GPU 0", "79")).isZero();
      // The lost GPU follows as failed (the fake drops it off the bus with the event).
      JsonNode later = awaitSnapshot(base, s -> names(s.get("alerts")).contains("gpu_failed"));
      assertThat(later.get("gpus").get(1).get("state").asText()).isEqualTo("failed");
      assertThat(later.get("gpus").get(1).get("xidEvents").get(0).get("xid").asLong()).isEqualTo(79);
    }
  }

  /** The value of gputop_gpu_xid_total for a GPU (hw_name) and code, or null without that series. */
  private static Long xid(String exposition, String hwName, String code) {
    Matcher m = Pattern.compile("^gputop_gpu_xid_total\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE).matcher(exposition);
    while (m.find()) {
      String labels = m.group(1);
      if (labels.contains("hw_name=\"" + hwName + "\"") && labels.contains("xid=\"" + code + "\"")) {
        return (long) Double.parseDouble(m.group(2));
      }
    }
    return null;
  }

  private static List<String> names(JsonNode alerts) {
    List<String> names = new ArrayList<>();
    alerts.forEach(a -> names.add(a.get("name").asText()));
    return names;
  }

  private String awaitMetrics(String base, Predicate<String> done) throws Exception {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    String body = "";
    while (System.nanoTime() < deadline) {
      body = AgentProcess.get(http, base + "/metrics").body();
      if (done.test(body)) {
        return body;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("/metrics did not reach the expected state within " + WITHIN + ":\n" + body);
  }

  private JsonNode awaitSnapshot(String base, Predicate<JsonNode> done) throws Exception {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    JsonNode doc = null;
    while (System.nanoTime() < deadline) {
      doc = json.readTree(AgentProcess.get(http, base + "/api/snapshot").body());
      if (done.test(doc)) {
        return doc;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("/api/snapshot did not reach the expected state within " + WITHIN + ":\n" + doc);
  }
}
