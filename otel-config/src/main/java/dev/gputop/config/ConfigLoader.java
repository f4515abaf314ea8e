package dev.gputop.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the agent's YAML configuration (SPEC.md section 6) into an {@link AgentConfig}.
 *
 * <p>Every key has a default, so an empty file (or none) is valid. Unknown keys, wrong types and
 * invalid values throw {@link ConfigException} naming the dotted key and its line. Flat overrides
 * ({@code refresh.normal=5s}, from system properties or the OpenTelemetry Java agent's
 * configuration) are applied on top of the file and reported with line 0.
 *
 * <p>Header values may reference the environment as {@code ${env:NAME}}, so secrets need not be
 * written into the file. Stateless and thread-safe.
 */
public final class ConfigLoader {

  private static final YAMLFactory YAML = new YAMLFactory();
  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");
  private static final Pattern ENV_REF = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)}");

  /** The keys that may be given as flat overrides (scalars only). */
  public static final Set<String> SCALAR_KEYS =
      Set.of(
          "refresh.normal",
          "listen",
          "inference.enabled",
          "inference.window",
          "inference.discovery.enabled",
          "inference.discovery.scope",
          "inference.discovery.procRoot",
          "inference.scrape.timeout",
          "inference.scrape.maxBodyBytes",
          "inference.scrape.maxLineLength",
          "inference.scrape.maxSeries",
          "inference.scrape.maxLabels",
          "inference.scrape.concurrency",
          "nvml.enabled",
          "nvml.library",
          "kubernetes.enabled",
          "kubernetes.nodeName",
          "kubernetes.kubeletUrl",
          "kubernetes.apiServerUrl",
          "kubernetes.tokenFile",
          "kubernetes.caFile",
          "kubernetes.insecureSkipVerify",
          "kubernetes.refresh");

  private final Function<String, String> environment;

  /** A loader that resolves {@code ${env:NAME}} from the process environment. */
  public ConfigLoader() {
    this(System::getenv);
  }

  /** A loader with an explicit environment, for tests. */
  public ConfigLoader(Function<String, String> environment) {
    this.environment = environment;
  }

  /** Loads a file; throws {@link UncheckedIOException} when it can't be read. */
  public AgentConfig load(Path file) {
    return load(file, Map.of());
  }

  /** Loads a file (or only defaults when {@code file} is null) and applies flat overrides. */
  public AgentConfig load(Path file, Map<String, String> overrides) {
    String text;
    try {
      text = file == null ? "" : Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("can't read configuration file " + file + ": " + e, e);
    }
    return parse(text, overrides);
  }

  /** Parses YAML text and applies flat overrides. */
  public AgentConfig parse(String yaml, Map<String, String> overrides) {
    Node root = readTree(yaml);
    if (root == null) {
      root = Node.map(1);
    }
    if (!(root.value instanceof Map)) {
      throw new ConfigException("(root)", root.line, "expected a mapping of keys");
    }
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      applyOverride(root, e.getKey(), e.getValue());
    }
    return build(root);
  }

  // ---------------------------------------------------------------- tree with line numbers

  /** A YAML value with the line it started on: a Map, a List, a String or null. */
  private static final class Node {
    final Object value;
    final int line;

    Node(Object value, int line) {
      this.value = value;
      this.line = line;
    }

    static Node map(int line) {
      return new Node(new LinkedHashMap<String, Node>(), line);
    }

    @SuppressWarnings("unchecked")
    Map<String, Node> asMap() {
      return (Map<String, Node>) value;
    }

    @SuppressWarnings("unchecked")
    List<Node> asList() {
      return (List<Node>) value;
    }
  }

  private static Node readTree(String yaml) {
    try (JsonParser p = YAML.createParser(yaml)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        return null;
      }
      return readValue(p, t, "(root)");
    } catch (JsonProcessingException e) {
      JsonLocation loc = e.getLocation();
      int line = loc == null ? 0 : loc.getLineNr();
      throw new ConfigException("(syntax)", line, "not valid YAML: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Node readValue(JsonParser p, JsonToken t, String key) throws IOException {
    int line = p.currentTokenLocation().getLineNr();
    switch (t) {
      case START_OBJECT:
        {
          Map<String, Node> map = new LinkedHashMap<>();
          while ((t = p.nextToken()) != JsonToken.END_OBJECT) {
            String name = p.currentName();
            int keyLine = p.currentTokenLocation().getLineNr();
            String child = key.equals("(root)") ? name : key + "." + name;
            if (map.containsKey(name)) {
              throw new ConfigException(child, keyLine, "given twice");
            }
            Node value = readValue(p, p.nextToken(), child);
            map.put(name, new Node(value.value, keyLine));
          }
          return new Node(map, line);
        }
      case START_ARRAY:
        {
          List<Node> list = new ArrayList<>();
          int i = 0;
          while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            list.add(readValue(p, t, key + "[" + i++ + "]"));
          }
          return new Node(list, line);
        }
      case VALUE_NULL:
        return new Node(null, line);
      default:
        return new Node(p.getText(), line);
    }
  }

  private static void applyOverride(Node root, String key, String value) {
    if (!SCALAR_KEYS.contains(key)) {
      throw new ConfigException(key, 0, "unknown key (override); known keys: " + SCALAR_KEYS);
    }
    String[] parts = key.split("\\.");
    Node cur = root;
    for (int i = 0; i < parts.length - 1; i++) {
      Node next = cur.asMap().get(parts[i]);
      if (next == null || !(next.value instanceof Map)) {
        next = Node.map(0);
        cur.asMap().put(parts[i], next);
      }
      cur = next;
    }
    cur.asMap().put(parts[parts.length - 1], new Node(value, 0));
  }

  // ---------------------------------------------------------------- typed building

  private AgentConfig build(Node root) {
    Map<String, Node> top = section(root, "(root)", Set.of("refresh", "listen", "inference", "nvml", "kubernetes"));
    Map<String, Node> refresh = section(top.get("refresh"), "refresh", Set.of("normal"));
    Duration refreshNormal = duration(refresh.get("normal"), "refresh.normal", AgentConfig.DEFAULT_REFRESH);
    String listen = string(top.get("listen"), "listen", AgentConfig.DEFAULT_LISTEN);
    validateListen(listen, top.get("listen"));

    InferenceConfig inference = inference(top.get("inference"));
    NvmlConfig nvml = nvml(top.get("nvml"));
    KubernetesConfig kubernetes = kubernetes(top.get("kubernetes"));
    if (refreshNormal.compareTo(inference.window()) > 0) {
      Node n = refresh.get("normal");
      throw new ConfigException("refresh.normal", n == null ? 0 : n.line,
          "must not be longer than inference.window (" + inference.window() + ")");
    }
    return new AgentConfig(refreshNormal, listen, inference, nvml, kubernetes);
  }

  private InferenceConfig inference(Node node) {
    InferenceConfig d = InferenceConfig.defaults();
    Map<String, Node> m = section(node, "inference", Set.of("enabled", "window", "discovery", "endpoints", "scrape"));
    boolean enabled = bool(m.get("enabled"), "inference.enabled", d.enabled());
    Duration window = duration(m.get("window"), "inference.window", d.window());

    DiscoveryConfig dd = DiscoveryConfig.defaults();
    Map<String, Node> disc = section(m.get("discovery"), "inference.discovery", Set.of("enabled", "scope", "procRoot"));
    boolean discEnabled = bool(disc.get("enabled"), "inference.discovery.enabled", dd.enabled());
    String scopeText = string(disc.get("scope"), "inference.discovery.scope", "gpu");
    DiscoveryConfig.Scope scope;
    switch (scopeText.toLowerCase(Locale.ROOT)) {
      case "gpu":
        scope = DiscoveryConfig.Scope.GPU;
        break;
      case "all":
        scope = DiscoveryConfig.Scope.ALL;
        break;
      default:
        throw new ConfigException("inference.discovery.scope", disc.get("scope").line,
            "must be 'gpu' or 'all', not '" + scopeText + "'");
    }
    String procRoot = string(disc.get("procRoot"), "inference.discovery.procRoot", dd.procRoot());

    ScrapeConfig sd = ScrapeConfig.defaults();
    Map<String, Node> s = section(m.get("scrape"), "inference.scrape",
        Set.of("timeout", "maxBodyBytes", "maxLineLength", "maxSeries", "maxLabels", "concurrency"));
    ScrapeConfig scrape = new ScrapeConfig(
        duration(s.get("timeout"), "inference.scrape.timeout", sd.timeout()),
        positiveLong(s.get("maxBodyBytes"), "inference.scrape.maxBodyBytes", sd.maxBodyBytes()),
        (int) positiveLong(s.get("maxLineLength"), "inference.scrape.maxLineLength", sd.maxLineLength()),
        (int) positiveLong(s.get("maxSeries"), "inference.scrape.maxSeries", sd.maxSeries()),
        (int) positiveLong(s.get("maxLabels"), "inference.scrape.maxLabels", sd.maxLabels()),
        (int) positiveLong(s.get("concurrency"), "inference.scrape.concurrency", sd.concurrency()));

    List<EndpointConfig> endpoints = new ArrayList<>();
    Node eps = m.get("endpoints");
    if (eps != null && eps.value != null) {
      if (!(eps.value instanceof List)) {
        throw new ConfigException("inference.endpoints", eps.line, "expected a list of endpoints");
      }
      Set<String> names = new java.util.HashSet<>();
      List<Node> list = eps.asList();
      for (int i = 0; i < list.size(); i++) {
        EndpointConfig ep = endpoint(list.get(i), "inference.endpoints[" + i + "]");
        if (!names.add(ep.name())) {
          throw new ConfigException("inference.endpoints[" + i + "].name", list.get(i).line,
              "duplicate endpoint name '" + ep.name() + "'");
        }
        endpoints.add(ep);
      }
    }
    return new InferenceConfig(enabled, window, new DiscoveryConfig(discEnabled, scope, procRoot), endpoints, scrape);
  }

  private EndpointConfig endpoint(Node node, String key) {
    Map<String, Node> m = section(node, key, Set.of("name", "url", "headers", "bearerTokenFile", "tls"));
    Node urlNode = m.get("url");
    String urlText = string(urlNode, key + ".url", null);
    if (urlText == null || urlText.isBlank()) {
      throw new ConfigException(key + ".url", node.line, "is required");
    }
    URI url;
    try {
      url = new URI(urlText.trim());
    } catch (URISyntaxException e) {
      throw new ConfigException(key + ".url", urlNode.line, "not a valid URL: " + e.getMessage());
    }
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new ConfigException(key + ".url", urlNode.line, "must be an http or https URL, not '" + urlText + "'");
    }
    if (url.getHost() == null) {
      throw new ConfigException(key + ".url", urlNode.line, "has no host: '" + urlText + "'");
    }
    String name = string(m.get("name"), key + ".name", null);
    if (name == null || name.isBlank()) {
      name = url.getHost() + ":" + (url.getPort() > 0 ? url.getPort() : (scheme.equals("https") ? 443 : 80));
    }
    Map<String, String> headers = new LinkedHashMap<>();
    Node h = m.get("headers");
    if (h != null && h.value != null) {
      if (!(h.value instanceof Map)) {
        throw new ConfigException(key + ".headers", h.line, "expected a mapping of header names to values");
      }
      for (Map.Entry<String, Node> e : h.asMap().entrySet()) {
        String hk = key + ".headers." + e.getKey();
        if (!(e.getValue().value instanceof String)) {
          throw new ConfigException(hk, e.getValue().line, "expected a string value");
        }
        headers.put(e.getKey(), resolveEnv((String) e.getValue().value, hk, e.getValue().line));
      }
    }
    String tokenFile = string(m.get("bearerTokenFile"), key + ".bearerTokenFile", null);
    Map<String, Node> t = section(m.get("tls"), key + ".tls", Set.of("caFile", "certFile", "keyFile", "insecureSkipVerify"));
    TlsConfig tls;
    try {
      tls = new TlsConfig(
          string(t.get("caFile"), key + ".tls.caFile", null),
          string(t.get("certFile"), key + ".tls.certFile", null),
          string(t.get("keyFile"), key + ".tls.keyFile", null),
          bool(t.get("insecureSkipVerify"), key + ".tls.insecureSkipVerify", false));
    } catch (IllegalArgumentException e) {
      Node tn = m.get("tls");
      throw new ConfigException(key + ".tls", tn == null ? 0 : tn.line, e.getMessage());
    }
    return new EndpointConfig(name.trim(), url, headers, tokenFile, tls);
  }

  private NvmlConfig nvml(Node node) {
    Map<String, Node> m = section(node, "nvml", Set.of("enabled", "library"));
    NvmlConfig d = NvmlConfig.defaults();
    return new NvmlConfig(bool(m.get("enabled"), "nvml.enabled", d.enabled()),
        string(m.get("library"), "nvml.library", d.library()));
  }

  private KubernetesConfig kubernetes(Node node) {
    Map<String, Node> m = section(node, "kubernetes", Set.of("enabled", "nodeName", "kubeletUrl",
        "apiServerUrl", "tokenFile", "caFile", "insecureSkipVerify", "refresh"));
    KubernetesConfig d = KubernetesConfig.defaults();
    Node en = m.get("enabled");
    Boolean enabled = null;
    if (en != null && en.value != null && !"auto".equalsIgnoreCase(String.valueOf(en.value))) {
      enabled = bool(en, "kubernetes.enabled", false);
    }
    return new KubernetesConfig(
        enabled,
        string(m.get("nodeName"), "kubernetes.nodeName", d.nodeName()),
        string(m.get("kubeletUrl"), "kubernetes.kubeletUrl", d.kubeletUrl()),
        string(m.get("apiServerUrl"), "kubernetes.apiServerUrl", d.apiServerUrl()),
        string(m.get("tokenFile"), "kubernetes.tokenFile", d.tokenFile()),
        string(m.get("caFile"), "kubernetes.caFile", d.caFile()),
        bool(m.get("insecureSkipVerify"), "kubernetes.insecureSkipVerify", d.insecureSkipVerify()),
        duration(m.get("refresh"), "kubernetes.refresh", d.refresh()));
  }

  // ---------------------------------------------------------------- scalar helpers

  private static Map<String, Node> section(Node node, String key, Set<String> allowed) {
    if (node == null || node.value == null) {
      return Map.of();
    }
    if (!(node.value instanceof Map)) {
      throw new ConfigException(key, node.line, "expected a mapping with keys " + new java.util.TreeSet<>(allowed));
    }
    Map<String, Node> m = node.asMap();
    for (Map.Entry<String, Node> e : m.entrySet()) {
      if (!allowed.contains(e.getKey())) {
        String full = key.equals("(root)") ? e.getKey() : key + "." + e.getKey();
        throw new ConfigException(full, e.getValue().line,
            "unknown key; allowed here: " + new java.util.TreeSet<>(allowed));
      }
    }
    return m;
  }

  private static String string(Node node, String key, String def) {
    if (node == null || node.value == null) {
      return def;
    }
    if (!(node.value instanceof String)) {
      throw new ConfigException(key, node.line, "expected a single value");
    }
    return (String) node.value;
  }

  private static boolean bool(Node node, String key, boolean def) {
    String s = string(node, key, null);
    if (s == null) {
      return def;
    }
    switch (s.trim().toLowerCase(Locale.ROOT)) {
      case "true":
      case "yes":
      case "on":
        return true;
      case "false":
      case "no":
      case "off":
        return false;
      default:
        throw new ConfigException(key, node.line, "expected true or false, not '" + s + "'");
    }
  }

  private static long positiveLong(Node node, String key, long def) {
    String s = string(node, key, null);
    if (s == null) {
      return def;
    }
    long v;
    try {
      v = parseSize(s.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(key, node.line, "expected a positive whole number, not '" + s + "'");
    }
    if (v <= 0) {
      throw new ConfigException(key, node.line, "must be positive, not '" + s + "'");
    }
    if (!key.endsWith("maxBodyBytes") && v > Integer.MAX_VALUE) {
      throw new ConfigException(key, node.line, "too large: '" + s + "'");
    }
    return v;
  }

  /** Whole numbers with an optional binary suffix: 1048576, 1Mi, 64Ki, 1Gi. */
  private static long parseSize(String s) {
    long mult = 1;
    String lower = s.toLowerCase(Locale.ROOT);
    if (lower.endsWith("ki")) {
      mult = 1L << 10;
    } else if (lower.endsWith("mi")) {
      mult = 1L << 20;
    } else if (lower.endsWith("gi")) {
      mult = 1L << 30;
    }
    String digits = mult == 1 ? s : s.substring(0, s.length() - 2);
    return Math.multiplyExact(Long.parseLong(digits.replace("_", "")), mult);
  }

  private static Duration duration(Node node, String key, Duration def) {
    String s = string(node, key, null);
    if (s == null) {
      return def;
    }
    Duration d;
    try {
      d = parseDuration(s.trim());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(key, node.line,
          "expected a duration such as 500ms, 3s, 1m or 1h, not '" + s + "'");
    }
    if (d.isZero() || d.isNegative()) {
      throw new ConfigException(key, node.line, "must be positive, not '" + s + "'");
    }
    return d;
  }

  /** Parses {@code 500ms}, {@code 3s}, {@code 1.5m}, {@code 1h}, or ISO-8601 {@code PT3S}. */
  public static Duration parseDuration(String s) {
    Matcher m = DURATION.matcher(s);
    if (m.matches()) {
      double n = Double.parseDouble(m.group(1));
      double nanosPerUnit;
      switch (m.group(2)) {
        case "ms":
          nanosPerUnit = 1e6;
          break;
        case "s":
          nanosPerUnit = 1e9;
          break;
        case "m":
          nanosPerUnit = 60e9;
          break;
        default:
          nanosPerUnit = 3600e9;
      }
      return Duration.ofNanos(Math.round(n * nanosPerUnit));
    }
    try {
      return Duration.parse(s);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("not a duration: " + s, e);
    }
  }

  private String resolveEnv(String value, String key, int line) {
    Matcher m = ENV_REF.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String v = environment.apply(m.group(1));
      if (v == null) {
        throw new ConfigException(key, line, "environment variable " + m.group(1) + " is not set");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(v));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static void validateListen(String listen, Node node) {
    if ("off".equalsIgnoreCase(listen)) {
      return;
    }
    int colon = listen.lastIndexOf(':');
    int line = node == null ? 0 : node.line;
    if (colon <= 0 || colon == listen.length() - 1) {
      throw new ConfigException("listen", line, "expected host:port (or 'off'), not '" + listen + "'");
    }
    try {
      int port = Integer.parseInt(listen.substring(colon + 1));
      if (port < 0 || port > 65535) {
        throw new NumberFormatException();
      }
    } catch (NumberFormatException e) {
      throw new ConfigException("listen", line, "port must be 0-65535 in '" + listen + "'");
    }
  }
}
