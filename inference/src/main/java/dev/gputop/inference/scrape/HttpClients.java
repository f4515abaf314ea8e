package dev.gputop.inference.scrape;

import dev.gputop.config.TlsConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

/**
 * The scraper's Eclipse Jetty {@link HttpClient}s: one for every target without TLS settings of
 * its own (http:// and https:// with the JDK's trust store), and one per distinct TLS setting,
 * built on first use and kept (so connections are reused from one scrape to the next), at most
 * {@value #MAX_CLIENTS} of those. The key includes the PEM files' modification times, so a
 * rotated client certificate or CA bundle is picked up at the next scrape. Thread-safe.
 *
 * <p>All clients share one small daemon thread pool ({@code gputop-scrape-http-*}: each client's
 * selector, plus the workers that parse responses, which never block), one timer thread (request
 * deadlines and idle connections) and one bounded buffer pool. Each client is set up for scraping
 * and nothing else: HTTP/1.1, no proxy (a host application's proxy settings must not route
 * scrapes of local and pod addresses), no redirects and no content decoding (the scraper does
 * both itself, within its own limits), no cookies, no authentication handlers, bounded response
 * headers, the agent's own User-Agent, and connections kept open longer than any refresh interval
 * so that keep-alive works from one cycle to the next.
 */
final class HttpClients {

  static final int MAX_CLIENTS = 16;

  /** Largest response header section accepted; far above any metrics server's. */
  static final int MAX_RESPONSE_HEADER_BYTES = 64 << 10;

  /** Room for the target's headers and a bearer token (a Kubernetes token is ~1-2 KB). */
  static final int MAX_REQUEST_HEADER_BYTES = 32 << 10;

  /**
   * How long a kept-alive connection may stay idle: longer than any refresh interval, so the next
   * cycle finds it open (servers usually close theirs sooner: uvicorn after 5 s).
   */
  static final Duration IDLE_TIMEOUT = Duration.ofMinutes(2);

  /** A server not scraped for this long has its connection pool dropped (discovery churn). */
  static final Duration DESTINATION_IDLE_TIMEOUT = Duration.ofMinutes(5);

  private static final Duration WARM_UP_TIMEOUT = Duration.ofSeconds(5);

  /** Threads: a selector per client and the workers; threads idle for 10 s end. */
  private static final int MAX_THREADS = MAX_CLIENTS + 1 + 3;

  private static final Logger logger = Logger.getLogger(HttpClients.class.getName());

  /** The process's class warm-up ({@link #loadClassesInBackground}), once started. */
  private static final AtomicReference<CompletableFuture<Void>> CLASSES_LOADED = new AtomicReference<>();

  static {
    JettyDefaults.apply();
  }

  /** A TLS setting together with the versions of the files it names. */
  private record Key(TlsConfig tls, long caModified, long certModified, long keyModified) {}

  private final Duration connectTimeout;
  private final QueuedThreadPool threads;
  private final ScheduledExecutorScheduler scheduler;
  private final ByteBufferPool buffers;
  /** The TLS context of the default client: JSSE only when a TLS connection needs it. */
  private final DeferredSslContextFactory defaultTls = new DeferredSslContextFactory();
  private final Object lock = new Object();
  private HttpClient defaultClient;
  private boolean closed;
  private final Map<Key, HttpClient> clients = new LinkedHashMap<>(MAX_CLIENTS * 2, 0.75f, true);
  private final CompletableFuture<Void> ready = new CompletableFuture<>();

  HttpClients(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
    threads = new QueuedThreadPool(MAX_THREADS, 1, (int) TimeUnit.SECONDS.toMillis(10));
    threads.setName("gputop-scrape-http");
    threads.setDaemon(true);
    threads.setReservedThreads(0);
    threads.setStopTimeout(1000);
    scheduler = new ScheduledExecutorScheduler("gputop-scrape-timer", true);
    // Bounded: at most 16 buffers of each size kept for reuse, 4 MiB in all of each kind; a
    // connection holds a read buffer only while bytes are arriving.
    buffers = new ArrayByteBufferPool(0, 4096, 65536, 16, 4L << 20, 4L << 20);
    try {
      threads.start();
      scheduler.start();
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the scraper's HTTP threads: " + e, e);
    }
  }

