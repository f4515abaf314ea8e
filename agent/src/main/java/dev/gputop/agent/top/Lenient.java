package dev.gputop.agent.top;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.databind.deser.ValueInstantiator;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * How {@code top} reads the agent's documents into its views: as leniently as a client of a
 * document it does not own must. Unknown fields are ignored; a field that is missing, null or of
 * the wrong type (an object where a number belongs, a number written as a string) reads as null
 * (empty text where text belongs), which the screen shows as N/A, and never fails the document:
 * only text that is not JSON does. Numbers given as strings are not converted (they read as
 * null: the snapshot's numbers are never strings), nor are whole numbers beyond their type's
 * range; text fields take a number or boolean as its text. Its own mapper: this leniency is
 * top's, not how the agent reads anything else. Thread-safe.
 */
final class Lenient {

  private static final ObjectMapper MAPPER = mapper();

  private Lenient() {}

  private static ObjectMapper mapper() {
    ObjectMapper m = new ObjectMapper()
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .addHandler(new WrongTypeIsNull())
        .registerModule(new SimpleModule("top-lenient")
            .addDeserializer(Integer.class,
                new WholeOrNull<>(Integer.class, Integer.MIN_VALUE, Integer.MAX_VALUE, Math::toIntExact))
            .addDeserializer(Long.class, new WholeOrNull<>(Long.class, Long.MIN_VALUE, Long.MAX_VALUE, x -> x)));
    m.coercionConfigFor(LogicalType.Float)
        .setCoercion(CoercionInputShape.String, CoercionAction.AsNull)
        .setCoercion(CoercionInputShape.EmptyString, CoercionAction.AsNull);
    // "" where an object or a list belongs: databind fails those before asking the handler
    m.coercionConfigDefaults().setCoercion(CoercionInputShape.EmptyString, CoercionAction.AsNull);
    return m;
  }

  /** {@code json} (a whole document) as {@code type}; null for JSON {@code null}. */
  static <T> T read(byte[] json, Class<T> type) throws IOException {
    return MAPPER.readValue(json, type);
  }

  /** A document already parsed (the local receivers' snapshot) as {@code type}, by the same rules. */
  static <T> T read(JsonNode json, Class<T> type) {
    try {
      return MAPPER.readerFor(type).readValue(json);
    } catch (IOException e) {
      // A tree holds no malformed JSON, and a wrong type reads as null: nothing else can fail.
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** {@code list} unmodifiable, empty for null, each null element (a wrong type) as {@code empty}. */
  static <T> List<T> rows(List<T> list, T empty) {
    if (list == null) {
      return List.of();
    }
    List<T> out = new ArrayList<>(list.size());
    list.forEach(x -> out.add(x == null ? empty : x));
    return Collections.unmodifiableList(out);
  }

  /** {@code list} unmodifiable, empty for null; null elements stay (they are shown as "null", as JSON writes them). */
  static <T> List<T> values(List<T> list) {
    return list == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(list));
  }

  /** {@code value}, or {@code empty} for a missing or mistyped object. */
  static <T> T orEmpty(T value, T empty) {
    return value == null ? empty : value;
  }

  /**
   * A whole number (a GPU index, a time in milliseconds) that reads as null unless it is a JSON
   * number within the type's range: databind's own fails the whole document on one out of range.
   * A fraction is cut to its whole part, as {@code JsonNode.asInt()} does.
   */
  private static final class WholeOrNull<T extends Number> extends StdScalarDeserializer<T> {
    private static final long serialVersionUID = 1L;
    private final double min;
    private final double max;
    private final transient Function<Long, T> box;

    WholeOrNull(Class<T> type, long min, long max, Function<Long, T> box) {
      super(type);
      this.min = min;
      this.max = max;
      this.box = box;
    }

    @Override
    public T deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      JsonToken t = p.currentToken();
      if (t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
        long v = p.getLongValue();
        return v >= min && v <= max ? box.apply(v) : null;
      }
      if (t == JsonToken.VALUE_NUMBER_FLOAT) {
        double v = p.getDoubleValue();
        return v >= min && v <= max ? box.apply((long) v) : null;
      }
      p.skipChildren();
      return null;
    }
  }

  /**
   * A value of the wrong shape for its field (an array for a number, a string for an object) reads
   * as null; an object or array where text belongs as empty text, as {@code JsonNode.asText()}
   * gives it (the screen shows N/A or nothing there, as it did reading trees).
   */
  private static final class WrongTypeIsNull extends DeserializationProblemHandler {
    @Override
    public Object handleUnexpectedToken(DeserializationContext ctxt, JavaType targetType, JsonToken t,
        JsonParser p, String failureMsg) throws IOException {
      p.skipChildren();
      return targetType.hasRawClass(String.class) ? "" : null;
    }

    @Override
    public Object handleMissingInstantiator(DeserializationContext ctxt, Class<?> instClass,
        ValueInstantiator valueInsta, JsonParser p, String msg) throws IOException {
      p.skipChildren();
      return null;
    }

    @Override
    public Object handleWeirdStringValue(DeserializationContext ctxt, Class<?> targetType, String valueToConvert,
        String failureMsg) {
      return null;
    }

    @Override
    public Object handleWeirdNumberValue(DeserializationContext ctxt, Class<?> targetType, Number valueToConvert,
        String failureMsg) {
      return null;
    }
  }
}
