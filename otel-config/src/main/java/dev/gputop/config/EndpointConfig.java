package dev.gputop.config;

import java.net.URI;
import java.util.Map;
import java.util.Objects;

/**
 * One configured inference endpoint ({@code inference.endpoints[]}). A configured endpoint that
 * can't be scraped makes the inference receiver unhealthy. Immutable.
 *
 * @param name the server's name in every output ({@code server} attribute)
 * @param url the metrics URL, http or https
 * @param headers extra request headers; values may be {@code ${env:VAR}} references, resolved at
 *     load time and never logged
 * @param bearerTokenFile a file whose trimmed content is sent as {@code Authorization: Bearer};
 *     re-read on each scrape so rotated tokens are picked up; null for none
 * @param tls TLS settings for https URLs; {@link TlsConfig#defaults()} for the JVM's trust store
 * @param slo the endpoint's own SLO targets ({@code inference.endpoints[].slo}), stronger than
 *     {@code inference.slo} and its overrides; {@link SloTargets#NONE} for none
 */
public record EndpointConfig(
    String name, URI url, Map<String, String> headers, String bearerTokenFile, TlsConfig tls,
    SloTargets slo) {

  public EndpointConfig {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(tls, "tls");
    Objects.requireNonNull(slo, "slo");
    headers = Map.copyOf(headers);
  }

  /** An endpoint without SLO targets of its own. */
  public EndpointConfig(
      String name, URI url, Map<String, String> headers, String bearerTokenFile, TlsConfig tls) {
    this(name, url, headers, bearerTokenFile, tls, SloTargets.NONE);
  }

  /** Never prints header values or token contents: they are secrets. */
  @Override
  public String toString() {
    return "EndpointConfig[name=" + name + ", url=" + url + ", headers=" + headers.keySet()
        + ", bearerTokenFile=" + bearerTokenFile + ", tls=" + tls + ", slo=" + slo + "]";
  }
}
