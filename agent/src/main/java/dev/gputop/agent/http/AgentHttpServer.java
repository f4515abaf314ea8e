package dev.gputop.agent.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gputop.agent.history.History;
import dev.gputop.agent.prometheus.ExpositionReader;
import dev.gputop.agent.prometheus.PrometheusTextWriter;
import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.agent.runtime.Json;
import dev.gputop.agent.runtime.JvmUptime;
import dev.gputop.agent.runtime.SnapshotAssembler;
import dev.gputop.config.ListenAddress;
import dev.gputop.config.ListenerConfig;
import dev.gputop.inference.scrape.JettyDefaults;
import dev.gputop.receiver.Clock;
import dev.gputop.receiver.HealthStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

/**
 * The agent's one HTTP listener (default {@code 127.0.0.1:9464}, Eclipse Jetty 12's server, the
 * same Jetty as the scraper's client):
 *
 * <ul>
 *   <li>{@code GET /metrics}: the Prometheus exposition of the same instruments OTLP carries
 *       (text 0.0.4, or OpenMetrics 1.0 when the scraper asks for it);
 *   <li>{@code GET /api/snapshot}: the JSON snapshot ({@code ?pretty} indents it);
 *   <li>{@code GET /livez}: 200 whenever the process and its listener answer (a liveness probe:
 *       nothing a restart can't fix makes it fail);
 *   <li>{@code GET /readyz} and {@code GET /healthz} (the same): 200 when no receiver and no
 *       export is unhealthy, else 503; the body lists the reasons;
 *   <li>{@code GET /api/history?server=NAME} or {@code ?gpu=INDEX}: the last ten minutes of that
 *       server's or GPU's values ({@link History}); without a parameter, what has a history;
 *   <li>{@code GET /}: the live web page ({@link WebAssets}), with its scripts, styles and the
 *       uPlot chart library under {@code /assets/}, all served from the jar.
 * </ul>
 *
 * <p>Slow and idle clients can't fill it (docs/RELIABILITY.md, "The listener under siege"): Jetty
 * holds no thread for a connection that is waiting for bytes; a TLS handshake and a request's
 * headers each have a deadline ({@link ConnectionDeadlines}), an idle connection is closed after
 * {@link #IDLE_TIMEOUT}, at most {@link #MAX_CONNECTIONS} are open at once, and the routes that
 * stream a body hold at most {@link #BODY_PERMITS} of the {@link #MAX_THREADS} threads, so the
 * probes always find one.
 *
 * <p>Handlers only read published state and never scrape. Thread-safe; daemon threads.
 */
public final class AgentHttpServer implements AutoCloseable {

  private static final Logger logger = Logger.getLogger(AgentHttpServer.class.getName());

  /**
   * Jetty's server announces its version and each start at INFO; the agent says "listening on"
   * itself. Its warnings still come through. Held so the level is not lost when the logger is
   * collected; the name follows the shaded jar's relocation, and a level set by the user wins.
   */
  private static final Logger JETTY_SERVER_LOGGER = quietJettyServer();

  private static Logger quietJettyServer() {
    Logger l = Logger.getLogger(Server.class.getPackageName());
    if (l.getLevel() == null) {
      l.setLevel(Level.WARNING);
    }
    return l;
  }

  private static final String JSON = "application/json; charset=utf-8";
  private static final String TEXT = "text/plain; charset=utf-8";

  /** A TLS handshake must end within this of the connection opening. */
  static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
  /** A request's line and headers must arrive within this of its first byte. */
  static final Duration HEADERS_TIMEOUT = Duration.ofSeconds(10);
  /**
   * A connection with nothing sent or received for this long is closed: above Prometheus's
   * usual 15 s scrape interval, so its kept-alive connection normally survives between scrapes.
   */
  static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
  /** Connections open at once; more wait in the kernel's accept queue. */
  static final int MAX_CONNECTIONS = 512;
  /** The listener's threads: one acceptor, one selector, the rest handle requests. */
  static final int MAX_THREADS = 16;
  /**
   * Requests outside the probes being answered at once: a client that reads /metrics slowly holds
   * a thread while the exposition is streamed, so slow readers can hold at most this many of the
   * threads; past it a request gets 503 at once.
   */
  static final int BODY_PERMITS = 8;
  /** Largest request line and headers accepted (a bearer token or basic credentials fit). */
  static final int MAX_REQUEST_HEADER_BYTES = 16 << 10;

