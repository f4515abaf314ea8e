package dev.gputop.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The JSON Schemas shipped in the agent, for tests: the snapshot's (snapshot.schema.json) and
 * /api/history's (history.schema.json).
 */
public final class SnapshotSchema {

  private static final JsonSchema SCHEMA = load("snapshot.schema.json");
  private static final JsonSchema HISTORY = load("history.schema.json");

  private SnapshotSchema() {}

  /** The validation errors of {@code doc}; empty when it conforms. */
  public static List<String> errors(JsonNode doc) {
    return SCHEMA.validate(doc).stream().map(ValidationMessage::toString).sorted().collect(Collectors.toList());
  }

  /** The validation errors of a document of {@code GET /api/history}; empty when it conforms. */
  public static List<String> historyErrors(JsonNode doc) {
    return HISTORY.validate(doc).stream().map(ValidationMessage::toString).sorted().collect(Collectors.toList());
  }

  private static JsonSchema load(String name) {
    try (InputStream in = SnapshotSchema.class.getResourceAsStream("/" + name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is not on the classpath");
      }
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