  /**
   * Loads and initializes the client's classes once per process, on a daemon thread: a throwaway
   * client with threads of its own makes one exchange with a loopback socket ({@link #warmUp})
   * and stops. On a cold JVM that is most of a second of CPU on a busy node (Jetty's ~460 classes,
   * its header and MIME tables, the JDK's locale list that {@code MimeTypes} reads), enough to
   * time out a first cycle's scrapes, so no cycle's deadline includes it. A process that knows
   * early that it will scrape calls this early ({@link HttpScraper#prepareInBackground}), so that
   * it overlaps the rest of its start; every scraper waits for it before its first cycle.
   * Idempotent: later calls return the first call's future, done once the exchange has ended,
   * well or not.
   */
  static CompletableFuture<Void> loadClassesInBackground() {
    CompletableFuture<Void> loaded = CLASSES_LOADED.get();
    if (loaded != null) {
      return loaded;
    }
    CompletableFuture<Void> mine = new CompletableFuture<>();
    if (!CLASSES_LOADED.compareAndSet(null, mine)) {
      return CLASSES_LOADED.get();
    }
    Thread thread = new Thread(() -> {
      HttpClients throwaway = null;
      try {
        throwaway = new HttpClients(WARM_UP_TIMEOUT);
        warmUp(throwaway.get(TlsConfig.defaults()));
      } catch (ScrapeFailure | RuntimeException e) {
        logger.log(Level.FINE, "The HTTP client's warm-up failed; the first scrapes may be slower", e);
      } finally {
        mine.complete(null);
        if (throwaway != null) {
          throwaway.close();
        }
      }
    }, "gputop-scrape-warmup");
    thread.setDaemon(true);
    thread.start();
    return mine;
  }