  /**
   * The page's policy: scripts, styles and data from the listener itself only (no inline script
   * or style attribute: the page has none), and no framing by another site.
   */
  static final String CONTENT_SECURITY_POLICY = "default-src 'self'; frame-ancestors 'none'";

  private final Server server;
  private final ServerConnector connector;
  private final boolean tls;
  private final AgentRuntime runtime;
  /** The reader behind /metrics, or null. */
  private final ExpositionReader metrics;
  /** Authentication of every route (listener.auth), or null. */
  private final ListenerSecurity.Authenticator auth;
  private final ListenerConfig security;
  private final Semaphore bodies = new Semaphore(BODY_PERMITS);
  private final org.eclipse.jetty.util.thread.Scheduler timer;

  private AgentHttpServer(Server server, ServerConnector connector, boolean tls, AgentRuntime runtime,
      ExpositionReader metrics, ListenerSecurity.Authenticator auth, ListenerConfig security) {
    this.server = server;
    this.timer = server.getScheduler();
    this.connector = connector;
    this.tls = tls;
    this.runtime = runtime;
    this.metrics = metrics;
    this.auth = auth;
    this.security = security;
  }

  /**
   * Binds {@code listen} ({@code host:port}, port 0 for any free port) and starts serving.
   *
   * @param metrics the reader behind {@code /metrics} (as {@code StandaloneSdk} registers it);
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
    return start(listen, runtime, metrics, security, System::nanoTime);
  }

  /** As above, with the deadlines of slow clients on {@code deadlineClock} (tests move it). */
  static AgentHttpServer start(String listen, AgentRuntime runtime, ExpositionReader metrics,
      ListenerConfig security, ConnectionDeadlines.NanoClock deadlineClock) {
    Objects.requireNonNull(runtime, "runtime");
    security.validate();
    InetSocketAddress address = ListenAddress.parse(listen).socketAddress();
    JettyDefaults.apply();
    ListenerSecurity.Authenticator auth;
    ListenerSecurity.ReloadingTls tls;
    try {
      auth = ListenerSecurity.authenticator(security, Clock.system());
      tls = security.tls() ? new ListenerSecurity.ReloadingTls(security, Clock.system()) : null;
    } catch (UncheckedIOException e) {
      throw new UncheckedIOException("can't listen on " + listen + ": " + e.getCause().getMessage(), e.getCause());
    }
    String exposure = exposureWarning(listen, address, security);
    if (exposure != null) {
      logger.warning(exposure);
    }
    QueuedThreadPool threads = new QueuedThreadPool(MAX_THREADS, 2, 60_000);
    threads.setName("gputop-http");
    threads.setDaemon(true);
    ScheduledExecutorScheduler timer = new ScheduledExecutorScheduler("gputop-http-timer", true);
    Server server = new Server(threads, timer, null);
    server.setStopAtShutdown(false);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    http.setRequestHeaderSize(MAX_REQUEST_HEADER_BYTES);
    HttpConnectionFactory h1 = new HttpConnectionFactory(http);
    ConnectionFactory[] factories = tls == null
        ? new ConnectionFactory[] {h1}
        : new ConnectionFactory[] {new SslConnectionFactory(tls, h1.getProtocol()), h1};
    ServerConnector connector = new ServerConnector(server, 1, 1, factories);
    String host = address.getAddress() == null ? address.getHostString() : address.getAddress().getHostAddress();
    connector.setHost(host);
    connector.setPort(address.getPort());
    connector.setIdleTimeout(IDLE_TIMEOUT.toMillis());
    connector.setAcceptQueueSize(128);
    connector.addBean(new ConnectionDeadlines(HANDSHAKE_TIMEOUT, HEADERS_TIMEOUT, timer, deadlineClock));
    server.addConnector(connector);
    server.addBean(new NetworkConnectionLimit(MAX_CONNECTIONS, connector));
    AgentHttpServer s = new AgentHttpServer(server, connector, tls != null, runtime, metrics, auth, security);
    server.setHandler(s.new Routes());
    server.setErrorHandler(new PlainErrors());
    try {
      server.start();
    } catch (Exception e) {
      stopQuietly(server);
      String reason = e instanceof BindException || e.getCause() instanceof BindException
          ? "address in use" : String.valueOf(e.getMessage());
      throw new UncheckedIOException("can't listen on " + listen + ": " + reason,
          e instanceof IOException io ? io : new IOException(e));
    }
    logger.info(() -> "listening on " + s.url() + " (/metrics, /api/snapshot, /api/history, /livez, /readyz, web page at /)");
    return s;
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
    String host = connector.getHost();
    try {
      host = java.net.InetAddress.getByName(host).getHostAddress();
    } catch (java.net.UnknownHostException e) {
      // bound, so it resolved; keep the name
    }
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return (tls ? "https://" : "http://") + host + ":" + port();
  }

