package dev.gputop.config.internal.credentials;

import java.net.Socket;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The trust manager behind every {@code insecureSkipVerify} setting (scrape endpoints and the
 * Kubernetes pod list): accepts every certificate. Being an {@link X509ExtendedTrustManager}, it
 * also disables JSSE's host name check (endpoint identification), which lives in the trust
 * manager. Stateless and thread-safe.
 */
public final class TrustAllManager extends X509ExtendedTrustManager {

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) {}

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) {}

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return new X509Certificate[0];
  }
}
