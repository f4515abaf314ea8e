package dev.gputop.examples;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal client of Prometheus's HTTP API (/api/v1/query, label values, rules, alerts), for
 * the end-to-end test. Thread-safe.
 */
final class PrometheusApi {

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final String base;

  PrometheusApi(String base) {
    this.base = base;
  }

  /** An instant query's result vector (or scalar, as one element); throws on an API error. */
  List<JsonNode> query(String promql) {
    return result(get("/api/v1/query?query=" + enc(promql)).path("data"));
  }

  /**
   * An instant query evaluated at {@code time} (Prometheus's seconds since the epoch, as it wrote
   * them), so that several queries read the same samples however many scrapes land between them.
   */
  List<JsonNode> queryAt(String promql, String time) {
    return result(get("/api/v1/query?query=" + enc(promql) + "&time=" + enc(time)).path("data"));
  }

  private static List<JsonNode> result(JsonNode data) {
    List<JsonNode> out = new ArrayList<>();
    if (data.path("resultType").asText().equals("scalar")) {
      out.add(data);
    } else {
      data.path("result").forEach(out::add);
    }
    return out;
  }

  /** The values of a label over the series a selector matches (Grafana's label_values). */
  List<String> labelValues(String label, String selector) {
    String path = "/api/v1/label/" + label + "/values" + (selector.isEmpty() ? "" : "?match[]=" + enc(selector));
    List<String> out = new ArrayList<>();
    get(path).path("data").forEach(v -> out.add(v.asText()));
    return out;
  }

  JsonNode rules() {
    return get("/api/v1/rules?type=alert").path("data");
  }

  JsonNode alerts() {
    return get("/api/v1/alerts").path("data").path("alerts");
  }

  boolean ready() {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/-/ready")).timeout(Duration.ofSeconds(2)).build(),
          HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private JsonNode get(String pathAndQuery) {
    try {
      HttpResponse<String> r = http.send(
          HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      JsonNode body = Examples.JSON.readTree(r.body());
      if (r.statusCode() != 200 || !body.path("status").asText().equals("success")) {
        throw new AssertionError("Prometheus " + pathAndQuery + " answered " + r.statusCode() + ": " + r.body());
      }
      return body;
    } catch (IOException e) {
      throw new AssertionError("Prometheus " + pathAndQuery + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
