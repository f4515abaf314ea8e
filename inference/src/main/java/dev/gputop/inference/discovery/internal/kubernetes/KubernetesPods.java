package dev.gputop.inference.discovery.internal.kubernetes;

import dev.gputop.config.KubernetesConfig;
import dev.gputop.config.internal.credentials.BearerTokenFile;
import dev.gputop.config.internal.credentials.CredentialException;
import dev.gputop.config.internal.credentials.PemFiles;
import dev.gputop.config.internal.credentials.TrustAllManager;
import dev.gputop.config.logging.FailureLog;
import dev.gputop.receiver.Clock;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.logging.Logger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/**
 * The pods on this node, listed from the kubelet ({@code GET /pods}) or from the API server
 * ({@code GET /api/v1/pods?fieldSelector=spec.nodeName=<node>}) with the service account's token
 * and CA, and re-listed every {@code kubernetes.refresh}. Discovery uses it to reach a containerized
 * server at its pod IP.
 *
 * <p>The list is fetched on the caller's thread, at most once per refresh interval (failures too, so
 * an unreachable API server costs one timeout per interval, not one per pass). A failed refresh
 * keeps the previous list. The token file is re-read on every fetch, because projected
 * service-account tokens rotate; it is never logged.
 *
 * <p>Thread-safe: {@link #refreshIfDue()} and {@link #find} are synchronized.
 */
public final class KubernetesPods implements PodLookup {

  private static final Logger logger = Logger.getLogger(KubernetesPods.class.getName());
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  private static final int MAX_BODY_BYTES = 64 * 1024 * 1024;

  private final URI uri;
  private final String source;
  private final Path tokenFile;
  private final HttpClient client;
  private final long refreshNanos;
  private final Clock clock;

  private PodList pods;
  private String problem = "pod list not fetched yet";
  private long lastAttempt;
  private boolean attempted;
  private final FailureLog failures;

