package dev.gputop.agent.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gputop.receiver.Clock;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.ServingOverview;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Writes the snapshot document of docs/json-schema.md from the receivers' typed contributions,
 * the one place it is written: {@code timestamp}, then {@code gpus}, {@code inference} and {@code
 * alerts} (each receiver's entries concatenated in receiver start order), {@code overview.serving}
 * (the {@link ServingOverview} of the receiver that computes one, the later one's if several do;
 * {@link ServingOverview#NONE} when none does), {@code health} (the runtime's), then the further
 * sections (the later receiver's for a name two publish). Each entry is written as Jackson writes
 * its type; one that can't be written is left out (logged). Non-finite numbers become null (JSON
 * has no NaN).
 *
 * <p>Thread-safe: stateless; values are converted with the shared {@link Json#MAPPER}.
 */
public final class SnapshotAssembler {

  private static final Logger logger = Logger.getLogger(SnapshotAssembler.class.getName());

  private final Clock clock;

  public SnapshotAssembler(Clock clock) {
    this.clock = clock;
  }

  public ObjectNode assemble(List<Contribution> contributions, Map<String, HealthStatus> health) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode doc = f.objectNode();
    Instant now = Instant.ofEpochSecond(0, clock.epochNanos()).truncatedTo(ChronoUnit.MILLIS);
    doc.put("timestamp", now.toString());
    ArrayNode gpus = doc.putArray("gpus");
    ArrayNode inference = doc.putArray("inference");
    ObjectNode overview = doc.putObject("overview");
    ArrayNode alerts = doc.putArray("alerts");
    ServingOverview serving = ServingOverview.NONE;
    Map<String, Object> further = new LinkedHashMap<>();
    for (Contribution c : contributions) {
      addAll(gpus, c.gpus(), "gpus");
      addAll(inference, c.servers(), "inference");
      addAll(alerts, c.alerts(), "alerts");
      if (c.overview() != null) {
        serving = c.overview();
      }
      further.putAll(c.furtherSections());
    }
    overview.set("serving", tree(serving, "overview.serving"));
    ObjectNode h = doc.putObject("health");
    for (Map.Entry<String, HealthStatus> e : health.entrySet()) {
      h.set(e.getKey(), health(e.getValue()));
    }
    further.forEach((name, value) -> {
      JsonNode section = tree(value, name);
      if (section != null) {
        doc.set(name, section);
      }
    });
    scrubNonFinite(doc);
    return doc;
  }

  private static void addAll(ArrayNode out, List<?> entries, String field) {
    for (Object entry : entries) {
      JsonNode node = tree(entry, field);
      if (node != null) {
        out.add(node);
      }
    }
  }

  /** The value as JSON, or null (logged) when Jackson can't write it. */
  private static JsonNode tree(Object value, String field) {
    try {
      return Json.MAPPER.valueToTree(value);
    } catch (IllegalArgumentException e) {
      logger.log(Level.WARNING, "snapshot: an entry of '" + field + "' can't be written as JSON; left out", e);
      return null;
    }
  }

  public static ObjectNode health(HealthStatus status) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("state", status.state().jsonName());
    ArrayNode reasons = n.putArray("reasons");
    status.reasons().forEach(reasons::add);
    return n;
  }

  /** JSON has no NaN or infinity; a receiver's NaN means "not available", which is null. */
  private static void scrubNonFinite(JsonNode node) {
    if (node.isObject()) {
      ObjectNode o = (ObjectNode) node;
      Iterator<Map.Entry<String, JsonNode>> it = o.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        if (isNonFinite(e.getValue())) {
          e.setValue(JsonNodeFactory.instance.nullNode());
        } else {
          scrubNonFinite(e.getValue());
        }
      }
    } else if (node.isArray()) {
      ArrayNode a = (ArrayNode) node;
      for (int i = 0; i < a.size(); i++) {
        if (isNonFinite(a.get(i))) {
          a.set(i, JsonNodeFactory.instance.nullNode());
        } else {
          scrubNonFinite(a.get(i));
        }
      }
    }
  }

  private static boolean isNonFinite(JsonNode n) {
    return n.isFloatingPointNumber() && !Double.isFinite(n.doubleValue());
  }
}
