package dev.gputop.config;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Every configuration key (README.md "Configuration"), declared once: its dotted name, {@link
 * ConfigType type}, default, documentation text and where its value sits in {@link AgentConfig}.
 * This one declaration drives {@link ConfigLoader} (which keys each section allows, how each value
 * is read, which keys can be flat overrides), {@code check-config}'s effective configuration
 * ({@link #effective}), the README's configuration table ({@link #markdownTable}, compared with
 * the README by {@code ConfigSchemaTest}) and the per-key tests, which iterate over {@link #keys}.
 *
 * <h2>Adding a key</h2>
 *
 * <ol>
 *   <li>Declare it here with {@link #key} (or {@link ListKey#key} for a key of each list element)
 *       in the position it should have in the file and the table: name, type, default, how to
 *       read it back from the typed configuration, and one line of documentation. Sections
 *       ({@code listener.tls}) need no declaration: they follow from the dotted names. A new list
 *       of mappings is a {@link #list}.
 *   <li>Add the record component that carries it (e.g. to {@link ScrapeConfig}) and pass {@code
 *       v.get(YOUR_KEY)} to it in {@link #build}; checks that involve two keys go there as well,
 *       throwing {@link ConfigException} with {@link ConfigValues#line}.
 *   <li>Regenerate the README table: {@code ./mvnw -B -q -pl otel-config test
 *       -Dtest=ConfigSchemaTest -Dgputop.updateDocs=true} (the test fails while they differ).
 * </ol>
 *
 * Nothing else lists keys: the loader, {@code check-config}, the agent's option parsers and the
 * tests all read this class. Immutable and thread-safe.
 */
public final class ConfigSchema {

  /** Every key and list, top level and inside lists, in declaration order. */
  private static final List<Entry> ENTRIES = new ArrayList<>();

  // ---------------------------------------------------------------- the keys

  public static final Key<AgentConfig, Duration> REFRESH_NORMAL =
      key("refresh.normal", ConfigType.DURATION, Duration.ofSeconds(3), AgentConfig::refreshNormal,
          "how often every receiver refreshes (scrapes each server, samples each GPU); at most"
              + " `inference.window`");
  public static final Key<AgentConfig, String> LISTEN =
      key("listen", ConfigType.LISTEN, "127.0.0.1:9464", AgentConfig::listen,
          "`host:port` of the HTTP listener (`/metrics`, `/api/snapshot`, `/api/history`, `/livez`, `/readyz`, `/healthz`,"
              + " the web page at `/`); `0.0.0.0:9464` for other hosts to scrape, port `0` for any free port, `off` to disable");
  public static final Key<AgentConfig, String> LISTENER_TLS_CERT_FILE =
      key("listener.tls.certFile", ConfigType.STRING, null, "none: plain HTTP",
          c -> c.listener().certFile(),
          "PEM server certificate chain, leaf first; with `keyFile`, the listener serves HTTPS; both files are re-read when they change");
  public static final Key<AgentConfig, String> LISTENER_TLS_KEY_FILE =
      key("listener.tls.keyFile", ConfigType.STRING, null, c -> c.listener().keyFile(),
          "PEM (PKCS#8) private key of `certFile`");
  public static final Key<AgentConfig, String> LISTENER_TLS_CLIENT_CA_FILE =
      key("listener.tls.clientCaFile", ConfigType.STRING, null, c -> c.listener().clientCaFile(),
          "PEM CAs: every client must present a certificate they signed (mutual TLS)");
  public static final Key<AgentConfig, String> LISTENER_TLS_MIN_VERSION =
      key("listener.tls.minVersion", ConfigType.TLS_VERSION, ListenerConfig.DEFAULT_TLS_MIN_VERSION,
          c -> c.listener().tlsMinVersion(), "the lowest TLS version the listener offers (`1.2` or `1.3`; 1.3 is the highest)");
  public static final Key<AgentConfig, List<String>> LISTENER_TLS_CIPHER_SUITES =
      key("listener.tls.cipherSuites", ConfigType.CIPHER_SUITES, ListenerConfig.DEFAULT_CIPHER_SUITES,
          c -> c.listener().cipherSuites(), "the TLS cipher suites the listener offers, by IANA name; the default is"
              + " Mozilla's \"intermediate\" list: forward-secret AEAD suites only (TLS 1.3's, and 1.2's ECDHE/DHE"
              + " with AES-GCM or ChaCha20-Poly1305)");
  public static final Key<AgentConfig, String> LISTENER_AUTH_BEARER_TOKEN_FILE =
      key("listener.auth.bearerTokenFile", ConfigType.STRING, null, c -> c.listener().bearerTokenFile(),
          "a file whose trimmed content clients must send as `Authorization: Bearer`; re-read when it changes");
  public static final Key<AgentConfig, String> LISTENER_AUTH_BASIC_USERS_FILE =
      key("listener.auth.basicUsersFile", ConfigType.STRING, null, c -> c.listener().basicUsersFile(),
          "a file of `user:bcrypt-hash` lines (`htpasswd -nB user`) for HTTP basic authentication; re-read when it changes");
  public static final Key<AgentConfig, List<String>> LISTENER_AUTH_EXEMPT_PATHS =
      key("listener.auth.exemptPaths", ConfigType.PATHS, ListenerConfig.DEFAULT_EXEMPT_PATHS,
          c -> c.listener().exemptPaths(), "paths served without authentication (probes)");
  public static final Key<AgentConfig, Boolean> INFERENCE_ENABLED =
      key("inference.enabled", ConfigType.BOOLEAN, true, c -> c.inference().enabled(),
          "the inference receiver");
  public static final Key<AgentConfig, Duration> INFERENCE_WINDOW =
      key("inference.window", ConfigType.DURATION, Duration.ofMinutes(1), c -> c.inference().window(),
          "how far back rates and percentiles look (PromQL-style: newest scrape vs. oldest in the"
              + " window)");
  public static final Key<AgentConfig, Double> INFERENCE_COST_PER_GPU_HOUR =
      key("inference.costPerGpuHour", ConfigType.NUMBER, null, "none",
          c -> c.inference().costPerGpuHour(),
          "what one GPU costs per hour (a number, currency-free): each server whose GPUs are known"
              + " gets `efficiency.costPerMillionGeneratedTokens`");
  public static final Key<AgentConfig, List<Double>> INFERENCE_QUANTILES =
      key("inference.quantiles", ConfigType.QUANTILES, List.of(0.5, 0.9, 0.99),
          c -> c.inference().quantiles(),
          "the quantiles every latency reports over the window (JSON `p50`, `p95`, `p99_9`;"
              + " the `quantile` label of the latency gauges); the page, `top` and the demo show"
              + " p50, p90 and p99 (N/A for one not listed)");
  public static final Key<AgentConfig, Boolean> DISCOVERY_ENABLED =
      key("inference.discovery.enabled", ConfigType.BOOLEAN, true,
          c -> c.inference().discovery().enabled(),
          "find inference servers among this host's processes");
  public static final Key<AgentConfig, DiscoveryConfig.Scope> DISCOVERY_SCOPE =
      key("inference.discovery.scope", ConfigType.oneOf(DiscoveryConfig.Scope.class),
          DiscoveryConfig.Scope.GPU, c -> c.inference().discovery().scope(),
          "`gpu`: only processes using a GPU (from NVML); `all`: every process (CPU-only llama.cpp,"
              + " hosts without NVML)");
  public static final Key<AgentConfig, String> DISCOVERY_PROC_ROOT =
      key("inference.discovery.procRoot", ConfigType.STRING, "/proc",
          c -> c.inference().discovery().procRoot(),
          "where the host's /proc is mounted (a container with the host's /proc elsewhere)");
  public static final Key<AgentConfig, Duration> SCRAPE_TIMEOUT =
      key("inference.scrape.timeout", ConfigType.DURATION, Duration.ofSeconds(2),
          c -> c.inference().scrape().timeout(),
          "one deadline for a whole scrape cycle, `timeout` after it starts: every server's"
              + " connect, TLS, headers and body (and a wait for a free `concurrency` slot) end by"
              + " it; a deadline, not an idle timeout; keep it below `refresh.normal`");
  public static final Key<AgentConfig, Long> SCRAPE_MAX_BODY_BYTES =
      key("inference.scrape.maxBodyBytes", ConfigType.SIZE, 16L << 20,
          c -> c.inference().scrape().maxBodyBytes(),
          "largest body accepted (after gzip)");
  public static final Key<AgentConfig, Integer> SCRAPE_MAX_LINE_LENGTH =
      key("inference.scrape.maxLineLength", ConfigType.COUNT, 64 << 10,
          c -> c.inference().scrape().maxLineLength(),
          "longest exposition line accepted");
  public static final Key<AgentConfig, Integer> SCRAPE_MAX_SERIES =
      key("inference.scrape.maxSeries", ConfigType.COUNT, 200_000,
          c -> c.inference().scrape().maxSeries(),
          "most samples accepted in one exposition");
  public static final Key<AgentConfig, Integer> SCRAPE_MAX_LABELS =
      key("inference.scrape.maxLabels", ConfigType.COUNT, 64,
          c -> c.inference().scrape().maxLabels(),
          "most labels on one sample");
  public static final Key<AgentConfig, Integer> SCRAPE_CONCURRENCY =
      key("inference.scrape.concurrency", ConfigType.COUNT, 8,
          c -> c.inference().scrape().concurrency(),
          "most scrapes in flight at once");

  public static final Key<AgentConfig, String> ENGINES_DIRECTORY =
      key("inference.engines.directory", ConfigType.STRING, null,
          c -> c.inference().engines().directory(),
          "a directory of engine profile files (`*.yaml`, format in docs/engines/README.md): each"
              + " adds an engine or replaces the built-in profile of the same `engine`");
  public static final Key<AgentConfig, String> ENGINES_PROFILES =
      key("inference.engines.profiles", ConfigType.STRING, null,
          c -> c.inference().engines().profiles(),
          "engine profiles written inline, as a YAML block scalar under this key, several separated"
              + " by `---` lines; like the directory's files, and they win over them");

  public static final ListKey<Endpoint> ENDPOINTS =
      list("inference.endpoints", c -> c.inference().endpoints(),
          "servers scraped whether or not discovery finds them; one that can't be scraped makes the"
              + " inference receiver unhealthy");
  public static final Key<Endpoint, String> ENDPOINT_NAME =
      ENDPOINTS.key("name", ConfigType.STRING, null, "`host:port` of the URL", Endpoint::name,
          "the server's name in every output (`server` attribute); unique");
  public static final Key<Endpoint, URI> ENDPOINT_URL =
      ENDPOINTS.required("url", ConfigType.HTTP_URL, Endpoint::url,
          "the metrics URL, `http` or `https`");
  public static final Key<Endpoint, Map<String, String>> ENDPOINT_HEADERS =
      ENDPOINTS.key("headers", ConfigType.secrets("header"), Map.of(), null, Endpoint::headers,
          "extra request headers; values may be `${env:NAME}`; never logged or printed");
  public static final Key<Endpoint, String> ENDPOINT_BEARER_TOKEN_FILE =
      ENDPOINTS.key("bearerTokenFile", ConfigType.STRING, null, null,
          Endpoint::bearerTokenFile,
          "a file whose trimmed content is sent as `Authorization: Bearer`, re-read on each scrape");
  public static final Key<Endpoint, String> ENDPOINT_TLS_CA_FILE =
      ENDPOINTS.key("tls.caFile", ConfigType.STRING, null, "JVM trust store",
          e -> e.tls().caFile(), "PEM CA certificates to trust");
  public static final Key<Endpoint, String> ENDPOINT_TLS_CERT_FILE =
      ENDPOINTS.key("tls.certFile", ConfigType.STRING, null, null, e -> e.tls().certFile(),
          "PEM client certificate (mutual TLS), with `keyFile`");
  public static final Key<Endpoint, String> ENDPOINT_TLS_KEY_FILE =
      ENDPOINTS.key("tls.keyFile", ConfigType.STRING, null, null, e -> e.tls().keyFile(),
          "PEM (PKCS#8) private key of the client certificate");
  public static final Key<Endpoint, Boolean> ENDPOINT_TLS_INSECURE_SKIP_VERIFY =
      ENDPOINTS.key("tls.insecureSkipVerify", ConfigType.BOOLEAN, false, null,
          e -> e.tls().insecureSkipVerify(),
          "accept any server certificate (labs only; logged as a warning)");

  public static final Key<Endpoint, List<Integer>> ENDPOINT_GPUS =
      ENDPOINTS.key("gpus", ConfigType.GPU_INDICES, List.of(), "discovered", Endpoint::gpus,
          "NVML indices of the GPUs the server runs on, e.g. `[0, 1]`, for a server discovery can't"
              + " map to its GPU processes (a container without `hostPID`):"
              + " its `efficiency` (power, joules per token, tokens/s per GPU)");

  public static final Key<Endpoint, Duration> ENDPOINT_SLO_TTFT =
      ENDPOINTS.key("slo.ttft", ConfigType.DURATION, null, "inherited", e -> e.slo().ttft(),
          "this server's TTFT target, stronger than `inference.slo` and its overrides");
  public static final Key<Endpoint, Duration> ENDPOINT_SLO_ITL =
      ENDPOINTS.key("slo.itl", ConfigType.DURATION, null, "inherited", e -> e.slo().itl(),
          "this server's ITL target");
  public static final Key<Endpoint, Duration> ENDPOINT_SLO_E2E =
      ENDPOINTS.key("slo.e2e", ConfigType.DURATION, null, "inherited", e -> e.slo().e2e(),
          "this server's end-to-end latency target");
  public static final Key<Endpoint, Duration> ENDPOINT_SLO_QUEUE =
      ENDPOINTS.key("slo.queue", ConfigType.DURATION, null, "inherited", e -> e.slo().queue(),
          "this server's queue-time target");
  public static final Key<Endpoint, Double> ENDPOINT_SLO_OBJECTIVE =
      ENDPOINTS.key("slo.objective", ConfigType.FRACTION, null, "inherited",
          e -> e.slo().objective(), "this server's objective");
  public static final Key<Endpoint, Integer> ENDPOINT_SLO_MIN_REQUESTS =
      ENDPOINTS.key("slo.minRequests", ConfigType.COUNT, null, "inherited",
          e -> e.slo().minRequests(), "this server's `minRequests`");

  public static final Key<AgentConfig, Duration> SLO_TTFT =
      key("inference.slo.ttft", ConfigType.DURATION, null, c -> c.inference().slo().base().ttft(),
          "time-to-first-token target: `slo.ttft.attainment` is the fraction of the window's requests"
              + " at or under it (docs/inference.md); none: no TTFT SLO");
  public static final Key<AgentConfig, Duration> SLO_ITL =
      key("inference.slo.itl", ConfigType.DURATION, null, c -> c.inference().slo().base().itl(),
          "inter-token-latency target");
  public static final Key<AgentConfig, Duration> SLO_E2E =
      key("inference.slo.e2e", ConfigType.DURATION, null, c -> c.inference().slo().base().e2e(),
          "end-to-end latency target");
  public static final Key<AgentConfig, Duration> SLO_QUEUE =
      key("inference.slo.queue", ConfigType.DURATION, null, c -> c.inference().slo().base().queue(),
          "queue-time target");
  public static final Key<AgentConfig, Double> SLO_OBJECTIVE =
      key("inference.slo.objective", ConfigType.FRACTION, SloTargets.DEFAULT_OBJECTIVE,
          c -> c.inference().slo().base().objective(),
          "fraction of requests that must meet each target, strictly between 0 and 1; burn rate ="
              + " (1 − attainment) / (1 − objective)");
  public static final Key<AgentConfig, Integer> SLO_MIN_REQUESTS =
      key("inference.slo.minRequests", ConfigType.COUNT, SloTargets.DEFAULT_MIN_REQUESTS,
          c -> c.inference().slo().base().minRequests(),
          "fewest requests in the window for the `slo_breach` alert to fire");
  public static final ListKey<SloOverride> SLO_OVERRIDES =
      list("inference.slo.overrides", c -> c.inference().slo().overrides(),
          "targets for the servers or models that `match` selects; every matching override"
              + " applies in order (a later one wins for the keys it sets), then the endpoint's own"
              + " `slo`");
  public static final Key<SloOverride, String> SLO_OVERRIDE_ENGINE =
      SLO_OVERRIDES.key("match.engine", ConfigType.STRING, null, "any", SloOverride::engine,
          "glob on the engine (`vllm`, `sglang`, ...): `*` any characters, `?` one");
  public static final Key<SloOverride, String> SLO_OVERRIDE_MODEL =
      SLO_OVERRIDES.key("match.model", ConfigType.STRING, null, "any", SloOverride::model,
          "glob on the served model (`llama-*`); a server with several models matches it per model"
              + " only");
  public static final Key<SloOverride, String> SLO_OVERRIDE_SERVER =
      SLO_OVERRIDES.key("match.server", ConfigType.STRING, null, "any", SloOverride::server,
          "glob on the server's name");
  public static final Key<SloOverride, Duration> SLO_OVERRIDE_TTFT =
      SLO_OVERRIDES.key("ttft", ConfigType.DURATION, null, "inherited", o -> o.targets().ttft(),
          "TTFT target for the matched servers");
  public static final Key<SloOverride, Duration> SLO_OVERRIDE_ITL =
      SLO_OVERRIDES.key("itl", ConfigType.DURATION, null, "inherited", o -> o.targets().itl(),
          "ITL target");
  public static final Key<SloOverride, Duration> SLO_OVERRIDE_E2E =
      SLO_OVERRIDES.key("e2e", ConfigType.DURATION, null, "inherited", o -> o.targets().e2e(),
          "end-to-end latency target");
  public static final Key<SloOverride, Duration> SLO_OVERRIDE_QUEUE =
      SLO_OVERRIDES.key("queue", ConfigType.DURATION, null, "inherited", o -> o.targets().queue(),
          "queue-time target");
  public static final Key<SloOverride, Double> SLO_OVERRIDE_OBJECTIVE =
      SLO_OVERRIDES.key("objective", ConfigType.FRACTION, null, "inherited",
          o -> o.targets().objective(), "objective");
  public static final Key<SloOverride, Integer> SLO_OVERRIDE_MIN_REQUESTS =
      SLO_OVERRIDES.key("minRequests", ConfigType.COUNT, null, "inherited",
          o -> o.targets().minRequests(), "`minRequests`");

  public static final Key<AgentConfig, Boolean> NVML_ENABLED =
      key("nvml.enabled", ConfigType.BOOLEAN, true, c -> c.nvml().enabled(), "the NVML receiver");
  public static final Key<AgentConfig, String> NVML_LIBRARY =
      key("nvml.library", ConfigType.STRING, null, "`libnvidia-ml.so.1` (`nvml.dll` on Windows)",
          c -> c.nvml().library(), "path or name of the NVML library");

  public static final Key<AgentConfig, Boolean> KUBERNETES_ENABLED =
      key("kubernetes.enabled", ConfigType.AUTO_BOOLEAN, null, "`auto`",
          c -> c.kubernetes().enabled(),
          "pod metadata for containerized servers (reached at their pod IP): `auto` when running in"
              + " a cluster, `true`, `false`");
  public static final Key<AgentConfig, String> KUBERNETES_NODE_NAME =
      key("kubernetes.nodeName", ConfigType.STRING, null, "`$NODE_NAME`",
          c -> c.kubernetes().nodeName(),
          "this node's name (set it with the downward API)");
  public static final Key<AgentConfig, String> KUBERNETES_KUBELET_URL =
      key("kubernetes.kubeletUrl", ConfigType.STRING, null, null, c -> c.kubernetes().kubeletUrl(),
          "e.g. `https://127.0.0.1:10250`: list pods from the kubelet's `/pods` instead of the API"
              + " server");
  public static final Key<AgentConfig, String> KUBERNETES_API_SERVER_URL =
      key("kubernetes.apiServerUrl", ConfigType.STRING, null,
          "from `KUBERNETES_SERVICE_HOST`/`_PORT`", c -> c.kubernetes().apiServerUrl(),
          "the API server");
  public static final Key<AgentConfig, String> KUBERNETES_TOKEN_FILE =
      key("kubernetes.tokenFile", ConfigType.STRING,
          KubernetesConfig.SERVICE_ACCOUNT_DIR + "/token", "service-account token",
          c -> c.kubernetes().tokenFile(), "bearer token for the kubelet or API server");
  public static final Key<AgentConfig, String> KUBERNETES_CA_FILE =
      key("kubernetes.caFile", ConfigType.STRING, KubernetesConfig.SERVICE_ACCOUNT_DIR + "/ca.crt",
          "service-account CA", c -> c.kubernetes().caFile(), "CA of the kubelet or API server");
  public static final Key<AgentConfig, Boolean> KUBERNETES_INSECURE_SKIP_VERIFY =
      key("kubernetes.insecureSkipVerify", ConfigType.BOOLEAN, false,
          c -> c.kubernetes().insecureSkipVerify(),
          "accept the kubelet's self-signed certificate");
  public static final Key<AgentConfig, Duration> KUBERNETES_REFRESH =
      key("kubernetes.refresh", ConfigType.DURATION, Duration.ofSeconds(30),
          c -> c.kubernetes().refresh(), "how often the pod list is fetched");

  // ---------------------------------------------------------------- building the records

  /**
   * The typed configuration from values read (or defaulted) for every key. The one place that
   * knows which record component carries which key, and the checks that involve more than one.
   */
  static AgentConfig build(ConfigValues v) {
    InferenceConfig inference =
        new InferenceConfig(
            v.get(INFERENCE_ENABLED),
            v.get(INFERENCE_WINDOW),
            new DiscoveryConfig(v.get(DISCOVERY_ENABLED), v.get(DISCOVERY_SCOPE),
                v.get(DISCOVERY_PROC_ROOT)),
            endpoints(v.list(ENDPOINTS)),
            new ScrapeConfig(
                v.get(SCRAPE_TIMEOUT),
                v.get(SCRAPE_MAX_BODY_BYTES),
                v.get(SCRAPE_MAX_LINE_LENGTH),
                v.get(SCRAPE_MAX_SERIES),
                v.get(SCRAPE_MAX_LABELS),
                v.get(SCRAPE_CONCURRENCY)),
            slo(v),
            new EnginesConfig(v.get(ENGINES_DIRECTORY), v.get(ENGINES_PROFILES),
                v.line(ENGINES_PROFILES.path())),
            v.get(INFERENCE_COST_PER_GPU_HOUR),
            v.get(INFERENCE_QUANTILES));
    NvmlConfig nvml = new NvmlConfig(v.get(NVML_ENABLED), v.get(NVML_LIBRARY));
    KubernetesConfig kubernetes =
        new KubernetesConfig(
            v.get(KUBERNETES_ENABLED),
            v.get(KUBERNETES_NODE_NAME),
            v.get(KUBERNETES_KUBELET_URL),
            v.get(KUBERNETES_API_SERVER_URL),
            v.get(KUBERNETES_TOKEN_FILE),
            v.get(KUBERNETES_CA_FILE),
            v.get(KUBERNETES_INSECURE_SKIP_VERIFY),
            v.get(KUBERNETES_REFRESH));
    Duration refresh = v.get(REFRESH_NORMAL);
    if (refresh.compareTo(inference.window()) > 0) {
      throw new ConfigException(REFRESH_NORMAL.name(), v.line(REFRESH_NORMAL.path()),
          "must not be longer than inference.window (" + ConfigType.formatDuration(inference.window()) + ")");
    }
    return new AgentConfig(refresh, v.get(LISTEN), inference, nvml, kubernetes, listener(v));
  }

  private static ListenerConfig listener(ConfigValues v) {
    // Checks across these keys are in ListenerConfig.validate (run by check-config and the
    // listener): each key alone is a valid configuration in the per-key tests.
    ListenerConfig l = new ListenerConfig(v.get(LISTENER_TLS_CERT_FILE), v.get(LISTENER_TLS_KEY_FILE),
        v.get(LISTENER_TLS_CLIENT_CA_FILE), v.get(LISTENER_AUTH_BEARER_TOKEN_FILE),
        v.get(LISTENER_AUTH_BASIC_USERS_FILE), v.get(LISTENER_AUTH_EXEMPT_PATHS), v.get(LISTENER_TLS_MIN_VERSION),
        v.get(LISTENER_TLS_CIPHER_SUITES));
    return l;
  }

  private static List<Endpoint> endpoints(List<ConfigValues> elements) {
    List<Endpoint> endpoints = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (ConfigValues e : elements) {
      URI url = e.get(ENDPOINT_URL);
      String name = e.get(ENDPOINT_NAME);
      if (name == null || name.isBlank()) {
        boolean https = "https".equalsIgnoreCase(url.getScheme());
        name = url.getHost() + ":" + (url.getPort() > 0 ? url.getPort() : (https ? 443 : 80));
      }
      name = name.trim();
      if (!names.add(name)) {
        throw new ConfigException(e.name(ENDPOINT_NAME.path()), e.line(""),
            "duplicate endpoint name '" + name + "'");
      }
      TlsConfig tls;
      try {
        tls = new TlsConfig(e.get(ENDPOINT_TLS_CA_FILE), e.get(ENDPOINT_TLS_CERT_FILE),
            e.get(ENDPOINT_TLS_KEY_FILE), e.get(ENDPOINT_TLS_INSECURE_SKIP_VERIFY));
      } catch (IllegalArgumentException ex) {
        throw new ConfigException(e.name("tls"), e.line("tls"), ex.getMessage());
      }
      SloTargets slo = new SloTargets(e.get(ENDPOINT_SLO_TTFT), e.get(ENDPOINT_SLO_ITL),
          e.get(ENDPOINT_SLO_E2E), e.get(ENDPOINT_SLO_QUEUE), e.get(ENDPOINT_SLO_OBJECTIVE),
          e.get(ENDPOINT_SLO_MIN_REQUESTS));
      endpoints.add(new Endpoint(name, url, e.get(ENDPOINT_HEADERS),
          e.get(ENDPOINT_BEARER_TOKEN_FILE), tls, slo, e.get(ENDPOINT_GPUS)));
    }
    return endpoints;
  }

  private static SloConfig slo(ConfigValues v) {
    SloTargets base = new SloTargets(v.get(SLO_TTFT), v.get(SLO_ITL), v.get(SLO_E2E),
        v.get(SLO_QUEUE), v.get(SLO_OBJECTIVE), v.get(SLO_MIN_REQUESTS));
    List<SloOverride> overrides = new ArrayList<>();
    for (ConfigValues o : v.list(SLO_OVERRIDES)) {
      SloTargets t = new SloTargets(o.get(SLO_OVERRIDE_TTFT), o.get(SLO_OVERRIDE_ITL),
          o.get(SLO_OVERRIDE_E2E), o.get(SLO_OVERRIDE_QUEUE), o.get(SLO_OVERRIDE_OBJECTIVE),
          o.get(SLO_OVERRIDE_MIN_REQUESTS));
      overrides.add(new SloOverride(o.get(SLO_OVERRIDE_SERVER), o.get(SLO_OVERRIDE_ENGINE),
          o.get(SLO_OVERRIDE_MODEL), t));
    }
    return new SloConfig(base, overrides);
  }

  private static final class Defaults {
    static final AgentConfig CONFIG = build(ConfigValues.defaults());
  }

  /** The configuration with every key at its default (what an empty file gives). */
  static AgentConfig defaults() {
    return Defaults.CONFIG;
  }

  // ---------------------------------------------------------------- the schema's other outputs

  /** Every key, top-level and of list elements, in declaration (file and table) order. */
  public static List<Key<?, ?>> keys() {
    List<Key<?, ?>> keys = new ArrayList<>();
    for (Entry e : ENTRIES) {
      if (e instanceof Key) {
        keys.add((Key<?, ?>) e);
      }
    }
    return Collections.unmodifiableList(keys);
  }

  /** The top-level keys and the lists, in declaration order: the root mapping's shape. */
  static List<Entry> topLevel() {
    List<Entry> out = new ArrayList<>();
    for (Entry e : ENTRIES) {
      if (e instanceof ListKey || ((Key<?, ?>) e).list == null) {
        out.add(e);
      }
    }
    return out;
  }

  /** Every list of mappings, such as {@link #ENDPOINTS}. */
  public static List<ListKey<?>> lists() {
    List<ListKey<?>> lists = new ArrayList<>();
    for (Entry e : ENTRIES) {
      if (e instanceof ListKey) {
        lists.add((ListKey<?>) e);
      }
    }
    return Collections.unmodifiableList(lists);
  }

  /** The keys that can be given as flat overrides: every top-level scalar, in table order. */
  static Set<String> overridableKeys() {
    Set<String> out = new LinkedHashSet<>();
    for (Key<?, ?> k : keys()) {
      if (k.list == null && !(k.type instanceof ConfigType.SecretMap)) {
        out.add(k.path);
      }
    }
    return Collections.unmodifiableSet(out);
  }

  /**
   * The configuration as a tree in the file's own key names, every key present (defaults
   * included, null where a key has no value), secrets redacted: what {@code check-config} prints.
   */
  public static Map<String, Object> effective(AgentConfig config) {
    Map<String, Object> root = new LinkedHashMap<>();
    for (Entry e : ENTRIES) {
      if (e instanceof Key && ((Key<?, ?>) e).list == null) {
        @SuppressWarnings("unchecked")
        Key<AgentConfig, ?> k = (Key<AgentConfig, ?>) e;
        put(root, k.path, k.written(config));
      } else if (e instanceof ListKey) {
        ListKey<?> l = (ListKey<?>) e;
        put(root, l.path, l.written(config));
      }
    }
    return root;
  }

  /** The README's configuration table (Markdown), one row per key and list. */
  public static String markdownTable() {
    StringBuilder out = new StringBuilder("| key | default | meaning |\n|---|---|---|\n");
    for (Entry e : ENTRIES) {
      out.append("| `").append(e.name()).append("` | ").append(e.docDefault()).append(" | ")
          .append(e.doc()).append(" |\n");
    }
    return out.toString();
  }

  @SuppressWarnings("unchecked")
  private static void put(Map<String, Object> root, String path, Object value) {
    String[] parts = path.split("\\.");
    Map<String, Object> cur = root;
    for (int i = 0; i < parts.length - 1; i++) {
      cur = (Map<String, Object>) cur.computeIfAbsent(parts[i], p -> new LinkedHashMap<>());
    }
    cur.put(parts[parts.length - 1], value);
  }

  // ---------------------------------------------------------------- declarations

  private static <T> Key<AgentConfig, T> key(String path, ConfigType<T> type, T defaultValue,
      Function<AgentConfig, T> value, String doc) {
    return key(path, type, defaultValue, null, value, doc);
  }

  private static <T> Key<AgentConfig, T> key(String path, ConfigType<T> type, T defaultValue,
      String docDefault, Function<AgentConfig, T> value, String doc) {
    Key<AgentConfig, T> k = new Key<>(null, path, type, defaultValue, docDefault, false, value, doc);
    ENTRIES.add(k);
    return k;
  }

  private static <E> ListKey<E> list(String path, Function<AgentConfig, List<E>> value, String doc) {
    ListKey<E> l = new ListKey<>(path, value, doc);
    ENTRIES.add(l);
    return l;
  }

  private ConfigSchema() {}

  /** A key or a list: one row of the configuration table. */
  interface Entry {
    /** The dotted name as the table shows it, {@code inference.endpoints[].url} in a list. */
    String name();

    /** The default as the table shows it (Markdown). */
    String docDefault();

    /** What the key does (Markdown). */
    String doc();
  }

  /**
   * One configuration key.
   *
   * @param <O> the record it is read back from: {@link AgentConfig}, or a list's element type
   * @param <T> its value's type
   */
  public static final class Key<O, T> implements Entry {
    final ListKey<O> list;
    final String path;
    final ConfigType<T> type;
    final T defaultValue;
    final String docDefault;
    final boolean required;
    final Function<O, T> value;
    final String doc;

    Key(ListKey<O> list, String path, ConfigType<T> type, T defaultValue, String docDefault,
        boolean required, Function<O, T> value, String doc) {
      this.list = list;
      this.path = Objects.requireNonNull(path);
      this.type = Objects.requireNonNull(type);
      this.defaultValue = defaultValue;
      this.docDefault = docDefault;
      this.required = required;
      this.value = Objects.requireNonNull(value);
      this.doc = Objects.requireNonNull(doc);
    }

    /** The dotted path, relative to the list element for a key of a list. */
    public String path() {
      return path;
    }

    /** The list this key belongs to, or null for a top-level key. */
    public ListKey<O> list() {
      return list;
    }

    public ConfigType<T> type() {
      return type;
    }

    /** The value when the key is absent; null when it has none. */
    public T defaultValue() {
      return defaultValue;
    }

    /** Whether the key must be given (its list element is invalid without it). */
    public boolean required() {
      return required;
    }

    /** The key's value in a typed configuration (or list element). */
    public T valueIn(O owner) {
      return value.apply(owner);
    }

    /** The value as {@code check-config} prints it. */
    Object written(O owner) {
      return type.write(value.apply(owner));
    }

    @Override
    public String name() {
      return list == null ? path : list.path + "[]." + path;
    }

    @Override
    public String docDefault() {
      if (docDefault != null) {
        return docDefault;
      }
      if (required) {
        return "required";
      }
      boolean none = defaultValue == null
          || (defaultValue instanceof Map && ((Map<?, ?>) defaultValue).isEmpty());
      return none ? "none" : "`" + type.doc(defaultValue) + "`";
    }

    @Override
    public String doc() {
      return doc;
    }

    @Override
    public String toString() {
      return name();
    }
  }

  /**
   * A list of mappings, such as {@code inference.endpoints}; each element has its own keys.
   *
   * @param <E> the record one element becomes
   */
  public static final class ListKey<E> implements Entry {
    final String path;
    final Function<AgentConfig, List<E>> value;
    final String doc;
    final List<Key<E, ?>> keys = new ArrayList<>();

    ListKey(String path, Function<AgentConfig, List<E>> value, String doc) {
      this.path = path;
      this.value = value;
      this.doc = doc;
    }

    /** Declares an optional key of each element ({@code docDefault} null derives it). */
    <T> Key<E, T> key(String path, ConfigType<T> type, T defaultValue, String docDefault,
        Function<E, T> value, String doc) {
      Key<E, T> k = new Key<>(this, path, type, defaultValue, docDefault, false, value, doc);
      keys.add(k);
      ENTRIES.add(k);
      return k;
    }

    /** Declares a key every element must have. */
    <T> Key<E, T> required(String path, ConfigType<T> type, Function<E, T> value, String doc) {
      Key<E, T> k = new Key<>(this, path, type, null, null, true, value, doc);
      keys.add(k);
      ENTRIES.add(k);
      return k;
    }

    /** The list's dotted path. */
    public String path() {
      return path;
    }

    /** The keys of one element, in declaration order. */
    public List<Key<E, ?>> keys() {
      return Collections.unmodifiableList(keys);
    }

    List<Object> written(AgentConfig config) {
      List<Object> out = new ArrayList<>();
      for (E element : value.apply(config)) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Key<E, ?> k : keys) {
          put(m, k.path, k.written(element));
        }
        out.add(m);
      }
      return out;
    }

    @Override
    public String name() {
      return path + "[]";
    }

    @Override
    public String docDefault() {
      return "none";
    }

    @Override
    public String doc() {
      return doc;
    }
  }
}