  /**
   * Starts the default client on a thread of its own, after the process's class warm-up ({@link
   * #loadClassesInBackground}), so that the first scrape does not pay for loading the client's
   * classes. {@link #awaitReady} waits for both.
   */
  void startInBackground() {
    CompletableFuture<Void> classes = loadClassesInBackground();
    Thread thread = new Thread(() -> {
      try {
        classes.get(WARM_UP_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
        get(TlsConfig.defaults());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException | ScrapeFailure | RuntimeException e) {
        logger.log(Level.FINE, "Could not prepare the default HTTP client; will retry per scrape", e);
      } finally {
        ready.complete(null);
      }
    }, "gputop-scrape-start");
    thread.setDaemon(true);
    thread.start();
  }

  /** Waits (at most a few seconds) for {@link #startInBackground} to finish. */
  void awaitReady() {
    try {
      ready.get(WARM_UP_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // Scrapes go ahead; the first ones may be slower.
    }
  }

  /**
   * One GET through {@code client} to a loopback socket opened for it, answered here with a
   * tiny response and closed: the connect, request, parse and completion paths the scrapes use.
   * The socket accepts one connection and lives a few milliseconds (at most the timeout).
   */
  private static void warmUp(HttpClient client) {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      server.setSoTimeout((int) WARM_UP_TIMEOUT.toMillis());
      CompletableFuture<Boolean> done = new CompletableFuture<>();
      client.newRequest("http://127.0.0.1:" + server.getLocalPort() + "/")
          .timeout(WARM_UP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .onResponseContent((response, content) -> content.position(content.limit()))
          .send(result -> done.complete(result.isSucceeded()));
      try (Socket socket = server.accept()) {
        socket.setSoTimeout((int) WARM_UP_TIMEOUT.toMillis());
        skipRequestHead(socket.getInputStream());
        OutputStream out = socket.getOutputStream();
        out.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
            .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        done.get(WARM_UP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (IOException | ExecutionException | TimeoutException e) {
      logger.log(Level.FINE, "The HTTP client's warm-up exchange failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void skipRequestHead(InputStream in) throws IOException {
    int matched = 0;
    for (int n = 0; matched < 4 && n < MAX_REQUEST_HEADER_BYTES; n++) {
      int b = in.read();
      if (b < 0) {
        return;
      }
      matched = b == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : (b == '\r' ? 1 : 0);
    }
  }

  /** The client for {@code tls}. */
  HttpClient get(TlsConfig tls) throws ScrapeFailure {
    if (usesDefaultTls(tls)) {
      synchronized (lock) {
        checkOpen();
        if (defaultClient == null) {
          defaultClient = start(defaultTls);
        }
        return defaultClient;
      }
    }
    Key key = new Key(
        tls, modified(tls.caFile()), modified(tls.certFile()), modified(tls.keyFile()));
    synchronized (lock) {
      checkOpen();
      HttpClient client = clients.get(key);
      if (client != null) {
        return client;
      }
    }
    // Built outside the lock: reading PEM files must not hold up scrapes of other endpoints.
    SslContextFactory.Client ssl = tls.insecureSkipVerify()
        ? new InsecureSslContextFactory() : new SslContextFactory.Client();
    ssl.setSslContext(TlsContexts.create(tls));
    HttpClient built = start(ssl);
    List<HttpClient> evicted = new ArrayList<>();
    HttpClient client;
    synchronized (lock) {
      client = closed ? null : clients.putIfAbsent(key, built);
      if (client == null && !closed) {
        client = built;
        var eldest = clients.entrySet().iterator();
        while (clients.size() > MAX_CLIENTS) {
          evicted.add(eldest.next().getValue());
          eldest.remove();
        }
      } else {
        evicted.add(built); // lost a race, or closed meanwhile
      }
    }
    evicted.forEach(HttpClients::stop);
    if (client == null) {
      throw new ScrapeFailure(ScrapeResult.Outcome.IO_ERROR, "scraper is closed");
    }
    return client;
  }

  /** The TLS context of clients without TLS settings, to initialize it ahead of an https scrape. */
  DeferredSslContextFactory defaultTls() {
    return defaultTls;
  }

  int size() {
    synchronized (lock) {
      return clients.size() + (defaultClient != null ? 1 : 0);
    }
  }

  /** Stops every client (closing their connections) and the threads. Idempotent. */
  void close() {
    List<HttpClient> all = new ArrayList<>();
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      if (defaultClient != null) {
        all.add(defaultClient);
      }
      all.addAll(clients.values());
      clients.clear();
      defaultClient = null;
    }
    all.forEach(HttpClients::stop);
    try {
      scheduler.stop();
      threads.stop();
    } catch (Exception e) {
      logger.log(Level.FINE, "Stopping the scraper's HTTP threads failed", e);
    }
  }

  private void checkOpen() throws ScrapeFailure {
    if (closed) {
      throw new ScrapeFailure(ScrapeResult.Outcome.IO_ERROR, "scraper is closed");
    }
  }

  private HttpClient start(SslContextFactory.Client ssl) throws ScrapeFailure {
    ClientConnector connector = new ClientConnector();
    connector.setSelectors(1);
    connector.setExecutor(threads);
    connector.setScheduler(scheduler);
    connector.setByteBufferPool(buffers);
    connector.setConnectTimeout(connectTimeout);
    connector.setIdleTimeout(IDLE_TIMEOUT);
    connector.setSslContextFactory(ssl);
    HttpClient client = new HttpClient(new HttpClientTransportOverHTTP(connector));
    client.setName("gputop-scrape-http");
    client.setFollowRedirects(false);
    client.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, ScrapeCall.USER_AGENT));
    client.setMaxResponseHeadersSize(MAX_RESPONSE_HEADER_BYTES);
    client.setMaxRequestHeadersSize(MAX_REQUEST_HEADER_BYTES);
    client.setHttpCookieStore(new HttpCookieStore.Empty());
    client.setAddressResolutionTimeout(connectTimeout.toMillis());
    client.setDestinationIdleTimeout(DESTINATION_IDLE_TIMEOUT.toMillis());
    try {
      client.start();
    } catch (Exception e) {
      stop(client);
      throw new ScrapeFailure(ScrapeResult.Outcome.IO_ERROR,
          "cannot start the HTTP client: " + e.getClass().getSimpleName());
    }
    // Not Jetty's gzip decoding (the scraper inflates within its own limit and says so), nor its
    // redirect, authentication and 100-continue handling: the scraper sees every response as is.
    client.getContentDecoderFactories().clear();
    client.getProtocolHandlers().clear();
    return client;
  }

  private static void stop(HttpClient client) {
    try {
      client.stop();
    } catch (Exception e) {
      logger.log(Level.FINE, "Stopping an HTTP client failed", e);
    }
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

  /**
   * {@code tls.insecureSkipVerify}: the context trusts every certificate, and host names are not
   * checked either. The scraper warns once per endpoint, so Jetty's own warning is left out.
   */
  private static final class InsecureSslContextFactory extends SslContextFactory.Client {
    InsecureSslContextFactory() {
      setEndpointIdentificationAlgorithm(null);
    }

    @Override
    protected void checkEndPointIdentificationAlgorithm() {
      // HttpScraper.warnIfInsecure warns, naming the endpoint.
    }
  }
}
