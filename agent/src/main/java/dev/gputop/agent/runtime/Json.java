package dev.gputop.agent.runtime;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.gputop.config.internal.TerminalText;

/**
 * The agent's shared JSON mapper, for the snapshot, {@code /healthz} and the commands that print
 * JSON. It lives in its own class so that it is built on first use (the JVM initializes a class
 * when a static field is first read), not while {@code run} starts: building an {@link
 * ObjectMapper} loads some 400 classes, about 150 ms that the first scrape does not need.
 * Configured once, thread-safe afterwards.
 */
public final class Json {

  public static final ObjectMapper MAPPER =
      new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  /**
   * How the commands print JSON to a terminal: indented, and with every character {@link
   * TerminalText} escapes written as a JSON {@code \}{@code uXXXX} escape (JSON escapes only C0
   * itself), so the document is the same to a parser and harmless to a terminal.
   */
  public static final ObjectWriter PRINTER = MAPPER.writerWithDefaultPrettyPrinter().with(new TerminalEscapes());

  private Json() {}

  /** JSON's standard escapes, plus DEL, C1 and the bidi controls as {@code \}{@code uXXXX}. */
  private static final class TerminalEscapes extends CharacterEscapes {
    private final int[] ascii = CharacterEscapes.standardAsciiEscapesForJSON();

    TerminalEscapes() {
      ascii[0x7f] = CharacterEscapes.ESCAPE_STANDARD;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      return TerminalText.unsafe(ch) ? new SerializedString(String.format("\\u%04x", ch)) : null;
    }
  }
}
