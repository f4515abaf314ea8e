package dev.gputop.config.internal.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpClient;
import java.security.KeyManagementException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;

class LazyDefaultSslContextTest {

  @Test
  void buildingAnHttpClient_doesNotFetchTheDefaultContext() {
    LazyDefaultSslContext context = LazyDefaultSslContext.create();

    HttpClient client = HttpClient.newBuilder().sslContext(context).build();

    assertThat(client.sslContext()).isSameAs(context);
    assertThat(context.initialized()).isFalse();
    assertThat(context.getProtocol()).isEqualTo("Default");
    assertThat(context.getProvider()).isNull();
    // No settings of its own: the engines keep the default context's.
    SSLParameters parameters = client.sslParameters();
    assertThat(parameters.getProtocols()).isNull();
    assertThat(parameters.getCipherSuites()).isNull();
  }

  @Test
  void engines_areTheDefaultContextsWithItsSettings() throws Exception {
    LazyDefaultSslContext context = LazyDefaultSslContext.create();

    SSLEngine engine = context.createSSLEngine("example.com", 443);

    assertThat(context.initialized()).isTrue();
    SSLEngine reference = SSLContext.getDefault().createSSLEngine("example.com", 443);
    assertThat(engine.getEnabledProtocols()).containsExactly(reference.getEnabledProtocols());
    assertThat(engine.getEnabledCipherSuites()).containsExactly(reference.getEnabledCipherSuites());
    assertThat(engine.getPeerHost()).isEqualTo("example.com");
    assertThat(context.getClientSessionContext()).isSameAs(SSLContext.getDefault().getClientSessionContext());
  }

  @Test
  void initialize_fetchesTheDefaultContext() throws Exception {
    LazyDefaultSslContext context = LazyDefaultSslContext.create();

    context.initialize();
    context.initialize(); // idempotent

    assertThat(context.initialized()).isTrue();
    assertThat(context.getSupportedSSLParameters().getProtocols())
        .containsExactly(SSLContext.getDefault().getSupportedSSLParameters().getProtocols());
  }

  @Test
  void init_isRefusedAsForTheJdksDefaultContext() {
    LazyDefaultSslContext context = LazyDefaultSslContext.create();

    assertThatThrownBy(() -> context.init(null, null, null))
        .isInstanceOf(KeyManagementException.class)
        .hasMessageContaining("can't be re-initialized");
    assertThat(context.initialized()).isFalse();
  }
}
