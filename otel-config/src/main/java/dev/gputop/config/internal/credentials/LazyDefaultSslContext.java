package dev.gputop.config.internal.credentials;

import java.security.KeyManagementException;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * The JDK's default {@link SSLContext}, fetched when a TLS connection first needs it rather than
 * when an HTTP client is built.
 *
 * <p>Why: {@link java.net.http.HttpClient.Builder#build()} without an SSL context calls {@link
 * SSLContext#getDefault()}, which initializes JSSE and parses the JDK's whole CA store. That is
 * about a third of a second of CPU on a cold JVM, the largest single cost of the agent's time to
 * its first scrape (docs/PERFORMANCE.md), and a client that scrapes or exports over plain http://
 * never needs it. A client built with this context initializes JSSE at its first TLS handshake
 * instead, or when {@link #initialize()} is called.
 *
 * <p>Its {@linkplain SSLContext#getDefaultSSLParameters() default parameters} are an empty {@link
 * SSLParameters}: no protocols, cipher suites or other settings named, which an {@link SSLEngine}
 * reads as "keep the context's own defaults". That is what lets an HttpClient be built without
 * initializing anything; the engines it then creates are the default context's, with the default
 * context's settings. Certificates are verified against the JDK's trust store as with the default
 * context itself. {@link #getProvider()} is null: naming the JSSE provider would load the JDK's
 * provider list, ~50 ms of a cold start, and neither {@code java.net.http} nor the OpenTelemetry
 * sender asks for it. Thread-safe.
 */
public final class LazyDefaultSslContext extends SSLContext {

  private final Spi spi;

  private LazyDefaultSslContext(Spi spi) {
    super(spi, null, "Default");
    this.spi = spi;
  }

  /** A new context; each remembers whether it has fetched the default context yet. */
  public static LazyDefaultSslContext create() {
    return new LazyDefaultSslContext(new Spi());
  }

  /** Whether the default context has been fetched (JSSE initialized) through this context. */
  public boolean initialized() {
    return spi.delegate != null;
  }

  /**
   * Fetches the default context now, for a caller that knows it is about to make TLS connections
   * and would rather pay for JSSE's initialization outside a deadline.
   *
   * @throws IllegalStateException when the JDK has no usable default context
   */
  public void initialize() {
    spi.delegate();
  }

  private static final class Spi extends SSLContextSpi {
    private volatile SSLContext delegate;

    SSLContext delegate() {
      SSLContext d = delegate;
      if (d == null) {
        try {
          d = SSLContext.getDefault(); // synchronized and idempotent: a race fetches the same one
        } catch (NoSuchAlgorithmException e) {
          throw new IllegalStateException("the JDK's default TLS context is unavailable: " + e.getMessage(), e);
        }
        delegate = d;
      }
      return d;
    }

    @Override
    protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom random)
        throws KeyManagementException {
      // As the JDK's own default context: it is initialized by the JDK, never by its user.
      throw new KeyManagementException("the default TLS context can't be re-initialized");
    }

    @Override
    protected SSLParameters engineGetDefaultSSLParameters() {
      return new SSLParameters();
    }

    @Override
    protected SSLParameters engineGetSupportedSSLParameters() {
      return delegate().getSupportedSSLParameters();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
      return delegate().createSSLEngine();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
      return delegate().createSSLEngine(host, port);
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
      return delegate().getSocketFactory();
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
      return delegate().getServerSocketFactory();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
      return delegate().getClientSessionContext();
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
      return delegate().getServerSessionContext();
    }
  }
}
