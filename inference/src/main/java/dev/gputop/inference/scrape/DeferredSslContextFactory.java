package dev.gputop.inference.scrape;

import javax.net.ssl.SSLEngine;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Jetty's TLS client settings with the JDK's trust store, set up at the first TLS connection
 * rather than when the HTTP client starts.
 *
 * <p>Why: starting a {@link SslContextFactory} builds its {@code SSLContext}, which initializes
 * JSSE and parses the JDK's whole CA store, about a third of a second of CPU on a cold JVM and the
 * largest single cost of the agent's time to its first scrape (docs/PERFORMANCE.md). A scraper
 * that only sees http:// endpoints never needs it. The setup runs at the first {@link
 * #newSSLEngine}, or at {@link #initialize()}, which the scraper calls before a cycle with an
 * https:// target so that the cost is not taken from that cycle's deadline. Thread-safe.
 */
final class DeferredSslContextFactory extends SslContextFactory.Client {

  private volatile boolean initialized;

  @Override
  protected void doStart() {
    // Deferred to initialize(): see the class comment.
  }

  /** Whether the TLS context has been built (JSSE initialized). */
  boolean initialized() {
    return initialized;
  }

  /**
   * Builds the TLS context now, if it is not built yet.
   *
   * @throws IllegalStateException when the JDK has no usable TLS context
   */
  void initialize() {
    if (initialized) {
      return;
    }
    synchronized (this) {
      if (initialized) {
        return;
      }
      try {
        super.doStart();
      } catch (Exception e) {
        throw new IllegalStateException("TLS could not be initialized: " + e.getMessage(), e);
      }
      initialized = true;
    }
  }

  @Override
  public SSLEngine newSSLEngine() {
    initialize();
    return super.newSSLEngine();
  }

  @Override
  public SSLEngine newSSLEngine(String host, int port) {
    initialize();
    return super.newSSLEngine(host, port);
  }
}
