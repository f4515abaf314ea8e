package dev.gputop.config.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TerminalTextTest {

  @Test
  void value_escapesC0DelC1AndBidiVisibly_newlinesIncluded() {
    assertThat(TerminalText.value("a\u001b]0;pwned\u0007b")).isEqualTo("a\\x1b]0;pwned\\x07b");
    assertThat(TerminalText.value("x\u009b31my")).isEqualTo("x\\x9b31my"); // C1 CSI
    assertThat(TerminalText.value("\u007f\u0000\t\r")).isEqualTo("\\x7f\\x00\\x09\\x0d");
    assertThat(TerminalText.value("abc\u202egnp.exe")).isEqualTo("abc\\u202egnp.exe");
    assertThat(TerminalText.value("\u061c\u200e\u200f\u202a\u2066\u2069\u2028\u2029"))
        .isEqualTo("\\u061c\\u200e\\u200f\\u202a\\u2066\\u2069\\u2028\\u2029");
    assertThat(TerminalText.value("chat\nengine: forged")).isEqualTo("chat\\x0aengine: forged");
  }

  @Test
  void lines_keepTheLineFeedsOfTheLayoutAndEscapeTheRest() {
    assertThat(TerminalText.lines("one\ntwo\u001b[2J\r\n")).isEqualTo("one\ntwo\\x1b[2J\\x0d\n");
  }

  @Test
  void ordinaryText_isLeftAsItIs_theSameString() {
    String s = "vllm-dp2 {model=\"Llama-3.1-8B\"} 0.25 s — ünïcode, 中文, emoji \uD83D\uDE80, back\\slash";
    assertThat(TerminalText.value(s)).isSameAs(s);
    assertThat(TerminalText.lines("a\nb\n")).isEqualTo("a\nb\n");
    assertThat(TerminalText.value(null)).isEqualTo("null");
  }

  @Test
  void everyCodePointBelowU2100_isEscapedExactlyWhenATerminalWouldActOnIt() {
    for (int cp = 0; cp < 0x2100; cp++) {
      boolean control = cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f);
      boolean bidi = cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e)
          || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
      String out = TerminalText.value(String.valueOf((char) cp));
      assertThat(out.equals(String.valueOf((char) cp))).as("U+%04X", cp).isEqualTo(!(control || bidi));
      if (control || bidi) {
        assertThat(out).as("U+%04X", cp).matches("\\\\(x[0-9a-f]{2}|u[0-9a-f]{4})");
      }
    }
  }
}
