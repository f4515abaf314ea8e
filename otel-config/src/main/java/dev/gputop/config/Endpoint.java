package dev.gputop.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One inference server to scrape: a configured endpoint ({@code inference.endpoints[]}) or one
 * that discovery found. This one value travels from the loader (or discovery) to the socket: the
 * receiver hands it to the scraper as it is, and each scrape result carries it back. Its URL is
 * checked once, here ({@link #parseUrl(String)} for the loader, which names the key and line of a bad
 * one; the constructor for everyone else), so the scraper never meets a URL it can't request. A
 * configured endpoint that can't be scraped makes the inference receiver unhealthy. Immutable.
 *
 * @param name the server's name in every output ({@code server} attribute)
 * @param url the metrics URL: http or https, with a host
 * @param headers extra request headers; values may be {@code ${env:VAR}} references, resolved at
 *     load time and never logged
 * @param bearerTokenFile a file whose trimmed content is sent as {@code Authorization: Bearer};
 *     re-read on each scrape so rotated tokens are picked up; null for none
 * @param tls TLS settings for https URLs; {@link TlsConfig#defaults()} for the JVM's trust store
 * @param slo the endpoint's own SLO targets ({@code inference.endpoints[].slo}), stronger than
 *     {@code inference.slo} and its overrides; {@link SloTargets#NONE} for none
 * @param gpus the NVML indices of the GPUs the server runs on ({@code inference.endpoints[].gpus}),
 *     for a server discovery can't map to its GPU processes; empty when not configured (discovery's
 *     GPUs then apply, if it finds the server)
 */
public record Endpoint(
    String name, URI url, Map<String, String> headers, String bearerTokenFile, TlsConfig tls,
    SloTargets slo, List<Integer> gpus) {

  /**
   * @throws IllegalArgumentException when the URL is not http(s) or has no host
   */
  public Endpoint {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(tls, "tls");
    Objects.requireNonNull(slo, "slo");
    check(url, url.toString());
    headers = Map.copyOf(headers);
    // A GPU named twice is one GPU: its energy must not count twice.
    gpus = gpus == null ? List.of() : List.copyOf(new java.util.LinkedHashSet<>(gpus));
  }

  /** An endpoint without GPUs of its own. */
  public Endpoint(
      String name, URI url, Map<String, String> headers, String bearerTokenFile, TlsConfig tls,
      SloTargets slo) {
    this(name, url, headers, bearerTokenFile, tls, slo, List.of());
  }

  /** An endpoint without SLO targets of its own. */
  public Endpoint(
      String name, URI url, Map<String, String> headers, String bearerTokenFile, TlsConfig tls) {
    this(name, url, headers, bearerTokenFile, tls, SloTargets.NONE);
  }

  /** A plain endpoint (a discovered server): no headers, token, TLS settings or SLO targets. */
  public static Endpoint of(String name, URI url) {
    return new Endpoint(name, url, Map.of(), null, TlsConfig.defaults(), SloTargets.NONE);
  }

  /**
   * Reads a metrics URL as written in the configuration.
   *
   * @throws IllegalArgumentException with a message the loader prefixes with the key and line
   */
  public static URI parseUrl(String text) {
    URI url;
    try {
      url = new URI(text.trim());
    } catch (URISyntaxException e) {
      // The JDK's own text ("Illegal character in scheme name at index 0") reads as an internal.
      String input = e.getInput();
      int at = firstNeverAllowed(input);
      if (at < 0) {
        at = e.getIndex(); // where the JDK's parser gave up: near the fault, not always on it
      }
      String where = at >= 0 && at < input.length()
          ? "'" + input.charAt(at) + "' at position " + (at + 1) + " can't be there"
          : "it is incomplete";
      throw new IllegalArgumentException("not a valid URL: '" + text.trim() + "': " + where
          + " (write it as http://host:port/path)");
    }
    check(url, text);
    return url;
  }

  /** The first character no part of a URL may hold unescaped (a space, a quote, {@code <}), or -1. */
  private static int firstNeverAllowed(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c <= ' ' || c == 0x7f || "\"'<>`{}|\\^".indexOf(c) >= 0) {
        return i;
      }
    }
    return -1;
  }

  private static void check(URI url, String text) {
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("must be an http or https URL, not '" + text + "'");
    }
    if (url.getHost() == null) {
      throw new IllegalArgumentException("has no host: '" + text + "'");
    }
  }

  /** Never prints header values or token contents: they are secrets. */
  @Override
  public String toString() {
    return "Endpoint[name=" + name + ", url=" + url + ", headers=" + headers.keySet()
        + ", bearerTokenFile=" + bearerTokenFile + ", tls=" + tls + ", slo=" + slo
        + (gpus.isEmpty() ? "" : ", gpus=" + gpus) + "]";
  }
}
