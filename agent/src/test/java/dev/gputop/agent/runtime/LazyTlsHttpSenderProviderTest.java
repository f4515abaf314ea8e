package dev.gputop.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.sdk.common.export.HttpResponse;
import io.opentelemetry.sdk.common.export.HttpSender;
import io.opentelemetry.sdk.common.export.HttpSenderConfig;
import io.opentelemetry.sdk.common.export.MessageWriter;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The OTLP http/protobuf sender against a real HTTP server on loopback. */
class LazyTlsHttpSenderProviderTest {

  private static final byte[] PAYLOAD = "otlp-bytes".getBytes(StandardCharsets.UTF_8);

  private HttpServer server;
  private final CompletableFuture<byte[]> received = new CompletableFuture<>();

  @BeforeEach
  void startServer() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/v1/metrics", exchange -> {
      received.complete(exchange.getRequestBody().readAllBytes());
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    server.start();
  }

  @AfterEach
  void stopServer() {
    server.stop(0);
  }

  @Test
  void http_sendsThroughTheJdkSender() throws Exception {
    HttpSender sender = new LazyTlsHttpSenderProvider().createSender(config("http", null));

    Object outcome = send(sender);

    assertThat(outcome).isInstanceOf(HttpResponse.class);
    assertThat(((HttpResponse) outcome).getStatusCode()).isEqualTo(200);
    assertThat(received.get(10, TimeUnit.SECONDS)).isEqualTo(PAYLOAD);
    sender.shutdown();
  }

  @Test
  void https_withoutTlsSettings_handshakesWithTheJdksDefaultContext() throws Exception {
    // A port that answers a ClientHello in plain HTTP, as a collector's plain-HTTP port would: the
    // handshake that the lazily fetched default context starts must fail as TLS, not hang.
    try (ServerSocket plain = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread answer = new Thread(() -> {
        try (Socket s = plain.accept()) {
          s.getInputStream().read(new byte[512]);
          s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        } catch (java.io.IOException e) {
          // the test fails on the sender's side
        }
      });
      answer.setDaemon(true);
      answer.start();
      HttpSender sender = new LazyTlsHttpSenderProvider().createSender(config("https", null, plain.getLocalPort()));

      Object outcome = send(sender);

      assertThat(outcome).isInstanceOf(SSLException.class);
      assertThat(((Throwable) outcome).getMessage()).contains("plaintext connection");
      sender.shutdown();
    }
  }

  @Test
  void https_withTlsSettings_usesTheConfiguredContext() throws Exception {
    SSLContext configured = new SSLContext(new RefusingSpi(), null, "TLS") {};
    HttpSender sender = new LazyTlsHttpSenderProvider().createSender(config("https", configured));

    Object outcome = send(sender);

    assertThat(outcome).isInstanceOf(IllegalStateException.class);
    assertThat(((Throwable) outcome).getMessage()).isEqualTo("the configured context");
    sender.shutdown();
  }

  /** The response, or the error, of one send. */
  private static Object send(HttpSender sender) throws Exception {
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    sender.send(new MessageWriter() {
      @Override
      public void writeMessage(OutputStream out) throws java.io.IOException {
        out.write(PAYLOAD);
      }

      @Override
      public int getContentLength() {
        return PAYLOAD.length;
      }
    }, outcome::complete, error -> outcome.complete(rootCause(error)));
    return outcome.get(30, TimeUnit.SECONDS);
  }

  private static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && !(c instanceof SSLException)) {
      c = c.getCause();
    }
    return c;
  }

  private HttpSenderConfig config(String scheme, SSLContext sslContext) {
    return config(scheme, sslContext, server.getAddress().getPort());
  }

  private static HttpSenderConfig config(String scheme, SSLContext sslContext, int port) {
    URI endpoint = URI.create(scheme + "://127.0.0.1:" + port + "/v1/metrics");
    Supplier<Map<String, List<String>>> headers = Map::of;
    return (HttpSenderConfig) Proxy.newProxyInstance(
        HttpSenderConfig.class.getClassLoader(),
        new Class<?>[] {HttpSenderConfig.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getEndpoint" -> endpoint;
          case "getContentType" -> "application/x-protobuf";
          case "getTimeout" -> Duration.ofSeconds(10);
          case "getConnectTimeout" -> Duration.ofSeconds(5);
          case "getHeadersSupplier" -> headers;
          case "getSslContext" -> sslContext;
          case "getMaxResponseBodySize" -> 1L << 20;
          default -> null; // compressor, proxy, retry policy, trust manager, executor, protocols
        });
  }

  /** A context whose engines can't be created, to tell it apart from the JDK's. */
  private static final class RefusingSpi extends SSLContextSpi {
    @Override
    protected void engineInit(javax.net.ssl.KeyManager[] km, javax.net.ssl.TrustManager[] tm, java.security.SecureRandom r) {}

    @Override
    protected javax.net.ssl.SSLParameters engineGetDefaultSSLParameters() {
      return new javax.net.ssl.SSLParameters();
    }

    @Override
    protected javax.net.ssl.SSLParameters engineGetSupportedSSLParameters() {
      return new javax.net.ssl.SSLParameters();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
      throw new IllegalStateException("the configured context");
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
      throw new IllegalStateException("the configured context");
    }

    @Override
    protected javax.net.ssl.SSLSocketFactory engineGetSocketFactory() {
      throw new IllegalStateException("the configured context");
    }

    @Override
    protected javax.net.ssl.SSLServerSocketFactory engineGetServerSocketFactory() {
      throw new IllegalStateException("the configured context");
    }

    @Override
    protected javax.net.ssl.SSLSessionContext engineGetServerSessionContext() {
      return null;
    }

    @Override
    protected javax.net.ssl.SSLSessionContext engineGetClientSessionContext() {
      return null;
    }
  }
}
