package dev.gputop.agent.prometheus;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The bytes of an exposition on their way to the client: a fixed array, written through to the
 * stream when full, with the few encodings /metrics needs (UTF-8, the Prometheus escapes, longs and
 * doubles as Prometheus's Java writers format them). Not synchronized and never grown: one per
 * read, on the thread that writes it.
 */
final class TextBuffer {

  private final OutputStream out;
  private final byte[] buf;
  private int len;
  private final StringBuilder digits = new StringBuilder(32);

  TextBuffer(OutputStream out, int size) {
    this.out = out;
    this.buf = new byte[size];
  }

  void write(int b) throws IOException {
    if (len == buf.length) {
      drain();
    }
    buf[len++] = (byte) b;
  }

  void write(byte[] b) throws IOException {
    write(b, 0, b.length);
  }

  void write(byte[] b, int off, int n) throws IOException {
    if (n > buf.length - len) {
      drain();
      if (n > buf.length) {
        out.write(b, off, n);
        return;
      }
    }
    System.arraycopy(b, off, buf, len, n);
    len += n;
  }

  /** An ASCII string (names, numbers). */
  void ascii(String s) throws IOException {
    int n = s.length();
    if (n > buf.length - len) {
      drain();
      if (n > buf.length) {
        for (int i = 0; i < n; i++) {
          write(s.charAt(i));
        }
        return;
      }
    }
    for (int i = 0; i < n; i++) {
      buf[len++] = (byte) s.charAt(i);
    }
  }

  /**
   * {@code s} in UTF-8, with {@code \}, {@code "} and newline escaped as in a label value ({@code
   * quotes}) or only {@code \} and newline (a text-format HELP). An unpaired surrogate is written as
   * {@code ?}, as the JDK's UTF-8 encoder writes it.
   */
  void escaped(String s, boolean quotes) throws IOException {
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (len > buf.length - 4) {
        drain();
      }
      if (c < 0x80) {
        if (c == '\\') {
          buf[len++] = '\\';
          buf[len++] = '\\';
        } else if (c == '\n') {
          buf[len++] = '\\';
          buf[len++] = 'n';
        } else if (c == '"' && quotes) {
          buf[len++] = '\\';
          buf[len++] = '"';
        } else {
          buf[len++] = (byte) c;
        }
      } else if (c < 0x800) {
        buf[len++] = (byte) (0xC0 | (c >> 6));
        buf[len++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
          int cp = Character.toCodePoint(c, s.charAt(++i));
          buf[len++] = (byte) (0xF0 | (cp >> 18));
          buf[len++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
          buf[len++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
          buf[len++] = (byte) (0x80 | (cp & 0x3F));
        } else {
          buf[len++] = '?';
        }
      } else {
        buf[len++] = (byte) (0xE0 | (c >> 12));
        buf[len++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        buf[len++] = (byte) (0x80 | (c & 0x3F));
      }
    }
  }

  /** Decimal digits of {@code v}, as {@code Long.toString}. */
  void decimal(long v) throws IOException {
    if (len > buf.length - 20) {
      drain();
    }
    if (v == Long.MIN_VALUE) {
      ascii("-9223372036854775808");
      return;
    }
    if (v < 0) {
      buf[len++] = '-';
      v = -v;
    }
    if (v <= Integer.MAX_VALUE) {
      decimal((int) v); // int division: C1 calls out for every long one
      return;
    }
    int digits = 1;
    for (long p = 10; digits < 19 && v >= p; p *= 10) {
      digits++;
    }
    int end = len + digits;
    for (int i = end - 1; i >= len; i--) {
      buf[i] = (byte) ('0' + (v % 10));
      v /= 10;
    }
    len = end;
  }

  /** Decimal digits of a non-negative int; room for them is there. */
  private void decimal(int v) {
    int digits = 1;
    for (int p = 10; digits < 10 && v >= p; p *= 10) {
      digits++;
    }
    int end = len + digits;
    for (int i = end - 1; i >= len; i--) {
      buf[i] = (byte) ('0' + (v % 10));
      v /= 10;
    }
    len = end;
  }

  /**
   * A value as Prometheus's text writers write a double: {@code +Inf}, {@code -Inf}, else {@link
   * Double#toString(double)} ({@code NaN}, {@code -0.0}, {@code 1.0E-4}). Whole numbers below
   * 10^7, most of what /metrics carries, are written without making the string.
   */
  void number(double d) throws IOException {
    if (d == (long) d && Math.abs(d) < 1e7) {
      long v = (long) d;
      if (v == 0 && Double.doubleToRawLongBits(d) != 0) {
        ascii("-0.0");
        return;
      }
      decimal(v);
      if (len > buf.length - 2) {
        drain();
      }
      buf[len++] = '.';
      buf[len++] = '0';
    } else if (d == Double.POSITIVE_INFINITY) {
      ascii("+Inf");
    } else if (d == Double.NEGATIVE_INFINITY) {
      ascii("-Inf");
    } else {
      // Double.toString's digits (the same FloatingDecimal), without making a string
      digits.setLength(0);
      digits.append(d);
      int n = digits.length();
      if (len > buf.length - n) {
        drain();
      }
      for (int i = 0; i < n; i++) {
        buf[len++] = (byte) digits.charAt(i);
      }
    }
  }

  /** {@link #number}'s text, as a string. */
  static String numberText(double d) {
    if (d == (long) d && Math.abs(d) < 1e7) {
      return Double.doubleToRawLongBits(d) == Double.doubleToRawLongBits(-0.0) ? "-0.0" : (long) d + ".0";
    }
    return d == Double.POSITIVE_INFINITY ? "+Inf" : d == Double.NEGATIVE_INFINITY ? "-Inf" : Double.toString(d);
  }

  /** What is buffered, as a new array, and the buffer emptied (for a stream that is not written to). */
  byte[] take() {
    byte[] out = Arrays.copyOf(buf, len);
    len = 0;
    return out;
  }

  /** Writes what is buffered to the stream. */
  void drain() throws IOException {
    if (len > 0) {
      out.write(buf, 0, len);
      len = 0;
    }
  }
}
