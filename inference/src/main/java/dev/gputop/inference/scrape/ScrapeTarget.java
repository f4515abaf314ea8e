package dev.gputop.inference.scrape;

import dev.gputop.config.TlsConfig;
import java.net.URI;
import java.util.Map;
import java.util.Objects;

/**
 * Where and how to scrape one server. Immutable.
 *
 * @param name the server's name
 * @param url the metrics URL (http or https)
 * @param headers extra request headers (secrets: never logged)
 * @param bearerTokenFile file with a bearer token, re-read on every scrape; null for none
 * @param tls TLS settings for https
 */
public record ScrapeTarget(
    String name, URI url, Map<String, String> headers, String bearerTokenFile, TlsConfig tls) {

  public ScrapeTarget {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(tls, "tls");
    headers = Map.copyOf(headers);
  }

  /** A plain target with no headers, token or TLS settings. */
  public static ScrapeTarget of(String name, URI url) {
    return new ScrapeTarget(name, url, Map.of(), null, TlsConfig.defaults());
  }

  @Override
  public String toString() {
    return "ScrapeTarget[" + name + " " + url + "]";
  }
}
