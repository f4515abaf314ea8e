package dev.gputop.inference.scrape;

import dev.gputop.config.TlsConfig;
import dev.gputop.config.credentials.LazyDefaultSslContext;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;

/**
 * One {@link HttpClient} per distinct TLS setting, built on first use and kept (so connections
 * are reused from one scrape to the next), at most {@value #MAX_CLIENTS} of them. The key
 * includes the PEM files' modification times, so a rotated client certificate or CA bundle is
 * picked up at the next scrape. Thread-safe.
 */
final class HttpClients {

  static final int MAX_CLIENTS = 16;

  /** A TLS setting together with the versions of the files it names. */
  private record Key(TlsConfig tls, long caModified, long certModified, long keyModified) {}

  private final Duration connectTimeout;
  private final Executor executor;
  /** The TLS context of every client without TLS settings of its own: JSSE only when used. */
  private final LazyDefaultSslContext defaultTls = LazyDefaultSslContext.create();
  private final Map<Key, HttpClient> clients =
      new LinkedHashMap<>(MAX_CLIENTS * 2, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, HttpClient> eldest) {
          // An evicted client is not closed (Java 17 has no close); it stops once unreachable.
          return size() > MAX_CLIENTS;
        }
      };

  HttpClients(Duration connectTimeout, Executor executor) {
    this.connectTimeout = connectTimeout;
    this.executor = executor;
  }

  /** The client for {@code tls}. */
  HttpClient get(TlsConfig tls) throws ScrapeFailure {
    Key key = new Key(
        tls, modified(tls.caFile()), modified(tls.certFile()), modified(tls.keyFile()));
    synchronized (clients) {
      HttpClient client = clients.get(key);
      if (client != null) {
        return client;
      }
    }
    // Built outside the lock: reading PEM files must not hold up scrapes of other endpoints.
    SSLContext context = usesDefaultTls(tls) ? null : TlsContexts.create(tls);
    HttpClient client = build(context);
    synchronized (clients) {
      return clients.computeIfAbsent(key, k -> client);
    }
  }

  /** The context of clients without TLS settings, to initialize it ahead of an https scrape. */
  LazyDefaultSslContext defaultTls() {
    return defaultTls;
  }

  int size() {
    synchronized (clients) {
      return clients.size();
    }
  }

  void clear() {
    synchronized (clients) {
      clients.clear();
    }
  }

  private HttpClient build(SSLContext context) {
    HttpClient.Builder builder = HttpClient.newBuilder()
        // HTTP/1.1 only: no h2c upgrade headers that some metrics servers mishandle.
        .version(HttpClient.Version.HTTP_1_1)
        // Redirects are checked by the scraper itself (same host only).
        .followRedirects(HttpClient.Redirect.NEVER)
        // Direct connections: a host application's proxy settings (javaagent mode) must not
        // route scrapes of local and pod addresses through its proxy.
        .proxy(HttpClient.Builder.NO_PROXY)
        .connectTimeout(connectTimeout)
        .executor(executor);
    // Never the JDK's default context directly: building a client with it initializes JSSE, a
    // third of a second of a cold start, which a client scraping http:// URLs does not need.
    builder.sslContext(context != null ? context : defaultTls);
    return builder.build();
  }

  /** Whether {@code tls} configures nothing of its own: the JDK's trust store, no client certificate. */
  static boolean usesDefaultTls(TlsConfig tls) {
    return tls.caFile() == null && tls.certFile() == null && !tls.insecureSkipVerify();
  }

  private static long modified(String file) {
    if (file == null) {
      return 0;
    }
    try {
      return Files.getLastModifiedTime(Path.of(file)).toMillis();
    } catch (IOException | RuntimeException e) {
      return -1; // reported by TlsContexts when it reads the file
    }
  }
}
