package dev.gputop.inference.scrape;

import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Collects a response body into one array, never holding more than a limit. Over the limit it
 * either fails with {@link Outcome#TOO_LARGE} (a metrics body: a partial exposition is worthless)
 * or stops and keeps what it has (an error page, of which only the start is shown). Either way it
 * cancels the subscription, which closes the connection, so a server that sends forever costs
 * the agent at most {@code limit} bytes.
 *
 * <p>The HTTP client calls {@code on*} serially; {@link #cancel()} may be called from any thread
 * (the deadline timer), and {@link #received()} read from any thread.
 */
final class BoundedBodySubscriber
    implements HttpResponse.BodySubscriber<BoundedBodySubscriber.Body> {

  /** A collected body: the first {@code length} bytes of {@code bytes} are valid. */
  record Body(byte[] bytes, int length) {}

  private static final int INITIAL_CAPACITY = 16 << 10;
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 16;

  private final long limit;
  private final boolean truncate;
  private final String limitMessage;
  private final CompletableFuture<Body> result = new CompletableFuture<>();
  private volatile Flow.Subscription subscription;
  private volatile boolean cancelled;
  private volatile long received;
  private byte[] buffer;
  private int length;

  /**
   * @param limit most bytes kept
   * @param truncate true to stop quietly at the limit, false to fail with TOO_LARGE
   * @param expectedLength the Content-Length, or -1, to size the first buffer
   * @param limitMessage the TOO_LARGE message
   */
  BoundedBodySubscriber(long limit, boolean truncate, long expectedLength, String limitMessage) {
    this.limit = Math.min(limit, MAX_ARRAY);
    this.truncate = truncate;
    this.limitMessage = limitMessage;
    long initial = expectedLength >= 0 ? Math.min(expectedLength, this.limit) : INITIAL_CAPACITY;
    this.buffer = new byte[(int) Math.min(Math.max(initial, 0), Math.min(this.limit, 1 << 20))];
  }

  /**
   * Fails the body before any byte is read (a Content-Length over the limit): the connection is
   * closed as soon as the client subscribes.
   */
  BoundedBodySubscriber reject(ScrapeFailure failure) {
    result.completeExceptionally(failure);
    cancel();
    return this;
  }

  /** Bytes received so far, including any beyond the limit that were dropped. */
  long received() {
    return received;
  }

  /** Stops reading and closes the connection; the body future is left to whoever completes it. */
  void cancel() {
    cancelled = true;
    Flow.Subscription s = subscription;
    if (s != null) {
      s.cancel();
    }
  }

  @Override
  public CompletionStage<Body> getBody() {
    return result;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    if (cancelled) {
      s.cancel();
      return;
    }
    s.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    if (result.isDone()) {
      return;
    }
    for (ByteBuffer item : items) {
      int n = item.remaining();
      received += n;
      if ((long) length + n > limit) {
        if (truncate) {
          int keep = (int) (limit - length);
          append(item, keep);
          result.complete(new Body(buffer, length));
        } else {
          result.completeExceptionally(new ScrapeFailure(Outcome.TOO_LARGE, limitMessage));
        }
        cancel();
        return;
      }
      append(item, n);
    }
  }

  @Override
  public void onError(Throwable throwable) {
    result.completeExceptionally(throwable);
  }

  @Override
  public void onComplete() {
    // A body without Content-Length grew by doubling: give back a large unused tail, since the
    // result may be kept for a while.
    if (buffer.length - length > Math.max(length / 4, 64 << 10)) {
      buffer = Arrays.copyOf(buffer, length);
    }
    result.complete(new Body(buffer, length));
  }

  private void append(ByteBuffer item, int n) {
    if (n <= 0) {
      return;
    }
    if (length + n > buffer.length) {
      long grown = Math.max((long) buffer.length * 2, (long) length + n);
      buffer = Arrays.copyOf(buffer, (int) Math.min(grown, limit));
    }
    item.get(buffer, length, n);
    length += n;
  }
}
