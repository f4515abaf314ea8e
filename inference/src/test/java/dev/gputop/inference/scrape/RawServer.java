package dev.gputop.inference.scrape;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP server on 127.0.0.1 whose every connection runs a test-supplied behavior on its own
 * thread: the way to build servers that misbehave (never answer, trickle bytes, lie about
 * lengths) where a real HTTP server would not. Counts connections. Thread-safe.
 */
final class RawServer implements AutoCloseable {

  /** What the server does with one accepted connection. */
  interface Behavior {
    void handle(Socket socket) throws Exception;
  }

  final AtomicInteger connections = new AtomicInteger();
  /** Counted down when a connection's behavior ends (normally or by the client hanging up). */
  final CountDownLatch finished = new CountDownLatch(1);

  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  RawServer(Behavior behavior) throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      while (!closed) {
        Socket socket;
        try {
          socket = server.accept();
        } catch (IOException e) {
          return;
        }
        sockets.add(socket);
        connections.incrementAndGet();
        Thread worker = new Thread(() -> {
          try (socket) {
            behavior.handle(socket);
          } catch (Exception e) {
            // The client hung up, or the server was closed: both are expected endings.
          } finally {
            sockets.remove(socket);
            finished.countDown();
          }
        }, "raw-server-connection");
        worker.setDaemon(true);
        worker.start();
      }
    }, "raw-server-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port() + path);
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    for (Socket socket : sockets) {
      socket.close();
    }
  }

  /** Reads a request's head (up to the blank line); returns it as text. */
  static String readRequest(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("client closed before the end of the request");
      }
      head.write(b);
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  /** Writes a complete response with the given head lines and body, then flushes. */
  static void respond(Socket socket, String statusAndHeaders, byte[] body) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write((statusAndHeaders + "\r\nContent-Length: " + body.length
        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    out.write(body);
    out.flush();
  }

  /**
   * Waits up to {@code within} for the client to close the connection; true if it did. What a
   * server does next when it did not is how a test shows that the client would have waited.
   */
  static boolean awaitClientClose(Socket socket, java.time.Duration within) throws IOException {
    long end = System.nanoTime() + within.toNanos();
    InputStream in = socket.getInputStream();
    try {
      while (true) {
        long left = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
        if (left <= 0) {
          return false;
        }
        socket.setSoTimeout((int) Math.min(left, Integer.MAX_VALUE));
        if (in.read() < 0) {
          return true;
        }
      }
    } catch (java.net.SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset by the client: also a hang-up
    } finally {
      socket.setSoTimeout(0);
    }
  }

  /**
   * Sends {@code bytes} one at a time, evenly spread over {@code total}, so that the last one
   * leaves at its end; throws once the client hangs up.
   */
  static void trickle(Socket socket, byte[] bytes, java.time.Duration total)
      throws IOException, InterruptedException {
    OutputStream out = socket.getOutputStream();
    long pause = Math.max(1, total.toMillis() / Math.max(1, bytes.length));
    for (byte b : bytes) {
      out.write(b);
      out.flush();
      Thread.sleep(pause);
    }
  }

  /** Blocks until the client closes the connection (read returns end of stream or fails). */
  static void awaitClientClose(Socket socket) {
    try {
      InputStream in = socket.getInputStream();
      while (in.read() >= 0) {
        // A well-behaved client sends nothing more; drain until it hangs up.
      }
    } catch (IOException e) {
      // Reset by the client: also a hang-up.
    }
  }
}
