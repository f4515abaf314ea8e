package dev.gputop.agent.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One demo inference server: a {@link LoadModel} rendered by one engine's exposition writer and
 * served over HTTP on loopback at {@link #url()}. Created and closed by {@link DemoReplicas}.
 * Thread-safe.
 */
public final class Replica {

  private static final Logger logger = Logger.getLogger(Replica.class.getName());

  private static final String LLAMACPP_DISABLED =
      "{\"error\":{\"code\":501,\"message\":\"This server does not support metrics endpoint. "
          + "Start it with `--metrics`\",\"type\":\"not_supported_error\"}}";

  private final String name;
  private final LoadModel model;
  private final ExpositionWriter writer;
  private volatile boolean metricsEnabled = true;
  private HttpServer server;
  private URI url;

  Replica(String name, LoadModel model, ExpositionWriter writer) {
    this.name = Objects.requireNonNull(name, "name");
    this.model = Objects.requireNonNull(model, "model");
    this.writer = Objects.requireNonNull(writer, "writer");
  }

  /** The server's name in the demo, e.g. {@code vllm-dp2}. */
  public String name() {
    return name;
  }

  /** The engine it emulates: {@code vllm}, {@code sglang}, {@code tgi}, {@code llamacpp} or {@code trtllm}. */
  public String engine() {
    return writer.engine();
  }

  /**
   * The URL of its metrics endpoint, e.g. {@code http://127.0.0.1:41234/metrics} ({@code
   * /prometheus/metrics} for trtllm-serve).
   */
  public URI url() {
    return url;
  }

  /** The simulated server behind it. */
  public LoadModel model() {
    return model;
  }

  /** The exposition the endpoint would answer now (advances the model, like a scrape does). */
  public String render() {
    synchronized (writer) {
      return writer.write(model.stats());
    }
  }

  /**
   * The OpenMetrics exposition the endpoint would answer to {@code Accept:
   * application/openmetrics-text}, or null when the engine does not negotiate (only vLLM does).
   */
  public String renderOpenMetrics() {
    if (writer.openMetricsContentType() == null) {
      return null;
    }
    synchronized (writer) {
      return writer.writeOpenMetrics(model.stats());
    }
  }

  /** prometheus_client's choose_encoder: any listed media type equal to OpenMetrics. */
  static boolean acceptsOpenMetrics(String accept) {
    if (accept == null) {
      return false;
    }
    for (String part : accept.split(",")) {
      if (part.split(";")[0].trim().equals("application/openmetrics-text")) {
        return true;
      }
    }
    return false;
  }

  /** The Content-Type the endpoint answers with. */
  public String contentType() {
    return writer.contentType();
  }

  /** Restarts the simulated server now: counters go back to zero. */
  public void restart() {
    model.restart();
  }

  /**
   * Switches the metrics endpoint off or on. Off, llama.cpp answers 501 with its JSON error (as
   * a server started without {@code --metrics}); the others answer 404.
   */
  public void setMetricsEnabled(boolean enabled) {
    this.metricsEnabled = enabled;
  }

  void bind(HttpServer server) {
    this.server = server;
    this.url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + writer.path());
    server.createContext("/", this::handle);
  }

  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getPath();
      if (path.equals("/metrics") && !writer.path().equals("/metrics")) {
        // trtllm-serve: /metrics is JSON iteration stats, [] while none are kept
        send(ex, 200, "application/json", "[]");
        return;
      }
      if (!path.equals(writer.path())) {
        send(ex, 404, "text/plain; charset=utf-8", "Not Found");
        return;
      }
      if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
        send(ex, 405, "text/plain; charset=utf-8", "Method Not Allowed");
        return;
      }
      if (model.isDown()) {
        // restarting: close the connection without an answer, as a server that is not up yet
        return;
      }
      if (!metricsEnabled) {
        if (writer.engine().equals("llamacpp")) {
          send(ex, 501, "application/json; charset=utf-8", LLAMACPP_DISABLED);
        } else {
          send(ex, 404, "text/plain; charset=utf-8", "Not Found");
        }
        return;
      }
      boolean om = writer.openMetricsContentType() != null
          && acceptsOpenMetrics(ex.getRequestHeaders().getFirst("Accept"));
      LoadModel.Stats stats;
      String body;
      synchronized (writer) {
        // one scrape at a time per writer: llama.cpp's gauges depend on the previous read
        stats = model.stats();
        body = om ? writer.writeOpenMetrics(stats) : writer.write(stats);
      }
      String[] headers = writer.headers(stats);
      for (int i = 0; i + 1 < headers.length; i += 2) {
        ex.getResponseHeaders().add(headers[i], headers[i + 1]);
      }
      send(ex, 200, om ? writer.openMetricsContentType() : writer.contentType(), body);
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "demo replica " + name + " failed to answer", e);
      throw e;
    }
  }

  private static void send(HttpExchange ex, int status, String contentType, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", contentType);
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
