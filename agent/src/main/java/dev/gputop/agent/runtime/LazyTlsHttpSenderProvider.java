package dev.gputop.agent.runtime;

import dev.gputop.config.internal.credentials.LazyDefaultSslContext;
// internal: the SDK's JDK HttpClient sender has no public constructor or factory; this provider
// only wraps it to pass a lazy SSLContext, so the SPI it implements (HttpSenderProvider) is public.
import io.opentelemetry.exporter.sender.jdk.internal.JdkHttpSenderProvider;
import io.opentelemetry.sdk.common.export.Compressor;
import io.opentelemetry.sdk.common.export.HttpSender;
import io.opentelemetry.sdk.common.export.HttpSenderConfig;
import io.opentelemetry.sdk.common.export.HttpSenderProvider;
import io.opentelemetry.sdk.common.export.ProxyOptions;
import io.opentelemetry.sdk.common.export.RetryPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.X509TrustManager;

/**
 * The OTLP http/protobuf sender of the standalone agent: the SDK's own JDK HttpClient sender, given
 * a {@link LazyDefaultSslContext} when no TLS setting ({@code OTEL_EXPORTER_OTLP_CERTIFICATE} and
 * the like) was configured. The SDK's sender alone builds its HttpClient with the JDK's default
 * context, which initializes JSSE at start-up, about a third of a second of CPU, even for an
 * {@code http://} collector. With this provider an exporter to {@code http://} never initializes
 * JSSE, and one to {@code https://} does so at its first export. Everything else is the SDK's
 * sender, unchanged. {@link StandaloneSdk} selects it; registered in {@code META-INF/services}.
 */
public final class LazyTlsHttpSenderProvider implements HttpSenderProvider {

  private final JdkHttpSenderProvider jdk = new JdkHttpSenderProvider();

  @Override
  public HttpSender createSender(HttpSenderConfig config) {
    if (config.getSslContext() != null) {
      return jdk.createSender(config);
    }
    return jdk.createSender(new WithSslContext(config, LazyDefaultSslContext.create()));
  }

  /** {@code config} with an SSL context of ours; every other setting is the original's. */
  private static final class WithSslContext implements HttpSenderConfig {
    private final HttpSenderConfig config;
    private final SSLContext sslContext;

    WithSslContext(HttpSenderConfig config, SSLContext sslContext) {
      this.config = config;
      this.sslContext = sslContext;
    }

    @Override
    public SSLContext getSslContext() {
      return sslContext;
    }

    @Override
    public X509TrustManager getTrustManager() {
      return config.getTrustManager();
    }

    @Override
    public URI getEndpoint() {
      return config.getEndpoint();
    }

    @Override
    public String getContentType() {
      return config.getContentType();
    }

    @Override
    public Compressor getCompressor() {
      return config.getCompressor();
    }

    @Override
    public Duration getTimeout() {
      return config.getTimeout();
    }

    @Override
    public Duration getConnectTimeout() {
      return config.getConnectTimeout();
    }

    @Override
    public Supplier<Map<String, List<String>>> getHeadersSupplier() {
      return config.getHeadersSupplier();
    }

    @Override
    public ProxyOptions getProxyOptions() {
      return config.getProxyOptions();
    }

    @Override
    public RetryPolicy getRetryPolicy() {
      return config.getRetryPolicy();
    }

    @Override
    public ExecutorService getExecutorService() {
      return config.getExecutorService();
    }

    @Override
    public long getMaxResponseBodySize() {
      return config.getMaxResponseBodySize();
    }

    @Override
    public List<String> getEnabledProtocols() {
      return config.getEnabledProtocols();
    }
  }
}
