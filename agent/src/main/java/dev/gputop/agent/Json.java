package dev.gputop.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * The agent's shared JSON mapper, for the snapshot, {@code /healthz} and the commands that print
 * JSON. It lives in its own class so that it is built on first use (the JVM initializes a class
 * when a static field is first read), not while {@code run} starts: building an {@link
 * ObjectMapper} loads some 400 classes, about 150 ms that the first scrape does not need.
 * Configured once, thread-safe afterwards.
 */
final class Json {

  static final ObjectMapper MAPPER =
      new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private Json() {}
}
