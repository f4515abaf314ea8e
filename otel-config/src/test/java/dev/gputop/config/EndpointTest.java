package dev.gputop.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EndpointTest {

  @Test
  void constructor_unsupportedScheme_isRejectedBeforeAnyScrape() {
    // Formerly checked again by the scraper at each scrape: now no such endpoint exists.
    assertThatThrownBy(() -> Endpoint.of("ftp", URI.create("ftp://127.0.0.1/metrics")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("must be an http or https URL, not 'ftp://127.0.0.1/metrics'");
  }

  @Test
  void constructor_noHost_isRejected() {
    assertThatThrownBy(() -> Endpoint.of("nohost", URI.create("http:/metrics")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("has no host: 'http:/metrics'");
  }

  @Test
  void parseUrl_httpsWithUpperCaseScheme_isAccepted() {
    assertThat(Endpoint.parseUrl(" HTTPS://gpu-1:8443/metrics "))
        .isEqualTo(URI.create("HTTPS://gpu-1:8443/metrics"));
  }

  @Test
  void parseUrl_notAUrl_saysSo() {
    assertThatThrownBy(() -> Endpoint.parseUrl("http://a b/metrics"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a valid URL: 'http://a b/metrics': ' ' at position 9 can't be there (write it as http://host:port/path)");
    // A value pasted with its quotes, the JDK's "Illegal character in scheme name at index 0".
    assertThatThrownBy(() -> Endpoint.parseUrl("\"http://gpu-1:8000/metrics\""))
        .hasMessageNotContaining("Illegal character").hasMessageContaining("'\"' at position 1 can't be there");
  }

  @Test
  void toString_hidesHeaderValues() {
    Endpoint e = new Endpoint("chat", URI.create("http://10.0.0.5:8000/metrics"),
        Map.of("X-Token", "s3cret"), null, TlsConfig.defaults());

    assertThat(e.toString()).contains("X-Token").doesNotContain("s3cret");
    assertThat(e.slo()).isEqualTo(SloTargets.NONE);
  }
}
