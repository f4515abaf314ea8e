package dev.gputop.inference.scrape;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FormatsTest {

  @Test
  void duration_usesTheShortestExactUnit() {
    assertThat(Formats.duration(Duration.ofSeconds(2))).isEqualTo("2s");
    assertThat(Formats.duration(Duration.ofMillis(1500))).isEqualTo("1.5s");
    assertThat(Formats.duration(Duration.ofMillis(500))).isEqualTo("500ms");
  }

  @Test
  void size_usesBinaryUnitsWhenExact() {
    assertThat(Formats.size(16L << 20)).isEqualTo("16 MiB");
    assertThat(Formats.size(64 << 10)).isEqualTo("64 KiB");
    assertThat(Formats.size(1500)).isEqualTo("1500 bytes");
    assertThat(Formats.size(1)).isEqualTo("1 byte");
  }

  @Test
  void hostPort_fillsInTheSchemesDefaultPort() {
    assertThat(Formats.hostPort(URI.create("http://10.0.0.5/metrics"))).isEqualTo("10.0.0.5:80");
    assertThat(Formats.hostPort(URI.create("https://vllm.svc/metrics"))).isEqualTo("vllm.svc:443");
    assertThat(Formats.hostPort(URI.create("http://u:p@127.0.0.1:8000/m?q=1")))
        .isEqualTo("127.0.0.1:8000");
  }

  @Test
  void snippet_collapsesWhitespaceAndCutsWithAnEllipsis() {
    byte[] html = "<html>\r\n  <body>\n\tBad\u0000Gateway </body>\n</html>\n"
        .getBytes(StandardCharsets.UTF_8);
    assertThat(Formats.snippet(html, html.length, 200))
        .isEqualTo("<html> <body> Bad Gateway </body> </html>");
    assertThat(Formats.snippet(html, html.length, 10)).isEqualTo("<html> <bo…");
    byte[] exact = "abc".getBytes(StandardCharsets.UTF_8);
    assertThat(Formats.snippet(exact, 3, 3)).isEqualTo("abc");
    assertThat(Formats.snippet(new byte[0], 0, 200)).isEmpty();
  }
}
