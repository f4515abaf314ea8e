package dev.gputop.agent.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gputop.config.Clock;
import dev.gputop.config.HealthStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Merges the sections receivers publish into the snapshot document of docs/json-schema.md.
 *
 * <p>Merge rule, applied field by field in receiver start order: two lists are concatenated, two
 * objects are merged key by key (recursively, with the same rule), anything else is replaced by the
 * later receiver's value. Then the fixed shape is enforced: {@code gpus}, {@code inference} and
 * {@code alerts} default to empty lists, {@code overview.serving} to an object whose five fields
 * are null, and non-finite numbers become null (JSON has no NaN).
 *
 * <p>Thread-safe: stateless; values are converted with the shared {@link Json#MAPPER}.
 */
public final class SnapshotAssembler {

  private static final Logger logger = Logger.getLogger(SnapshotAssembler.class.getName());

  static final List<String> SERVING_FIELDS =
      List.of("worstTtftP99", "worstItlP50", "generationTokensPerSecond", "waiting", "worstSloAttainment");

  private final Clock clock;

  public SnapshotAssembler(Clock clock) {
    this.clock = clock;
  }

  public ObjectNode assemble(List<Map<String, Object>> sections, Map<String, HealthStatus> health) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode merged = f.objectNode();
    for (Map<String, Object> section : sections) {
      if (section == null) {
        continue;
      }
      for (Map.Entry<String, Object> e : section.entrySet()) {
        JsonNode value;
        try {
          value = Json.MAPPER.valueToTree(e.getValue());
        } catch (IllegalArgumentException ex) {
          logger.log(Level.WARNING, "snapshot section '" + e.getKey() + "' can't be written as JSON; left out", ex);
          continue;
        }
        merged.set(e.getKey(), merge(merged.get(e.getKey()), value));
      }
    }

    ObjectNode doc = f.objectNode();
    Instant now = Instant.ofEpochSecond(0, clock.epochNanos()).truncatedTo(ChronoUnit.MILLIS);
    doc.put("timestamp", now.toString());
    doc.set("gpus", asList(merged.remove("gpus")));
    doc.set("inference", asList(merged.remove("inference")));
    doc.set("overview", overview(merged.remove("overview")));
    doc.set("alerts", asList(merged.remove("alerts")));
    merged.remove("health"); // the runtime owns health; a receiver can't overwrite it
    ObjectNode h = doc.putObject("health");
    for (Map.Entry<String, HealthStatus> e : health.entrySet()) {
      h.set(e.getKey(), health(e.getValue()));
    }
    doc.setAll(merged);
    scrubNonFinite(doc);
    return doc;
  }

  /** Lists concatenate, objects merge by key, anything else: the newer value wins. */
  static JsonNode merge(JsonNode older, JsonNode newer) {
    if (older == null || older.isNull()) {
      return newer;
    }
    if (older.isArray() && newer.isArray()) {
      ArrayNode out = ((ArrayNode) older).deepCopy();
      out.addAll((ArrayNode) newer);
      return out;
    }
    if (older.isObject() && newer.isObject()) {
      ObjectNode out = ((ObjectNode) older).deepCopy();
      Iterator<Map.Entry<String, JsonNode>> it = newer.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        out.set(e.getKey(), merge(out.get(e.getKey()), e.getValue()));
      }
      return out;
    }
    return newer;
  }

  public static ObjectNode health(HealthStatus status) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("state", status.state().jsonName());
    ArrayNode reasons = n.putArray("reasons");
    status.reasons().forEach(reasons::add);
    return n;
  }

  private static ArrayNode asList(JsonNode node) {
    if (node != null && node.isArray()) {
      return (ArrayNode) node;
    }
    ArrayNode out = JsonNodeFactory.instance.arrayNode();
    if (node != null && !node.isNull()) {
      out.add(node); // a receiver that published one entry instead of a list
    }
    return out;
  }

  private static ObjectNode overview(JsonNode node) {
    ObjectNode overview =
        node != null && node.isObject() ? (ObjectNode) node : JsonNodeFactory.instance.objectNode();
    JsonNode s = overview.get("serving");
    ObjectNode serving = s != null && s.isObject() ? (ObjectNode) s : JsonNodeFactory.instance.objectNode();
    ObjectNode ordered = JsonNodeFactory.instance.objectNode();
    for (String field : SERVING_FIELDS) {
      JsonNode v = serving.get(field);
      ordered.set(field, v == null ? JsonNodeFactory.instance.nullNode() : v);
    }
    ordered.setAll(serving);
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.set("serving", ordered);
    overview.remove("serving");
    out.setAll(overview);
    return out;
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