  KubernetesPods(URI uri, String source, Path tokenFile, SSLContext ssl, Duration refresh, Clock clock) {
    this.uri = Objects.requireNonNull(uri, "uri");
    this.source = source;
    this.tokenFile = tokenFile;
    this.refreshNanos = refresh.toNanos();
    this.clock = Objects.requireNonNull(clock, "clock");
    this.failures = FailureLog.create(logger, clock);
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).followRedirects(HttpClient.Redirect.NEVER);
    if (ssl != null) {
      b.sslContext(ssl);
    }
    this.client = b.build();
  }

  /**
   * The pod lookup the configuration asks for, or null when Kubernetes lookups are off: {@code
   * kubernetes.enabled: false}, or left on auto and the agent is not in a cluster (no {@code
   * KUBERNETES_SERVICE_HOST}).
   *
   * @throws IllegalArgumentException when lookups are on but the configuration can't work (no API
   *     server address, no node name)
   */
  public static KubernetesPods create(KubernetesConfig config, Clock clock) {
    return create(config, clock, System::getenv);
  }

  static KubernetesPods create(KubernetesConfig config, Clock clock, Function<String, String> env) {
    boolean inCluster = env.apply("KUBERNETES_SERVICE_HOST") != null;
    boolean enabled = config.enabled() != null ? config.enabled() : inCluster;
    if (!enabled) {
      return null;
    }
    Duration refresh = config.refresh() == null ? Duration.ofSeconds(30) : config.refresh();
    SSLContext ssl = sslContext(config);
    Path token = config.tokenFile() == null ? null : Path.of(config.tokenFile());
    if (config.kubeletUrl() != null) {
      URI uri = URI.create(stripSlash(config.kubeletUrl()) + "/pods");
      return new KubernetesPods(uri, "kubelet " + uri, token, ssl, refresh, clock);
    }
    String api = config.apiServerUrl();
    if (api == null) {
      String host = env.apply("KUBERNETES_SERVICE_HOST");
      if (host == null) {
        throw new IllegalArgumentException(
            "kubernetes.enabled is true but neither kubernetes.kubeletUrl nor kubernetes.apiServerUrl is set"
                + " and KUBERNETES_SERVICE_HOST is not in the environment");
      }
      String port = env.apply("KUBERNETES_SERVICE_PORT");
      api = "https://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + (port == null ? "443" : port);
    }
    String node = config.nodeName() != null ? config.nodeName() : env.apply("NODE_NAME");
    if (node == null || node.isEmpty()) {
      throw new IllegalArgumentException(
          "kubernetes.nodeName is not set and NODE_NAME is not in the environment: set it from the downward API"
              + " (fieldRef spec.nodeName) so only this node's pods are listed");
    }
    URI uri =
        URI.create(
            stripSlash(api) + "/api/v1/pods?fieldSelector="
                + URLEncoder.encode("spec.nodeName=" + node, StandardCharsets.UTF_8));
    return new KubernetesPods(uri, "API server " + stripSlash(api) + " (node " + node + ")", token, ssl, refresh, clock);
  }

  @Override
  public synchronized void refreshIfDue() {
    long now = clock.nanoTime();
    if (attempted && now - lastAttempt < refreshNanos) {
      return;
    }
    attempted = true;
    lastAttempt = now;
    try {
      PodList fresh = fetch();
      pods = fresh;
      problem = null;
      failures.success(source, "Pod list from " + source);
    } catch (IOException | RuntimeException e) {
      if (pods == null) {
        problem = "pod list from " + source + " failed: " + e.getMessage();
      }
      String reason = e instanceof IOException && e.getMessage() != null
          ? e.getMessage() : FailureLog.reason(e);
      if (e instanceof IOException) {
        failures.failure(source, "Pod list from " + source,
            reason + (pods == null ? "" : "; keeping the previous list"));
      } else {
        failures.failure(source, "Pod list from " + source, e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public synchronized PodInfo find(String containerId, String podUid) {
    return pods == null ? null : pods.find(containerId, podUid);
  }

  @Override
  public synchronized String containerName(String containerId) {
    return pods == null ? null : pods.containerName(containerId);
  }

  @Override
  public synchronized String problem() {
    return problem;
  }

  @Override
  public String source() {
    return source;
  }

  private PodList fetch() throws IOException, InterruptedException {
    HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).header("Accept", "application/json").GET();
    String token = readToken();
    if (token != null) {
      req.header("Authorization", "Bearer " + token);
    }
    HttpResponse<InputStream> resp = client.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream in = resp.body()) {
      byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
      if (resp.statusCode() != 200) {
        String hint = resp.statusCode() == 401 || resp.statusCode() == 403 ? rbacHint() : "";
        throw new IOException("HTTP " + resp.statusCode() + hint);
      }
      if (body.length > MAX_BODY_BYTES) {
        throw new IOException("pod list larger than " + MAX_BODY_BYTES + " bytes");
      }
      return PodList.parse(body);
    }
  }

  private String rbacHint() {
    return uri.getPath().endsWith("/pods") && uri.getPath().startsWith("/api/")
        ? " (the service account needs list on pods)"
        : " (the service account needs nodes/proxy, or nodes/pods on Kubernetes 1.33+ with fine-grained kubelet authorization)";
  }

  private String readToken() throws IOException {
    if (tokenFile == null || !Files.isRegularFile(tokenFile)) {
      return null; // outside a cluster, or a kubelet that needs no token
    }
    try {
      return BearerTokenFile.read(tokenFile);
    } catch (CredentialException e) {
      throw new IOException(e.getMessage());
    }
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  /** Trust for the configured CA, everything (insecureSkipVerify), or null for the JVM's defaults. */
  static SSLContext sslContext(KubernetesConfig config) {
    try {
      if (config.insecureSkipVerify()) {
        logger.warning("kubernetes.insecureSkipVerify is on: the pod list's TLS certificate is not verified");
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, new TrustManager[] {new TrustAllManager()}, null);
        return ctx;
      }
      if (config.caFile() == null || !Files.isRegularFile(Path.of(config.caFile()))) {
        return null;
      }
      return PemFiles.trustingOnly(config.caFile(), "kubernetes.caFile");
    } catch (CredentialException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot create the TLS context: " + e.getMessage(), e);
    }
  }
}
