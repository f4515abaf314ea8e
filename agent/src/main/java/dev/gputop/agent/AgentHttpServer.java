package dev.gputop.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import dev.gputop.config.Clock;
import dev.gputop.config.HealthStatus;
import dev.gputop.config.ListenerConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The agent's one HTTP listener (default {@code 127.0.0.1:9464}, JDK {@code HttpServer}):
 *
 * <ul>
 *   <li>{@code GET /metrics}: the Prometheus exposition of the same instruments OTLP carries
 *       (text 0.0.4, or OpenMetrics 1.0 when the scraper asks for it);
 *   <li>{@code GET /api/snapshot}: the JSON snapshot ({@code ?pretty} indents it);
 *   <li>{@code GET /healthz}: 200 when no receiver is unhealthy, else 503; the body lists the
 *       reasons;
 *   <li>{@code GET /api/history?server=NAME} or {@code ?gpu=INDEX}: the last ten minutes of that
 *       server's or GPU's values ({@link History}); without a parameter, what has a history;
 *   <li>{@code GET /}: the live web page ({@link WebAssets}), with its scripts, styles and the
 *       uPlot chart library under {@code /assets/}, all served from the jar.
 * </ul>
 *
 * <p>Handlers only read published state and never scrape. Thread-safe; two daemon threads serve
 * requests.
 */
public final class AgentHttpServer implements AutoCloseable {

  private static final Logger logger = Logger.getLogger(AgentHttpServer.class.getName());

  private static final String JSON = "application/json; charset=utf-8";
  private static final String TEXT = "text/plain; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;
  private final AgentRuntime runtime;
  /** The reader behind /metrics, or null. */
  private final ExpositionReader metrics;
  /** Authentication of every route (listener.auth), or null. */
  private final Filter auth;

  private AgentHttpServer(HttpServer server, ExecutorService executor, AgentRuntime runtime,
      ExpositionReader metrics, Filter auth) {
    this.auth = auth;
    this.server = server;
    this.executor = executor;
    this.runtime = runtime;
    this.metrics = metrics;
  }

  /**
   * Binds {@code listen} ({@code host:port}, port 0 for any free port) and starts serving.
   *
   * @param metrics the reader behind {@code /metrics} (as {@link StandaloneSdk} registers it);
   *     null answers {@code /metrics} with 404 (when the host's SDK exports instead)
   * @throws UncheckedIOException when the address can't be bound (port in use, unknown host)
   */
  public static AgentHttpServer start(String listen, AgentRuntime runtime, ExpositionReader metrics) {
    return start(listen, runtime, metrics, runtime.config().listener());
  }

  /**
   * As {@link #start(String, AgentRuntime, ExpositionReader)}, exposed as {@code security}
   * says (TLS, authentication; see {@link ListenerSecurity}).
   *
   * @throws dev.gputop.config.ConfigException when the listener settings don't go together
   * @throws UncheckedIOException also when a TLS, token or users file can't be used
   */
  public static AgentHttpServer start(
      String listen, AgentRuntime runtime, ExpositionReader metrics, ListenerConfig security) {
    Objects.requireNonNull(runtime, "runtime");
    security.validate();
    InetSocketAddress address = parse(listen);
    HttpServer server;
    Filter auth;
    try {
      auth = ListenerSecurity.authFilter(security, Clock.system());
      server = ListenerSecurity.createServer(address, security, Clock.system());
    } catch (IOException e) {
      throw new UncheckedIOException("can't listen on " + listen + ": " + e.getMessage(), e);
    } catch (UncheckedIOException e) {
      throw new UncheckedIOException("can't listen on " + listen + ": " + e.getCause().getMessage(), e.getCause());
    }
    String exposure = exposureWarning(listen, address, security);
    if (exposure != null) {
      logger.warning(exposure);
    }
    AtomicInteger n = new AtomicInteger();
    ExecutorService executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "gputop-http-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    AgentHttpServer s = new AgentHttpServer(server, executor, runtime, metrics, auth);
    server.setExecutor(executor);
    s.route("/", s::handle);
    server.start();
    logger.info(() -> "listening on " + s.url() + " (/metrics, /api/snapshot, /api/history, /healthz, web page at /)");
    return s;
  }

