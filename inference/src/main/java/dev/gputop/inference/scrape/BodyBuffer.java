package dev.gputop.inference.scrape;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Collects a response body into one array, never holding more than a limit. Over the limit
 * {@link #append} says so and keeps what it has; the caller then either fails the scrape with
 * {@link ScrapeResult.Outcome#TOO_LARGE} (a metrics body: a partial exposition is worthless) or
 * stops and keeps the start (an error page, of which only the start is shown). Either way the
 * caller aborts the response, which closes the connection, so a server that sends forever costs
 * the agent at most {@code limit} bytes.
 *
 * <p>Appended to by one thread at a time (the HTTP client delivers content serially); {@link
 * #received()} may be read from any thread.
 */
final class BodyBuffer {

  /** A collected body: the first {@code length} bytes of {@code bytes} are valid. */
  record Body(byte[] bytes, int length) {}

  private static final int INITIAL_CAPACITY = 16 << 10;
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 16;

  private final long limit;
  private volatile long received;
  private byte[] buffer;
  private int length;

  /**
   * @param limit most bytes kept
   * @param expectedLength the Content-Length, or -1, to size the first buffer
   */
  BodyBuffer(long limit, long expectedLength) {
    this.limit = Math.min(limit, MAX_ARRAY);
    long initial = expectedLength >= 0 ? Math.min(expectedLength, this.limit) : INITIAL_CAPACITY;
    this.buffer = new byte[(int) Math.min(Math.max(initial, 0), Math.min(this.limit, 1 << 20))];
  }

  /** Bytes received so far, including any beyond the limit that were dropped. */
  long received() {
    return received;
  }

  /**
   * Copies {@code content} in; returns false when it would cross the limit, in which case the
   * bytes up to the limit are kept and the rest dropped.
   */
  boolean append(ByteBuffer content) {
    int n = content.remaining();
    received += n;
    if ((long) length + n > limit) {
      copy(content, (int) (limit - length));
      return false;
    }
    copy(content, n);
    return true;
  }

  /**
   * The body collected so far. A body without Content-Length grew by doubling: a large unused
   * tail is given back first, since the result may be kept for a while.
   */
  Body body() {
    if (buffer.length - length > Math.max(length / 4, 64 << 10)) {
      buffer = Arrays.copyOf(buffer, length);
    }
    return new Body(buffer, length);
  }

  private void copy(ByteBuffer content, int n) {
    if (n <= 0) {
      return;
    }
    if (length + n > buffer.length) {
      long grown = Math.max((long) buffer.length * 2, (long) length + n);
      buffer = Arrays.copyOf(buffer, (int) Math.min(grown, limit));
    }
    content.get(buffer, length, n);
    length += n;
  }
}
