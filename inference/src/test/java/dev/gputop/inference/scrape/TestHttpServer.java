package dev.gputop.inference.scrape;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;

/**
 * The JDK's HTTP(S) server on 127.0.0.1, on a free port, with a handler per path and a record of
 * every request's headers. Thread-safe.
 */
final class TestHttpServer implements AutoCloseable {

  /** The headers of each request, in arrival order. */
  final List<Headers> requests = new CopyOnWriteArrayList<>();

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "test-http-server");
    t.setDaemon(true);
    return t;
  });
  private final String scheme;

  private TestHttpServer(HttpServer server, String scheme) {
    this.server = server;
    this.scheme = scheme;
    server.setExecutor(executor);
    server.start();
  }

  static TestHttpServer http() throws IOException {
    return new TestHttpServer(
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), "http");
  }

  static TestHttpServer https(SSLContext context, HttpsConfigurator configurator)
      throws IOException {
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(
        configurator != null ? configurator : new HttpsConfigurator(context));
    return new TestHttpServer(server, "https");
  }

  /** Serves {@code handler} at {@code path} (and below), recording each request's headers. */
  TestHttpServer handle(String path, HttpHandler handler) {
    server.createContext(path, exchange -> {
      requests.add(exchange.getRequestHeaders());
      try (exchange) {
        handler.handle(exchange);
      }
    });
    return this;
  }

  int port() {
    return server.getAddress().getPort();
  }

  URI uri(String path) {
    return URI.create(scheme + "://127.0.0.1:" + port() + path);
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  /** Sends a complete response with a Content-Length. */
  static void send(HttpExchange exchange, int status, String contentType, byte[] body)
      throws IOException {
    if (contentType != null) {
      exchange.getResponseHeaders().set("Content-Type", contentType);
    }
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }
}