  /**
   * Serves {@code path} (and below) with {@code handler}, behind the listener's authentication:
   * every route must be added here, so none is reachable without it.
   */
  void route(String path, HttpHandler handler) {
    HttpContext context = server.createContext(path, handler);
    if (auth != null) {
      context.getFilters().add(auth);
    }
  }

  /** The start-up WARNING for a listener reachable from other hosts without TLS or auth, or null. */
  static String exposureWarning(String listen, InetSocketAddress address, ListenerConfig security) {
    if (!ListenerSecurity.exposed(address) || security.tls() || security.authenticated()) {
      return null;
    }
    return "listening on " + listen + " without TLS or authentication: anyone who can reach this"
        + " port can read /metrics and /api/snapshot; set listener.tls.certFile/keyFile and"
        + " listener.auth.bearerTokenFile or basicUsersFile (docs/RELIABILITY.md)";
  }

  /** The base URL actually bound, e.g. {@code http://127.0.0.1:9464}. */
  public String url() {
    InetSocketAddress a = server.getAddress();
    String host = a.getAddress().getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return (server instanceof HttpsServer ? "https://" : "http://") + host + ":" + a.getPort();
  }

  /** The port actually bound (useful with port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  /** Stops listening at once. Idempotent. */
  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  static InetSocketAddress parse(String listen) {
    int colon = listen.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("expected host:port, not " + listen);
    }
    String host = listen.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = Integer.parseInt(listen.substring(colon + 1));
    return new InetSocketAddress(host, port);
  }

  private void handle(HttpExchange exchange) throws IOException {
    boolean close = true;
    try {
      String method = exchange.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        send(exchange, 405, TEXT, bytes("method not allowed\n"));
        return;
      }
      String path = exchange.getRequestURI().getPath();
      switch (path) {
        case "/metrics":
          metrics(exchange);
          break;
        case "/api/snapshot":
          snapshot(exchange);
          break;
        case "/healthz":
          healthz(exchange);
          break;
        case "/api/history":
          history(exchange);
          break;
        default:
          WebAssets.Asset asset = WebAssets.get(path);
          if (asset != null) {
            send(exchange, 200, asset.contentType(), asset.body());
          } else {
            send(exchange, 404, TEXT, bytes("not found: " + path + "\n"));
          }
      }
    } catch (AbortedResponse e) {
      logger.log(Level.WARNING, "request failed: " + exchange.getRequestURI(), e.getCause());
      close = false;
      throw e;
    } catch (IOException e) {
      logger.log(Level.FINE, "client went away", e);
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "request failed: " + exchange.getRequestURI(), e);
      try {
        send(exchange, 500, TEXT, bytes("internal error: " + e + "\n"));
      } catch (IOException | RuntimeException ignored) {
        // headers were already sent; nothing more to say
      }
    } finally {
      if (close) {
        exchange.close();
      }
    }
  }

  private void metrics(HttpExchange exchange) throws IOException {
    if (metrics == null) {
      send(exchange, 404, TEXT, bytes("metrics are exported by the host's OpenTelemetry SDK, not here\n"));
      return;
    }
    boolean openMetrics = PrometheusTextWriter.wantsOpenMetrics(exchange.getRequestHeaders().getFirst("Accept"));
    exchange.getResponseHeaders().set("Content-Type",
        openMetrics ? PrometheusTextWriter.OPENMETRICS_CONTENT_TYPE : PrometheusTextWriter.TEXT_CONTENT_TYPE);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    if (exchange.getRequestMethod().equals("HEAD")) {
      exchange.sendResponseHeaders(200, -1);
      return;
    }
    // Collected and checked before the status is sent: a failure here is a 500.
    PrometheusTextWriter.Prepared text = metrics.prepare();
    // Streamed (chunked), not buffered: at 500 servers the text is about 10 MB, and holding it
    // whole was two thirds of what a read allocated (docs/PERFORMANCE.md, "The export path").
    exchange.sendResponseHeaders(200, 0);
    OutputStream body = exchange.getResponseBody();
    try {
      text.write(openMetrics, body);
    } catch (RuntimeException e) {
      // The status and part of the body are out: ending the body normally would hand the client
      // a truncated exposition that parses. Dropping the connection makes the scrape fail.
      throw new AbortedResponse(e);
    }
    body.close();
  }

  /**
   * A response that failed after its headers were sent: {@link #handle} lets it reach the JDK's
   * server, which then closes the connection instead of ending the body.
   */
  private static final class AbortedResponse extends IOException {
    AbortedResponse(RuntimeException cause) {
      super("response failed after its headers were sent", cause);
    }
  }

  private void snapshot(HttpExchange exchange) throws IOException {
    String query = exchange.getRequestURI().getQuery();
    boolean pretty = query != null && query.contains("pretty");
    ObjectNode doc = runtime.snapshot();
    byte[] body =
        pretty
            ? Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(doc)
            : Json.MAPPER.writeValueAsBytes(doc);
    send(exchange, 200, JSON, body);
  }

  private void history(HttpExchange exchange) throws IOException {
    Map<String, String> params = query(exchange.getRequestURI().getRawQuery());
    History history = runtime.history();
    long now = runtime.epochMillis();
    ObjectNode doc;
    String server = params.get("server");
    String gpu = params.get("gpu");
    if (server != null) {
      doc = history.server(server, now);
      if (doc == null) {
        send(exchange, 404, JSON, json(error("no history for server '" + server + "'; known: " + history.serverNames())));
        return;
      }
    } else if (gpu != null) {
      doc = history.gpu(gpu, now);
      if (doc == null) {
        send(exchange, 404, JSON, json(error("no history for gpu '" + gpu + "'")));
        return;
      }
    } else {
      doc = history.index();
    }
    send(exchange, 200, JSON, Json.MAPPER.writeValueAsBytes(doc));
  }

  private static ObjectNode error(String message) {
    ObjectNode doc = Json.MAPPER.createObjectNode();
    doc.put("error", message);
    return doc;
  }

  /** The decoded parameters of a raw query string; the first value of a repeated name wins. */
  static Map<String, String> query(String raw) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String name = java.net.URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value = eq < 0 ? "" : java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      out.putIfAbsent(name, value);
    }
    return out;
  }

  private void healthz(HttpExchange exchange) throws IOException {
    Map<String, HealthStatus> health = runtime.health();
    ObjectNode doc = Json.MAPPER.createObjectNode();
    ArrayNode reasons = Json.MAPPER.createArrayNode();
    boolean ok = true;
    for (Map.Entry<String, HealthStatus> e : health.entrySet()) {
      if (e.getValue().state() == HealthStatus.State.UNHEALTHY) {
        ok = false;
        e.getValue().reasons().forEach(r -> reasons.add(e.getKey() + ": " + r));
      }
    }
    doc.put("status", ok ? "ok" : "unhealthy");
    doc.set("reasons", reasons);
    ObjectNode receivers = doc.putObject("health");
    health.forEach((name, status) -> receivers.set(name, SnapshotAssembler.health(status)));
    send(exchange, ok ? 200 : 503, JSON, json(doc));
  }

  private static byte[] json(ObjectNode doc) throws JsonProcessingException {
    return Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(doc);
  }

  private static void send(HttpExchange exchange, int status, String contentType, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : (body.length == 0 ? -1 : body.length));
    if (!head && body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
