package dev.gputop.agent.soak;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.GZIPOutputStream;

/**
 * Metrics endpoints on 127.0.0.1 that misbehave the ways the scraper's deadline and limit tests
 * (HttpScraperDeadlineTest, HttpScraperLimitsTest) prove one at a time: for the soak, all at once
 * and for as long as the soak lasts. Each has its own port and a name saying what it does.
 * Thread-safe; {@link #close()} ends every connection.
 */
public final class HostileEndpoints implements AutoCloseable {

  /** What one endpoint does with each connection. */
  private interface Behavior {
    void handle(Socket socket, InputStream in, OutputStream out) throws Exception;
  }

  private final List<ServerSocket> servers = new ArrayList<>();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Map<String, String> urls = new LinkedHashMap<>();
  private volatile boolean closed;

  private HostileEndpoints() {}

  /** Starts every hostile endpoint, plus a port where nothing listens. */
  public static HostileEndpoints start() throws IOException {
    HostileEndpoints h = new HostileEndpoints();
    h.add("silent", (s, in, out) -> {
      readRequest(in);
      awaitClose(in); // accepts, reads the request, never answers
    });
    h.add("trickle", (s, in, out) -> {
      readRequest(in);
      out.write(ascii("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n"));
      for (int i = 0; i < 100_000 && !h.closed; i++) {
        out.write('#');
        out.flush();
        Thread.sleep(200);
      }
    });
    h.add("garbage", (s, in, out) -> {
      readRequest(in);
      out.write(ascii("SSH-2.0-OpenSSH_9.6\r\n\u0000\u0001\u0002 not http at all\r\n"));
      awaitClose(in);
    });
    h.add("reset", (s, in, out) -> {
      readRequest(in);
      s.setSoLinger(true, 0); // RST instead of FIN
    });
    h.add("gzip-bomb", (s, in, out) -> {
      readRequest(in);
      out.write(ascii("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\n"
          + "Connection: close\r\n\r\n"));
      // 1 GiB of zeros compresses to about 1 MiB: the scraper must stop at its body limit.
      GZIPOutputStream gz = new GZIPOutputStream(out, 64 << 10);
      byte[] zeros = new byte[64 << 10];
      for (int i = 0; i < (1 << 30) / zeros.length && !h.closed; i++) {
        gz.write(zeros);
      }
      gz.finish();
    });
    byte[] manySeries = manySeries(300_000);
    h.add("300k-series", (s, in, out) -> {
      readRequest(in);
      out.write(ascii("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n"
          + "Content-Length: " + manySeries.length + "\r\n\r\n"));
      out.write(manySeries);
    });
    h.add("redirect", (s, in, out) -> {
      readRequest(in);
      out.write(ascii("HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/latest/meta-data\r\n"
          + "Content-Length: 0\r\n\r\n"));
      awaitClose(in);
    });
    h.add("http-500", (s, in, out) -> {
      readRequest(in);
      byte[] body = ascii("<html><body>Internal Server Error\n</body></html>\n");
      out.write(ascii("HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/html\r\n"
          + "Connection: close\r\nContent-Length: " + body.length + "\r\n\r\n"));
      out.write(body);
    });
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      h.urls.put("refused", "http://127.0.0.1:" + free.getLocalPort() + "/metrics");
    }
    return h;
  }

  /** Name to metrics URL, in start order. */
  public Map<String, String> urls() {
    return Map.copyOf(urls);
  }

  /** The names, in start order. */
  public List<String> names() {
    return List.copyOf(urls.keySet());
  }

  /** The URL of {@code name}. */
  public String url(String name) {
    return urls.get(name);
  }

  private void add(String name, Behavior behavior) throws IOException {
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    servers.add(server);
    urls.put(name, "http://127.0.0.1:" + server.getLocalPort() + "/metrics");
    Thread acceptor = new Thread(() -> {
      while (!closed) {
        Socket socket;
        try {
          socket = server.accept();
        } catch (IOException e) {
          return;
        }
        sockets.add(socket);
        Thread worker = new Thread(() -> {
          try (socket) {
            behavior.handle(socket, socket.getInputStream(), socket.getOutputStream());
          } catch (Exception e) {
            // The scraper hung up (its deadline) or the soak ended: both are expected.
          } finally {
            sockets.remove(socket);
          }
        }, "hostile-" + name);
        worker.setDaemon(true);
        worker.start();
      }
    }, "hostile-" + name + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  @Override
  public void close() {
    closed = true;
    for (ServerSocket s : servers) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  private static void readRequest(InputStream in) throws IOException {
    int state = 0;
    int c;
    while ((c = in.read()) >= 0) {
      state = (c == '\r' && state % 2 == 0) || (c == '\n' && state % 2 == 1) ? state + 1 : 0;
      if (state == 4) {
        return;
      }
    }
  }

  private static void awaitClose(InputStream in) throws IOException {
    while (in.read() >= 0) {
      // discard until the client hangs up
    }
  }

  private static byte[] manySeries(int n) {
    StringBuilder b = new StringBuilder(n * 48);
    b.append("# TYPE vllm:num_requests_running gauge\n");
    for (int i = 0; i < n; i++) {
      b.append("vllm:num_requests_running{model_name=\"m").append(i).append("\"} 1\n");
    }
    return ascii(b.toString());
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }
}
