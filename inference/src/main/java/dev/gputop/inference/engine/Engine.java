package dev.gputop.inference.engine;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * An inference engine, by the identifier of its profile ({@code vllm}, {@code sglang}, ...).
 * Engines are data: every profile file names one, and a user's profile may add another, so this
 * is a value, not an enum. Instances are interned, so {@code ==} and {@link #equals} agree.
 * Immutable and thread-safe.
 */
public final class Engine {

  /** What an engine identifier may look like: it is a JSON value and a metric attribute. */
  static final Pattern ID = Pattern.compile("[a-z][a-z0-9_.-]{0,31}");

  private static final ConcurrentHashMap<String, Engine> INTERNED = new ConcurrentHashMap<>();

  public static final Engine VLLM = of("vllm");
  public static final Engine SGLANG = of("sglang");
  public static final Engine TGI = of("tgi");
  public static final Engine LLAMACPP = of("llamacpp");
  /** An endpoint whose metric names match no known engine: shown {@code up}, every value N/A. */
  public static final Engine UNKNOWN = of("unknown");

  private final String id;

  private Engine(String id) {
    this.id = id;
  }

  /**
   * The engine with this identifier.
   *
   * @throws IllegalArgumentException when the identifier is not lower-case letters, digits,
   *     {@code _ . -} (at most 32, starting with a letter)
   */
  public static Engine of(String id) {
    Objects.requireNonNull(id, "id");
    Engine e = INTERNED.get(id);
    if (e != null) {
      return e;
    }
    if (!ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          "engine id '" + id + "' must be lower-case letters, digits, '_', '.' or '-', starting with a letter");
    }
    return INTERNED.computeIfAbsent(id, Engine::new);
  }

  /** The identifier used in JSON and the {@code engine} attribute. */
  public String id() {
    return id;
  }

  @Override
  public String toString() {
    return id;
  }
}
