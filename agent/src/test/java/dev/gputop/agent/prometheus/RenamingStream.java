package dev.gputop.agent.prometheus;

import java.io.IOException;
import java.io.OutputStream;

/**
 * {@link PrometheusLabels}' renaming as a stream: writes to {@code out} what is written to it, with
 * the labels renamed as {@link PrometheusLabels#kubernetesShortNames(byte[])} does. The exposition
 * /metrics served before the agent had its own writer was written through it ({@link
 * LibraryExposition}). {@link #close()} writes what it holds back and closes {@code out}; {@link
 * #flush()} passes on only what can no longer be the start of a renamed name. For one thread.
 */
final class RenamingStream extends OutputStream {

  /** The bytes a match needs after the byte before it: held back until more come or the end. */
  private static final int HOLD = 1 + Math.max(PrometheusLabels.FROM[0].length,
      Math.max(PrometheusLabels.FROM[1].length, PrometheusLabels.FROM[2].length));

  private final OutputStream out;
  private final byte[] buf = new byte[8192];
  private int len;

  RenamingStream(OutputStream out) {
    this.out = out;
  }

  @Override
  public void write(int b) throws IOException {
    if (len == buf.length) {
      drain(false);
    }
    buf[len++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int n) throws IOException {
    while (n > 0) {
      if (len == buf.length) {
        drain(false);
      }
      int k = Math.min(n, buf.length - len);
      System.arraycopy(b, off, buf, len, k);
      len += k;
      off += k;
      n -= k;
    }
  }

  /**
   * Writes what the buffer holds, renamed, except (unless at the end) its last {@link #HOLD}
   * bytes, which a match starting there might still need.
   */
  private void drain(boolean end) throws IOException {
    int limit = end ? len : len - HOLD;
    int start = 0;
    int i = 0;
    while (i < limit) {
      if (PrometheusLabels.precedesLabelName(buf[i])) {
        int r = PrometheusLabels.renameAt(buf, i + 1, len);
        if (r >= 0) {
          out.write(buf, start, i + 1 - start);
          out.write(PrometheusLabels.TO[r]);
          i += 1 + PrometheusLabels.FROM[r].length;
          start = i;
          continue;
        }
      }
      i++;
    }
    int cut = Math.max(start, Math.max(limit, 0));
    out.write(buf, start, cut - start);
    System.arraycopy(buf, cut, buf, 0, len - cut);
    len -= cut;
  }

  @Override
  public void flush() throws IOException {
    drain(false);
    out.flush();
  }

  @Override
  public void close() throws IOException {
    try (out) {
      drain(true);
    }
  }
}
