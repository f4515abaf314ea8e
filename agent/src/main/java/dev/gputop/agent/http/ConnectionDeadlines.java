package dev.gputop.agent.http;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.io.ssl.SslHandshakeListener;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The listener's deadlines for slow clients, which Jetty's idle timeout alone does not give (a
 * client that sends one byte every few seconds is never idle): a TLS handshake must finish within
 * {@code handshake} of the connection opening, and a request's line and headers must arrive
 * within {@code headers} of its first byte. A connection past either is closed. Jetty holds no
 * thread for a connection that is waiting for bytes, so slow clients cost a socket and a little
 * memory each, and this bounds for how long (the connection limit bounds how many).
 *
 * <p>Checked by a sweep every {@link #SWEEP}, on the server's scheduler: a deadline is kept to
 * within that much. Registered on the connector as a bean, so Jetty hands it every connection
 * ({@link Connection.Listener}) and every TLS handshake's outcome ({@link SslHandshakeListener}).
 * Jetty's {@code HttpConnection} is in its {@code internal} package: its parser's state is the one
 * place that says a request's headers are under way, and Jetty's own timeouts don't cover it
 * (the version is pinned in the pom; {@code ListenerSiegeTest} fails if it moves). Thread-safe.
 */
final class ConnectionDeadlines extends AbstractLifeCycle implements Connection.Listener, SslHandshakeListener {

  static final Duration SWEEP = Duration.ofMillis(500);

  private final long handshakeNanos;
  private final long headersNanos;
  private final Scheduler scheduler;
  private final NanoClock clock;

  /** Open HTTP/1 connections and, per each, when it was first seen reading a request's headers. */
  private final Map<HttpConnection, Mark> http = new ConcurrentHashMap<>();
  /** TLS connections whose handshake has not finished, and when each opened. */
  private final Map<SSLEngine, Pending> handshakes = new ConcurrentHashMap<>();

  /** The time source, {@link System#nanoTime} outside tests. */
  interface NanoClock {
    long nanoTime();
  }

  private record Mark(long messagesIn, long sinceNanos) {}

  private record Pending(SslConnection connection, long openedNanos) {}

  ConnectionDeadlines(Duration handshake, Duration headers, Scheduler scheduler, NanoClock clock) {
    this.handshakeNanos = handshake.toNanos();
    this.headersNanos = headers.toNanos();
    this.scheduler = scheduler;
    this.clock = clock;
  }

  @Override
  protected void doStart() {
    schedule();
  }

  private void schedule() {
    if (isRunning() || isStarting()) {
      scheduler.schedule(this::sweepAndReschedule, SWEEP.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void sweepAndReschedule() {
    try {
      sweep();
    } finally {
      schedule();
    }
  }

  @Override
  public void onOpened(Connection connection) {
    if (connection instanceof SslConnection ssl) {
      handshakes.put(ssl.getSSLEngine(), new Pending(ssl, clock.nanoTime()));
    } else if (connection instanceof HttpConnection h) {
      http.put(h, new Mark(-1, 0));
    }
  }

  @Override
  public void onClosed(Connection connection) {
    if (connection instanceof SslConnection ssl) {
      handshakes.remove(ssl.getSSLEngine());
    } else if (connection instanceof HttpConnection h) {
      http.remove(h);
    }
  }

  @Override
  public void handshakeSucceeded(Event event) {
    handshakes.remove(event.getSSLEngine());
  }

  @Override
  public void handshakeFailed(Event event, Throwable failure) {
    handshakes.remove(event.getSSLEngine());
  }

  /** Closes the connections past a deadline; the number closed. */
  int sweep() {
    long now = clock.nanoTime();
    int closed = 0;
    for (Pending p : handshakes.values()) {
      if (now - p.openedNanos() > handshakeNanos) {
        handshakes.remove(p.connection().getSSLEngine());
        p.connection().getEndPoint().close();
        closed++;
      }
    }
    for (Map.Entry<HttpConnection, Mark> e : http.entrySet()) {
      HttpConnection c = e.getKey();
      long messages = c.getMessagesIn();
      if (!readingHeaders(c.getParser())) {
        e.setValue(new Mark(-1, 0));
        continue;
      }
      Mark mark = e.getValue();
      if (mark.messagesIn() != messages) {
        // The first sweep to see this request's headers under way starts its clock.
        e.setValue(new Mark(messages, now));
      } else if (now - mark.sinceNanos() > headersNanos) {
        http.remove(c);
        c.getEndPoint().close();
        closed++;
      }
    }
    return closed;
  }

  /** Between a request's first byte and the end of its headers. */
  private static boolean readingHeaders(HttpParser parser) {
    int state = parser.getState().ordinal();
    return state > HttpParser.State.START.ordinal() && state < HttpParser.State.CONTENT.ordinal();
  }
}
