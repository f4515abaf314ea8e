package dev.gputop.agent.prometheus;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The Kubernetes labels of /metrics under the names Prometheus users join on: OTLP carries the
 * semantic-convention attributes {@code k8s.namespace.name}, {@code k8s.pod.name} and {@code
 * k8s.container.name}, which the exporter writes as {@code k8s_namespace_name} and so on; on
 * /metrics they are {@code namespace}, {@code pod} and {@code container}, the names kube-state-metrics
 * and cAdvisor use (docs/metrics.md). {@code k8s.pod.uid} stays {@code k8s_pod_uid}.
 *
 * <p>Here the renaming is a stream ({@link #renaming}), which the exposition /metrics served before
 * the agent had its own writer was written through (the tests' {@code LibraryExposition}, the
 * reference that writer is checked against). The agent's writer ({@link PrometheusTextWriter})
 * renames as it writes and gives the same bytes, this stream's rules included (a HELP text or a
 * label value ending in {@code ,k8s_pod_name=} is renamed too, and only where a label name or HELP
 * text has {@code k8s_} in it); it passes only a HELP line through {@link #kubernetesShortNames}.
 * Stateless; each stream is for one thread.
 */
final class PrometheusLabels {

  private static final byte[][] FROM = {
    bytes("k8s_namespace_name=\""), bytes("k8s_pod_name=\""), bytes("k8s_container_name=\""),
  };
  private static final byte[][] TO = {bytes("namespace=\""), bytes("pod=\""), bytes("container=\"")};

  /** A label name follows one of these, and a renamed name is looked for only there. */
  private static boolean precedesLabelName(byte b) {
    return b == '{' || b == ',';
  }

  /** The bytes a match needs after the byte before it: held back until more come or the end. */
  private static final int HOLD = 1 + Math.max(FROM[0].length, Math.max(FROM[1].length, FROM[2].length));

  private PrometheusLabels() {}

  /**
   * Renames the labels in an exposition (text or OpenMetrics); the same array when there is none.
   * Only label names are touched: a name follows {@code {} or {@code ,} and is followed by {@code
   * ="}, which a label value cannot contain unescaped.
   */
  static byte[] kubernetesShortNames(byte[] exposition) {
    if (!new String(exposition, StandardCharsets.ISO_8859_1).contains("k8s_")) {
      return exposition;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(exposition.length);
    try (OutputStream renaming = renaming(out)) {
      renaming.write(exposition);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not throw
    }
    return out.toByteArray();
  }

  /**
   * A stream that writes to {@code out} what is written to it, with the labels renamed as {@link
   * #kubernetesShortNames(byte[])} does. {@link OutputStream#close()} writes what it holds back
   * and closes {@code out}; {@link OutputStream#flush()} passes on only what can no longer be the
   * start of a renamed name.
   */
  static OutputStream renaming(OutputStream out) {
    return new Renaming(out);
  }

  private static final class Renaming extends OutputStream {
    private final OutputStream out;
    private final byte[] buf = new byte[8192];
    private int len;

    Renaming(OutputStream out) {
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
        if (precedesLabelName(buf[i])) {
          int r = renameAt(i + 1);
          if (r >= 0) {
            out.write(buf, start, i + 1 - start);
            out.write(TO[r]);
            i += 1 + FROM[r].length;
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

    /** Which name starts at {@code at}, all of it in the buffer; -1 for none. */
    private int renameAt(int at) {
      for (int r = 0; r < FROM.length; r++) {
        byte[] from = FROM[r];
        if (at + from.length > len) {
          continue;
        }
        boolean same = true;
        for (int j = 0; j < from.length && same; j++) {
          same = buf[at + j] == from[j];
        }
        if (same) {
          return r;
        }
      }
      return -1;
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

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
