package dev.gputop.inference.scrape;

import dev.gputop.inference.scrape.ScrapeResult.Outcome;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Inflates a gzip body while counting the output, so a small compressed body that expands to
 * gigabytes (a gzip bomb) is stopped at the limit: memory and CPU stay proportional to the limit,
 * not to what the server claims. Stateless and thread-safe.
 */
final class GzipDecoder {

  private GzipDecoder() {}

  /**
   * @param limit most decompressed bytes accepted
   * @param truncate true to return the first {@code limit} bytes (and ignore a cut-off stream)
   *     instead of failing; used for error pages, of which only the start is shown
   * @throws ScrapeFailure TOO_LARGE over the limit, IO_ERROR for a corrupt stream
   */
  static BodyBuffer.Body decode(byte[] in, int inLength, long limit, boolean truncate)
      throws ScrapeFailure {
    int max = (int) Math.min(limit, Integer.MAX_VALUE - 16);
    byte[] out = new byte[(int) Math.min(Math.max(4L * inLength, 4096), max)];
    int length = 0;
    try (GZIPInputStream gz =
        new GZIPInputStream(new ByteArrayInputStream(in, 0, inLength), 8192)) {
      while (true) {
        if (length == out.length) {
          if (length >= max) {
            // Full: one more byte would cross the limit.
            if (truncate) {
              break;
            }
            if (gz.read() < 0) {
              break;
            }
            throw new ScrapeFailure(Outcome.TOO_LARGE,
                "body exceeds " + Formats.size(limit) + " limit after gzip decompression");
          }
          out = Arrays.copyOf(out, (int) Math.min((long) out.length * 2, max));
        }
        int n = gz.read(out, length, out.length - length);
        if (n < 0) {
          break;
        }
        length += n;
      }
    } catch (EOFException e) {
      if (!truncate) {
        throw new ScrapeFailure(Outcome.IO_ERROR, "gzip body is truncated");
      }
    } catch (ZipException e) {
      if (!truncate) {
        throw new ScrapeFailure(Outcome.IO_ERROR, "gzip body is corrupt: " + e.getMessage());
      }
    } catch (IOException e) {
      throw new ScrapeFailure(Outcome.IO_ERROR, "cannot decompress gzip body: " + e);
    }
    return new BodyBuffer.Body(out, length);
  }
}
