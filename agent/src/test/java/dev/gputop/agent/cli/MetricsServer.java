package dev.gputop.agent.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * A real HTTP server on loopback that serves texts at exact paths, as an inference server serves
 * its exposition: what {@code explain} and {@code engines --check} scrape in their tests. Any
 * other path is 404. Close it after each test.
 */
final class MetricsServer implements AutoCloseable {

  private final HttpServer server;

  MetricsServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.start();
  }

  /** Serves {@code text} at {@code path} as {@code type}. */
  MetricsServer serve(String path, String type, String text) {
    return serve(path, type, () -> text, null);
  }

  /**
   * Serves {@code text} (read at each request) at {@code path} as {@code type}; with a {@code
   * bearerToken}, only to a request that sends it (401 otherwise).
   */
  MetricsServer serve(String path, String type, Supplier<String> text, String bearerToken) {
    server.createContext(path, exchange -> {
      if (!exchange.getRequestURI().getPath().equals(path)) {
        exchange.sendResponseHeaders(404, -1);
        exchange.close();
        return;
      }
      if (bearerToken != null
          && !("Bearer " + bearerToken).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        exchange.sendResponseHeaders(401, -1);
        exchange.close();
        return;
      }
      byte[] body = text.get().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", type);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    return this;
  }

  int port() {
    return server.getAddress().getPort();
  }

  /** The URL of {@code path} here, by address (127.0.0.1). */
  String url(String path) {
    return "http://127.0.0.1:" + port() + path;
  }

  /** Stops at once; a later scrape finds the port closed. */
  @Override
  public void close() {
    server.stop(0);
  }
}
