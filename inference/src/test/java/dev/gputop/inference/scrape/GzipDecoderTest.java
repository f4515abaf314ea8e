package dev.gputop.inference.scrape;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class GzipDecoderTest {

  @Test
  void decode_bodyAtExactlyTheLimit_isAccepted() throws Exception {
    byte[] data = "x".repeat(4096).getBytes(StandardCharsets.US_ASCII);
    byte[] gz = HttpScraperTest.gzip(data);

    BodyBuffer.Body body = GzipDecoder.decode(gz, gz.length, 4096, false);

    assertThat(Arrays.copyOf(body.bytes(), body.length())).isEqualTo(data);
  }

  @Test
  void decode_oneByteOverTheLimit_isTooLarge() throws Exception {
    byte[] gz = HttpScraperTest.gzip(new byte[4097]);

    assertThatThrownBy(() -> GzipDecoder.decode(gz, gz.length, 4096, false))
        .isInstanceOfSatisfying(ScrapeFailure.class, f -> {
          assertThat(f.outcome()).isEqualTo(Outcome.TOO_LARGE);
          assertThat(f).hasMessage("body exceeds 4 KiB limit after gzip decompression");
        });
  }

  @Test
  void decode_truncating_keepsTheStartOfABomb() throws Exception {
    byte[] gz = HttpScraperTest.gzip(new byte[8 << 20]);

    BodyBuffer.Body body = GzipDecoder.decode(gz, gz.length, 4096, true);

    assertThat(body.length()).isEqualTo(4096);
  }

  @Test
  void decode_notGzip_isIoError() {
    byte[] plain = "# TYPE x gauge\nx 1\n".getBytes(StandardCharsets.US_ASCII);

    assertThatThrownBy(() -> GzipDecoder.decode(plain, plain.length, 4096, false))
        .isInstanceOfSatisfying(ScrapeFailure.class,
            f -> assertThat(f.outcome()).isEqualTo(Outcome.IO_ERROR))
        .hasMessageStartingWith("gzip body is corrupt");
  }

  @Test
  void decode_cutOffStream_isIoError() throws Exception {
    byte[] gz = HttpScraperTest.gzip("x 1\n".repeat(1000).getBytes(StandardCharsets.US_ASCII));

    assertThatThrownBy(() -> GzipDecoder.decode(gz, gz.length / 2, 1 << 20, false))
        .isInstanceOf(ScrapeFailure.class)
        .hasMessage("gzip body is truncated");
  }
}
