package dev.gputop.config;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * The HTTP listener's address, {@code listen}'s value when it is not {@code off}: a host (a name,
 * an IPv4 address, or an IPv6 address, written in brackets) and a port, 0 for any free one. The
 * one reading of {@code host:port}: the config check, the listener's bind and the demo's choice
 * of port all go through it.
 *
 * @param host the host without IPv6 brackets ({@code 127.0.0.1}, {@code ::1}, {@code 0.0.0.0})
 * @param port 0-65535
 */
public record ListenAddress(String host, int port) {

  public ListenAddress {
    Objects.requireNonNull(host, "host");
    if (host.isEmpty()) {
      throw new IllegalArgumentException("empty host");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0-65535, not " + port);
    }
  }

  /**
   * Reads {@code host:port} ({@code [v6]:port} for an IPv6 host).
   *
   * @throws IllegalArgumentException naming the text, when it is not that
   */
  public static ListenAddress parse(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("expected host:port (or 'off'), not '" + text + "'");
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0-65535 in '" + text + "'");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]") && host.length() > 2) {
      host = host.substring(1, host.length() - 1);
    }
    return new ListenAddress(host, port);
  }

  /** The same host on another port. */
  public ListenAddress withPort(int otherPort) {
    return new ListenAddress(host, otherPort);
  }

  /** The address to bind; resolves the host name. */
  public InetSocketAddress socketAddress() {
    return new InetSocketAddress(host, port);
  }

  /** {@code host:port}, with an IPv6 host in brackets: what {@link #parse} reads back. */
  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
