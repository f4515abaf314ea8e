package dev.gputop.agent;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;


/**
 * The attacks of docs/RELIABILITY.md ("The listener under siege"), for the tests that hold its
 * promises: slow clients that trickle a request's headers or a TLS ClientHello a byte at a time
 * (reconnecting when the listener drops them, so the pressure stays), and probes that time a
 * route while they run. Loopback only.
 */
public final class Siege {

  private Siege() {}

  /** What the probes saw: each answered request's latency, and how many got no answer in time. */
  public record Latencies(List<Long> nanos, int failures, List<Integer> statuses) {
    /** The {@code q} quantile (0..1) of the answered requests, nearest rank, in milliseconds. */
    public double quantileMillis(double q) {
      if (nanos.isEmpty()) {
        return Double.POSITIVE_INFINITY;
      }
      List<Long> sorted = new ArrayList<>(nanos);
      Collections.sort(sorted);
      int rank = (int) Math.ceil(q * sorted.size());
      return sorted.get(Math.max(0, rank - 1)) / 1e6;
    }

    int answered() {
      return nanos.size();
    }

    @Override
    public String toString() {
      return String.format("%d answered (p50 %.1f ms, p99 %.1f ms, max %.1f ms), %d without an answer",
          answered(), quantileMillis(0.5), quantileMillis(0.99), quantileMillis(1.0), failures);
    }
  }

  /**
   * {@code count} connections to {@code target} that each send one more byte of a request's
   * headers (or, with {@code tls}, of a ClientHello) every {@code every}, never finishing, for as
   * long as the returned handle is open.
   */
  public static SlowClients slowClients(InetSocketAddress target, int count, boolean tls, Duration every) {
    return new SlowClients(target, count, tls, every);
  }

  /** The slow clients' thread; {@link #close()} ends it and their sockets. */
  public static final class SlowClients implements AutoCloseable {
    private static final byte[] HEADERS =
        "GET /api/snapshot HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slowloris\r\nX-Padding: ".getBytes(StandardCharsets.US_ASCII);
    /** A TLS record header of a handshake message, then its body: never enough for a ClientHello. */
    private static final byte[] HELLO = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xfc, 0x03, 0x03};

    private final InetSocketAddress target;
    private final boolean tls;
    private final Socket[] sockets;
    private final int[] sent;
    private final Thread thread;
    private volatile boolean open = true;
    final AtomicInteger reconnects = new AtomicInteger();

    private SlowClients(InetSocketAddress target, int count, boolean tls, Duration every) {
      this.target = target;
      this.tls = tls;
      this.sockets = new Socket[count];
      this.sent = new int[count];
      for (int i = 0; i < count; i++) {
        connect(i);
      }
      this.thread = new Thread(() -> trickle(every), "siege-slow-clients");
      thread.setDaemon(true);
      thread.start();
    }

    private void connect(int i) {
      try {
        Socket s = new Socket();
        s.connect(target, 2000);
        s.setTcpNoDelay(true);
        sockets[i] = s;
        sent[i] = 0;
      } catch (IOException e) {
        sockets[i] = null; // tried again at the next round
      }
    }

