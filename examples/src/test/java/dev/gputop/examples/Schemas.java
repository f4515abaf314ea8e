package dev.gputop.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Set;

/** JSON Schema validation of example files against the schemas under src/test/resources/schemas. */
final class Schemas {

  private Schemas() {}

  static JsonSchema load(String name) {
    try (InputStream in = Schemas.class.getResourceAsStream("/schemas/" + name)) {
      assertThat(in).as("schema " + name).isNotNull();
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void assertValid(JsonSchema schema, JsonNode document, String what) {
    Set<ValidationMessage> errors = schema.validate(document);
    assertThat(errors).as(what + " against its schema").isEmpty();
  }
}
