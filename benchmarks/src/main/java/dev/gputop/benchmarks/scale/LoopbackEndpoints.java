package dev.gputop.benchmarks.scale;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * N metrics endpoints on 127.0.0.1, each on a port of its own like N real servers, served by one
 * selector thread so that the harness itself costs little of the CPU it is measuring. Every
 * {@code GET} gets the current body (HTTP/1.1, keep-alive, no compression); requests are counted
 * by client ({@code User-Agent}: the agent's and Prometheus's), so that the cost per scrape is
 * the process's CPU divided by the scrapes the endpoints really answered.
 */
final class LoopbackEndpoints implements AutoCloseable {

  private final Selector selector;
  private final List<ServerSocketChannel> servers = new ArrayList<>();
  private final AtomicReference<ByteBuffer> response = new AtomicReference<>();
  private final AtomicLong agentRequests = new AtomicLong();
  private final AtomicLong prometheusRequests = new AtomicLong();
  private final AtomicLong otherRequests = new AtomicLong();
  private final Thread thread;
  private volatile boolean closed;

  LoopbackEndpoints(int count) throws IOException {
    selector = Selector.open();
    for (int i = 0; i < count; i++) {
      ServerSocketChannel s = ServerSocketChannel.open();
      s.bind(new InetSocketAddress("127.0.0.1", 0), 128);
      s.configureBlocking(false);
      s.register(selector, SelectionKey.OP_ACCEPT);
      servers.add(s);
    }
    thread = new Thread(this::loop, "loopback-endpoints");
    thread.setDaemon(true);
  }

  /** Serves {@code body} from now on. */
  void publish(byte[] body, String contentType) {
    byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: " + contentType + "\r\nContent-Length: "
        + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    ByteBuffer b = ByteBuffer.allocateDirect(head.length + body.length);
    b.put(head).put(body).flip();
    response.set(b.asReadOnlyBuffer());
  }

  void start() {
    thread.start();
  }

  List<Integer> ports() {
    List<Integer> ports = new ArrayList<>(servers.size());
    for (ServerSocketChannel s : servers) {
      ports.add(s.socket().getLocalPort());
    }
    return ports;
  }

  long agentRequests() {
    return agentRequests.get();
  }

  long prometheusRequests() {
    return prometheusRequests.get();
  }

  long otherRequests() {
    return otherRequests.get();
  }

  /** One connection: the request bytes so far and the response still to write. */
  private static final class Conn {
    final ByteBuffer in = ByteBuffer.allocate(8192);
    ByteBuffer out;
  }

  private void loop() {
    try {
      while (!closed) {
        selector.select(500);
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
          SelectionKey key = it.next();
          it.remove();
          try {
            handle(key);
          } catch (IOException | RuntimeException e) {
            key.cancel();
            key.channel().close();
          }
        }
      }
    } catch (IOException e) {
      if (!closed) {
        e.printStackTrace();
      }
    }
  }

  private void handle(SelectionKey key) throws IOException {
    if (!key.isValid()) {
      return;
    }
    if (key.isAcceptable()) {
      SocketChannel c = ((ServerSocketChannel) key.channel()).accept();
      if (c != null) {
        c.configureBlocking(false);
        c.register(selector, SelectionKey.OP_READ, new Conn());
      }
      return;
    }
    SocketChannel c = (SocketChannel) key.channel();
    Conn conn = (Conn) key.attachment();
    if (key.isReadable()) {
      int n = c.read(conn.in);
      if (n < 0) {
        key.cancel();
        c.close();
        return;
      }
      int end = headerEnd(conn.in);
      if (end >= 0) {
        String head = new String(conn.in.array(), 0, end, StandardCharsets.ISO_8859_1);
        conn.in.clear();
        count(head);
        conn.out = response.get().duplicate();
        key.interestOps(SelectionKey.OP_WRITE);
      } else if (!conn.in.hasRemaining()) {
        key.cancel();
        c.close();
        return;
      }
    }
    if (key.isValid() && key.isWritable() && conn.out != null) {
      c.write(conn.out);
      if (!conn.out.hasRemaining()) {
        conn.out = null;
        key.interestOps(SelectionKey.OP_READ);
      }
    }
  }

  private void count(String head) {
    String lower = head.toLowerCase(java.util.Locale.ROOT);
    int ua = lower.indexOf("\r\nuser-agent:");
    String agent = ua < 0 ? "" : lower.substring(ua, Math.max(ua, lower.indexOf("\r\n", ua + 2)));
    if (agent.contains("gputop")) {
      agentRequests.incrementAndGet();
    } else if (agent.contains("prometheus")) {
      prometheusRequests.incrementAndGet();
    } else {
      otherRequests.incrementAndGet();
    }
  }

  /** The end of the request head ({@code \r\n\r\n}) in the bytes read so far, or -1. */
  private static int headerEnd(ByteBuffer in) {
    byte[] a = in.array();
    for (int i = 3; i < in.position(); i++) {
      if (a[i] == '\n' && a[i - 1] == '\r' && a[i - 2] == '\n' && a[i - 3] == '\r') {
        return i + 1;
      }
    }
    return -1;
  }

  @Override
  public void close() throws IOException {
    closed = true;
    selector.wakeup();
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (SelectionKey k : selector.keys()) {
      k.channel().close();
    }
    selector.close();
  }
}