  /** The port actually bound (useful with port 0). */
  public int port() {
    return connector.getLocalPort();
  }

  /** Stops listening at once. Idempotent. */
  @Override
  public void close() {
    stopQuietly(server);
  }

  private static void stopQuietly(Server server) {
    try {
      server.setStopTimeout(0);
      server.stop();
    } catch (Exception e) {
      logger.log(Level.FINE, "stopping the listener failed", e);
    }
  }

  /** One request on a listener thread: what {@link Routes} hands the route methods. */
  private record Exchange(Request request, Response response, Callback callback) {
    String path() {
      return Request.getPathInContext(request);
    }

    boolean head() {
      return request.getMethod().equals("HEAD");
    }

    String query() {
      return request.getHttpURI().getQuery();
    }
  }

  /** Every route, behind the listener's authentication, so none is reachable without it. */
  private final class Routes extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      securityHeaders(response);
      Exchange exchange = new Exchange(request, response, callback);
      String path = exchange.path();
      boolean probe = security.exemptPaths().contains(path);
      if (auth != null && !probe) {
        ListenerSecurity.Verdict verdict =
            auth.check(request.getHeaders().get(HttpHeader.AUTHORIZATION), Request.getRemoteAddr(request));
        if (verdict.status() == 429) {
          response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
          byte[] body = bytes("too many attempts: " + verdict.problem() + "\n");
          if (verdict.delayed()) {
            // Answered later by the timer: the connection waits, no thread does.
            timer.schedule(() -> send(exchange, 429, TEXT, body), ListenerSecurity.Authenticator.TARPIT.toMillis(),
                java.util.concurrent.TimeUnit.MILLISECONDS);
          } else {
            send(exchange, 429, TEXT, body);
          }
          return true;
        }
        if (!verdict.accepted()) {
          response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, auth.challenge());
          send(exchange, 401, TEXT, bytes(verdict.problem().startsWith("a password longer")
              ? "unauthorized: " + verdict.problem() + "\n" : "unauthorized\n"));
          return true;
        }
      }
      if (probe || !path.equals("/metrics") && !path.startsWith("/api/")) {
        AgentHttpServer.this.handle(exchange);
        return true;
      }
      if (!bodies.tryAcquire()) {
        response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
        send(exchange, 503, TEXT, bytes("busy: " + BODY_PERMITS + " requests are being answered; try again\n"));
        return true;
      }
      Exchange held = new Exchange(request, response, releasing(callback));
      AgentHttpServer.this.handle(held);
      return true;
    }
  }

  /** {@code callback}, giving back a body permit once the response is done either way. */
  private Callback releasing(Callback callback) {
    return new Callback() {
      private final java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();

      @Override
      public void succeeded() {
        release();
        callback.succeeded();
      }

      @Override
      public void failed(Throwable x) {
        release();
        callback.failed(x);
      }

      private void release() {
        if (done.compareAndSet(false, true)) {
          bodies.release();
        }
      }

      @Override
      public InvocationType getInvocationType() {
        return callback.getInvocationType();
      }
    };
  }

  /**
   * The headers every response carries, whatever its route or status: the page's content
   * policy, no MIME sniffing, no framing (the header older browsers read as well), no referrer.
   * Every response is also {@code Cache-Control: no-store} (set where the body is sent).
   */
  static void securityHeaders(Response response) {
    org.eclipse.jetty.http.HttpFields.Mutable h = response.getHeaders();
    h.put("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    h.put("X-Content-Type-Options", "nosniff");
    h.put("X-Frame-Options", "DENY");
    h.put("Referrer-Policy", "no-referrer");
  }

  /** Jetty's own answers (a malformed request, headers too large) as one line of text. */
  private static final class PlainErrors extends ErrorHandler {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      int status = response.getStatus();
      Object message = request.getAttribute(ERROR_MESSAGE);
      String text = status + (message == null ? "" : " " + message) + "\n";
      securityHeaders(response);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, TEXT);
      response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
      Content.Sink.write(response, true, text, callback);
      return true;
    }
  }

  private void handle(Exchange exchange) {
    try {
      String method = exchange.request().getMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        exchange.response().getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
        send(exchange, 405, TEXT, bytes("method not allowed\n"));
        return;
      }
      String path = exchange.path();
      switch (path) {
        case "/metrics":
          metrics(exchange);
          break;
        case "/api/snapshot":
          snapshot(exchange);
          break;
        case "/livez":
          livez(exchange);
          break;
        case "/readyz":
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
      logger.log(Level.WARNING, "request failed: " + exchange.request().getHttpURI(), e.getCause());
      exchange.callback().failed(e);
    } catch (IOException e) {
      logger.log(Level.FINE, "client went away", e);
      exchange.callback().failed(e);
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "request failed: " + exchange.request().getHttpURI(), e);
      if (!exchange.response().isCommitted()) {
        send(exchange, 500, TEXT, bytes("internal error: " + e + "\n"));
      } else {
        exchange.callback().failed(e);
      }
    }
  }

  private void metrics(Exchange exchange) throws IOException {
    if (metrics == null) {
      send(exchange, 404, TEXT, bytes("metrics are exported by the host's OpenTelemetry SDK, not here\n"));
      return;
    }
    boolean openMetrics = PrometheusTextWriter.wantsOpenMetrics(exchange.request().getHeaders().get(HttpHeader.ACCEPT));
    Response response = exchange.response();
    response.getHeaders().put(HttpHeader.CONTENT_TYPE,
        openMetrics ? PrometheusTextWriter.OPENMETRICS_CONTENT_TYPE : PrometheusTextWriter.TEXT_CONTENT_TYPE);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.setStatus(200);
    if (exchange.head()) {
      exchange.callback().succeeded();
      return;
    }
    // Collected and checked before the status is sent: a failure here is a 500.
    PrometheusTextWriter.Prepared text = metrics.prepare();
    // Streamed (chunked), not buffered: at 500 servers the text is about 10 MB, and holding it
    // whole was two thirds of what a read allocated (docs/PERFORMANCE.md, "The export path").
    OutputStream body = Content.Sink.asOutputStream(response);
    try {
      text.write(openMetrics, body);
    } catch (RuntimeException e) {
      // The status and part of the body are out: ending the body normally would hand the client
      // a truncated exposition that parses. Failing the response makes Jetty drop the connection,
      // so the scrape fails.
      throw new AbortedResponse(e);
    }
    body.close();
    exchange.callback().succeeded();
  }

  /**
   * A response that failed after its headers were sent: {@link #handle} fails the response, and
   * Jetty then closes the connection instead of ending the body.
   */
  private static final class AbortedResponse extends IOException {
    AbortedResponse(RuntimeException cause) {
      super("response failed after its headers were sent", cause);
    }
  }

  private void snapshot(Exchange exchange) throws IOException {
    String query = exchange.query();
    boolean pretty = query != null && query.contains("pretty");
    ObjectNode doc = runtime.snapshot();
    byte[] body =
        pretty
            ? Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(doc)
            : Json.MAPPER.writeValueAsBytes(doc);
    send(exchange, 200, JSON, body);
  }

  private void history(Exchange exchange) throws IOException {
    Map<String, String> params = query(exchange.query());
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

  /**
   * Answering at all is the proof: the listener accepted, parsed and dispatched the request, and
   * the runtime answered. Receivers' and exports' health are left to /readyz, since a collector
   * or an inference server being down is not something a restart of the agent fixes.
   */
  private void livez(Exchange exchange) throws IOException {
    ObjectNode doc = Json.MAPPER.createObjectNode();
    doc.put("status", "ok");
    doc.put("uptimeSeconds", JvmUptime.millis() / 1000.0);
    send(exchange, 200, JSON, json(doc));
  }

  private void healthz(Exchange exchange) throws IOException {
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

  /** Answers with {@code body} whole, written without holding the thread while the client reads. */
  private static void send(Exchange exchange, int status, String contentType, byte[] body) {
    Response response = exchange.response();
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    if (exchange.head() || body.length == 0) {
      response.write(true, null, exchange.callback());
    } else {
      response.write(true, ByteBuffer.wrap(body), exchange.callback());
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