    private void trickle(Duration every) {
      while (open) {
        for (int i = 0; i < sockets.length && open; i++) {
          byte[] bytes = tls ? HELLO : HEADERS;
          try {
            if (sockets[i] == null) {
              connect(i);
              reconnects.incrementAndGet();
              continue;
            }
            OutputStream out = sockets[i].getOutputStream();
            out.write(sent[i] < bytes.length ? bytes[sent[i]] : 'x');
            out.flush();
            sent[i]++;
          } catch (IOException e) {
            close(sockets[i]);
            connect(i);
            reconnects.incrementAndGet();
          }
        }
        try {
          Thread.sleep(every.toMillis());
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    @Override
    public void close() throws InterruptedException {
      open = false;
      thread.interrupt();
      thread.join(5000);
      for (Socket s : sockets) {
        close(s);
      }
    }

    private static void close(Socket s) {
      if (s != null) {
        try {
          s.close();
        } catch (IOException ignored) {
          // already gone
        }
      }
    }
  }

  /**
   * Requests {@code uri} every {@code every} for {@code total}, each on a new connection (and, for
   * https, a full handshake with {@code tls}) as a Kubernetes probe does, with a {@code timeout},
   * and times each from connecting to the end of the answer. Raw sockets: the probing side's own
   * cost stays small, so what is timed is the listener.
   */
  public static Latencies probe(javax.net.ssl.SSLContext tls, URI uri, Duration every, Duration total, Duration timeout,
      String... authorization) throws InterruptedException {
    List<Long> nanos = new ArrayList<>();
    List<Integer> statuses = new ArrayList<>();
    int failures = 0;
    // One request first, untimed: the probing JVM's own first handshake (class loading) is not
    // the listener's latency.
    try {
      get(tls, uri, timeout.multipliedBy(5), authorization);
    } catch (IOException e) {
      failures++;
    }
    long end = System.nanoTime() + total.toNanos();
    while (System.nanoTime() < end) {
      long start = System.nanoTime();
      try {
        int status = get(tls, uri, timeout, authorization);
        nanos.add(System.nanoTime() - start);
        statuses.add(status);
      } catch (IOException e) {
        failures++;
      }
      long sleep = start + every.toNanos() - System.nanoTime();
      if (sleep > 0) {
        Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
      }
    }
    return new Latencies(nanos, failures, statuses);
  }

  /** One GET on a new connection; the status. */
  static int get(javax.net.ssl.SSLContext tls, URI uri, Duration timeout, String... authorization) throws IOException {
    int ms = (int) timeout.toMillis();
    try (Socket plain = new Socket()) {
      plain.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), ms);
      plain.setSoTimeout(ms);
      Socket s = plain;
      if (tls != null) {
        javax.net.ssl.SSLSocket ssl = (javax.net.ssl.SSLSocket) tls.getSocketFactory()
            .createSocket(plain, uri.getHost(), uri.getPort(), true);
        ssl.startHandshake();
        s = ssl;
      }
      String path = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
      String request = "GET " + path + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort() + "\r\n"
          + (authorization.length > 0 ? "Authorization: " + authorization[0] + "\r\n" : "")
          + "Connection: close\r\n\r\n";
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      if (!answer.startsWith("HTTP/1.1 ") || answer.length() < 12) {
        throw new IOException("no HTTP answer: " + answer.length() + " bytes");
      }
      return Integer.parseInt(answer.substring(9, 12));
    }
  }

  /**
   * {@code count} clients that each send requests for {@code path} as fast as they are answered,
   * each on a new connection from its own loopback address (127.0.1.1, 127.0.1.2, ...: a flood
   * from many hosts, which a per-address limit alone does not stop), with basic credentials:
   * even clients an unknown user with a random password, odd ones {@code user} with a random
   * password. Runs until the returned handle is closed; {@link Flood#sent} counts the answers.
   */
  public static Flood passwordFlood(InetSocketAddress target, int count, String path, String user) {
    return new Flood(target, count, path, user);
  }

  /** The flooding threads; {@link #close()} ends them. */
  public static final class Flood implements AutoCloseable {
    public final AtomicInteger sent = new AtomicInteger();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean open = true;

    private Flood(InetSocketAddress target, int count, String path, String user) {
      for (int i = 0; i < count; i++) {
        java.net.InetSocketAddress local = new InetSocketAddress("127.0.1." + (1 + i % 250), 0);
        boolean unknown = i % 2 == 0;
        Thread t = new Thread(() -> {
          java.util.Random random = new java.util.Random();
          while (open) {
            String who = unknown ? "user" + random.nextInt() : user;
            String credentials = java.util.Base64.getEncoder().encodeToString(
                (who + ":guess" + random.nextLong()).getBytes(StandardCharsets.UTF_8));
            try (Socket s = new Socket()) {
              s.bind(local);
              s.connect(target, 2000);
              s.setSoTimeout(5000);
              OutputStream out = s.getOutputStream();
              out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic " + credentials
                  + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
              out.flush();
              s.getInputStream().readAllBytes();
              sent.incrementAndGet();
            } catch (IOException e) {
              // the flood goes on
            }
          }
        }, "siege-flood-" + i);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
    }

    @Override
    public void close() throws InterruptedException {
      open = false;
      for (Thread t : threads) {
        t.join(10_000);
      }
    }
  }

  /** Total CPU time (user + system) of process {@code pid} from /proc, in nanoseconds. */
  static long cpuNanos(long pid) throws IOException {
    String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
    return ticks * 1_000_000_000L / CLOCK_TICKS;
  }

  /** USER_HZ: 100 on every Linux the project runs on (getconf CLK_TCK). */
  private static final long CLOCK_TICKS = 100;

}
