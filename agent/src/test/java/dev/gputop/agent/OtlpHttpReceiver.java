package dev.gputop.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP metrics receiver for tests: {@code POST /v1/metrics} on 127.0.0.1, decoding each
 * {@link ExportMetricsServiceRequest} and keeping it. Thread-safe.
 */
public final class OtlpHttpReceiver implements AutoCloseable {

  private final HttpServer server;
  public final List<ExportMetricsServiceRequest> requests = new CopyOnWriteArrayList<>();
  /** The request headers of each request, lower-case names, in arrival order. */
  public final List<Map<String, String>> headers = new CopyOnWriteArrayList<>();

  public OtlpHttpReceiver() throws IOException {
    this(0);
  }

  /** A receiver on {@code port} of 127.0.0.1 (0: any free port). */
  public OtlpHttpReceiver(int port) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
    server.createContext("/v1/metrics", this::handle);
    server.start();
  }

  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT. */
  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      if (!ex.getRequestMethod().equals("POST")) {
        ex.sendResponseHeaders(405, -1);
        return;
      }
      Map<String, String> h = new LinkedHashMap<>();
      ex.getRequestHeaders().forEach((k, v) -> h.put(k.toLowerCase(java.util.Locale.ROOT), String.join(",", v)));
      headers.add(h);
      InputStream in = ex.getRequestBody();
      if ("gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
        in = new GZIPInputStream(in);
      }
      requests.add(ExportMetricsServiceRequest.parseFrom(in.readAllBytes()));
      byte[] body = ExportMetricsServiceResponse.getDefaultInstance().toByteArray();
      ex.getResponseHeaders().set("Content-Type", "application/x-protobuf");
      ex.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
      if (body.length > 0) {
        try (OutputStream out = ex.getResponseBody()) {
          out.write(body);
        }
      }
    }
  }

  /** The metrics of the latest request that carries {@code name}, with their resource. */
  public record Found(Map<String, String> resource, Metric metric) {}

  /** Every metric named {@code name} in the newest request that has it, or empty. */
  public List<Found> latest(String name) {
    for (int i = requests.size() - 1; i >= 0; i--) {
      List<Found> out = new ArrayList<>();
      for (ResourceMetrics rm : requests.get(i).getResourceMetricsList()) {
        Map<String, String> resource = attributes(rm.getResource().getAttributesList());
        for (ScopeMetrics sm : rm.getScopeMetricsList()) {
          for (Metric m : sm.getMetricsList()) {
            if (m.getName().equals(name)) {
              out.add(new Found(resource, m));
            }
          }
        }
      }
      if (!out.isEmpty()) {
        return out;
      }
    }
    return List.of();
  }

  public static Map<String, String> attributes(List<KeyValue> kvs) {
    Map<String, String> out = new LinkedHashMap<>();
    for (KeyValue kv : kvs) {
      out.put(kv.getKey(), kv.getValue().hasStringValue() ? kv.getValue().getStringValue() : kv.getValue().toString());
    }
    return out;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
