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

/** The snapshot JSON Schema shipped in the agent (snapshot.schema.json), for tests. */
final class SnapshotSchema {

  private static final JsonSchema SCHEMA = load();

  private SnapshotSchema() {}

  /** The validation errors of {@code doc}; empty when it conforms. */
  static List<String> errors(JsonNode doc) {
    return SCHEMA.validate(doc).stream().map(ValidationMessage::toString).sorted().collect(Collectors.toList());
  }

  private static JsonSchema load() {
    try (InputStream in = SnapshotSchema.class.getResourceAsStream("/snapshot.schema.json")) {
      if (in == null) {
        throw new IllegalStateException("snapshot.schema.json is not on the classpath");
      }
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
