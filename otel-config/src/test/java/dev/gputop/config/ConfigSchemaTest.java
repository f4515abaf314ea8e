package dev.gputop.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every key of {@link ConfigSchema}, read through {@link ConfigLoader} and written back by {@link
 * ConfigSchema#effective}, plus the forms of values that have several, and the README's table.
 */
class ConfigSchemaTest {

  private static final String ENDPOINT_URL = "http://h:1/m";
  private static final Path README = Path.of("..", "README.md");
  private static final String TABLE_BEGIN = "<!-- config-table:begin";
  private static final String TABLE_END = "<!-- config-table:end -->";

  private final ConfigLoader loader = new ConfigLoader(Map.of("TOKEN", "s3cret")::get);

  static Stream<ConfigSchema.Key<?, ?>> keys() {
    return ConfigSchema.keys().stream();
  }

  /** A valid text for a key other than its default, and the value it reads as. */
  private record Sample(String text, Object value) {}

  private static Sample sample(ConfigSchema.Key<?, ?> key) {
    ConfigType<?> t = key.type();
    if (t == ConfigType.DURATION) {
      return new Sample("7s", Duration.ofSeconds(7));
    } else if (t == ConfigType.SIZE) {
      return new Sample("3Ki", 3072L);
    } else if (t == ConfigType.FRACTION) {
      return new Sample("0.95", 0.95);
    } else if (t == ConfigType.COUNT) {
      return new Sample("5", 5);
    } else if (t == ConfigType.BOOLEAN) {
      boolean other = !Boolean.TRUE.equals(key.defaultValue());
      return new Sample(Boolean.toString(other), other);
    } else if (t == ConfigType.AUTO_BOOLEAN) {
      return new Sample("true", true);
    } else if (t == ConfigType.STRING) {
      return new Sample("/x/y", "/x/y");
    } else if (t == ConfigType.LISTEN) {
      return new Sample("0.0.0.0:1234", "0.0.0.0:1234");
    } else if (t == ConfigType.HTTP_URL) {
      return new Sample("https://other:8443/metrics", URI.create("https://other:8443/metrics"));
    } else if (t == ConfigType.PATHS) {
      return new Sample("/probe", List.of("/probe"));
    } else if (t == ConfigType.QUANTILES) {
      return new Sample("0.95", List.of(0.95));
    } else if (t == ConfigType.CIPHER_SUITES) {
      return new Sample("TLS_AES_256_GCM_SHA384", List.of("TLS_AES_256_GCM_SHA384"));
    } else if (t == ConfigType.TLS_VERSION) {
      return new Sample("1.3", "1.3");
    } else if (t == ConfigType.GPU_INDICES) {
      return new Sample("3", List.of(3));
    } else if (t == ConfigType.NUMBER) {
      return new Sample("2.5", 2.5);
    } else if (t instanceof ConfigType.SecretMap) {
      return new Sample(null, Map.of("X-Key", "s3cret"));
    } else if (key == ConfigSchema.DISCOVERY_SCOPE) {
      return new Sample("all", DiscoveryConfig.Scope.ALL);
    }
    throw new AssertionError("no sample for the type of " + key + ": add one here");
  }

  /** Keys that are only valid together with another: the other one, in its tls mapping. */
  private static String companion(ConfigSchema.Key<?, ?> key) {
    if (key == ConfigSchema.ENDPOINT_TLS_CERT_FILE) {
      return "keyFile: /k";
    }
    if (key == ConfigSchema.ENDPOINT_TLS_KEY_FILE) {
      return "certFile: /c";
    }
    return null;
  }

  /**
   * YAML that sets one key to {@code valueYaml}, with the key on the returned line; a list key
   * is set in the first element of a list whose element otherwise has only its required url
   * (an endpoint) or nothing else (an SLO override).
   */
  private static String[] yamlSetting(ConfigSchema.Key<?, ?> key, String valueYaml) {
    StringBuilder y = new StringBuilder();
    String indent = "";
    String path = key.path();
    if (key.list() != null) {
      String[] listParts = key.list().path().split("\\.");
      for (String p : listParts) {
        y.append(indent).append(p).append(":\n");
        indent += "  ";
      }
      y.append(indent).append("- ");
      indent += "  ";
      boolean first = true;
      if (key.list() == ConfigSchema.ENDPOINTS && key != ConfigSchema.ENDPOINT_URL) {
        y.append("url: ").append(ENDPOINT_URL).append("\n");
        first = false;
      }
      String companion = companion(key);
      if (companion != null) {
        // tls.certFile and tls.keyFile only together: both in one flow mapping on one line
        y.append(indent).append("tls: {").append(companion).append(", ")
            .append(path.substring(path.indexOf('.') + 1)).append(": ").append(valueYaml).append("}\n");
      } else {
        appendNested(y, indent, path, valueYaml, first);
      }
      return new String[] {y.toString(), Integer.toString(keyLine(y.toString(), key))};
    }
    appendNested(y, indent, path, valueYaml, false);
    return new String[] {y.toString(), Integer.toString(keyLine(y.toString(), key))};
  }

  private static void appendNested(StringBuilder y, String indent, String path, String value,
      boolean continueLine) {
    String[] parts = path.split("\\.");
    for (int i = 0; i < parts.length; i++) {
      if (!(continueLine && i == 0)) {
        y.append(indent);
      }
      y.append(parts[i]).append(":");
      if (i == parts.length - 1) {
        y.append(" ").append(value).append("\n");
      } else {
        y.append("\n");
        indent += "  ";
      }
    }
  }

  /** The 1-based line on which the key's last name part is written. */
  private static int keyLine(String yaml, ConfigSchema.Key<?, ?> key) {
    String[] lines = yaml.split("\n");
    String last = key.path().substring(key.path().lastIndexOf('.') + 1) + ":";
    for (int i = lines.length - 1; i >= 0; i--) {
      if (lines[i].contains(last)) {
        return i + 1;
      }
    }
    throw new AssertionError("no line for " + key + " in\n" + yaml);
  }

  @SuppressWarnings("unchecked")
  private static Object valueIn(AgentConfig c, ConfigSchema.Key<?, ?> key) {
    if (key.list() == null) {
      return ((ConfigSchema.Key<AgentConfig, ?>) key).valueIn(c);
    }
    if (key.list() == ConfigSchema.SLO_OVERRIDES) {
      SloOverride first = c.inference().slo().overrides().get(0);
      return ((ConfigSchema.Key<SloOverride, ?>) key).valueIn(first);
    }
    Endpoint first = c.inference().endpoints().get(0);
    return ((ConfigSchema.Key<Endpoint, ?>) key).valueIn(first);
  }

  @SuppressWarnings("unchecked")
  private static Object effectiveAt(AgentConfig c, ConfigSchema.Key<?, ?> key) {
    Object cur = ConfigSchema.effective(c);
    if (key.list() != null) {
      for (String p : key.list().path().split("\\.")) {
        cur = ((Map<String, Object>) cur).get(p);
      }
      cur = ((List<Object>) cur).get(0);
    }
    for (String p : key.path().split("\\.")) {
      assertThat((Map<String, Object>) cur).as(key.name()).containsKey(p);
      cur = ((Map<String, Object>) cur).get(p);
    }
    return cur;
  }

  private String valueYaml(ConfigSchema.Key<?, ?> key, Sample s) {
    return s.text() != null ? s.text() : "{X-Key: \"${env:TOKEN}\"}";
  }

  @ParameterizedTest
  @MethodSource("keys")
  void key_absentReadsAsItsDefault(ConfigSchema.Key<?, ?> key) {
    if (key.required()) {
      return; // an element without it is an error: key_requiredMissingNamesKeyAndLine
    }
    String yaml = key.list() == null ? ""
        : key.list() == ConfigSchema.SLO_OVERRIDES
            // an element that sets some other key
            ? "inference:\n  slo:\n    overrides:\n      - " + (key == ConfigSchema.SLO_OVERRIDE_TTFT ? "itl" : "ttft") + ": 1s\n"
            : "inference:\n  endpoints:\n    - url: " + ENDPOINT_URL + "\n";
    AgentConfig c = loader.parse(yaml, Map.of());
    if (key == ConfigSchema.ENDPOINT_NAME) {
      assertThat(valueIn(c, key)).isEqualTo("h:1"); // derived from the URL
    } else {
      assertThat(valueIn(c, key)).isEqualTo(key.defaultValue());
    }
    if (key.list() == null) {
      assertThat(valueIn(AgentConfig.defaults(), key)).isEqualTo(key.defaultValue());
    }
  }

  @Test
  void listenerTls_badVersionOrCipherSuite_namesKeyAndLine() {
    assertThatThrownBy(() -> loader.parse("listener:\n  tls:\n    minVersion: 1.1\n", Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("line 3: listener.tls.minVersion: must be 1.2 or 1.3 (TLS 1.0 and 1.1 are not offered), not '1.1'");
    assertThatThrownBy(() -> loader.parse("listener:\n  tls:\n    cipherSuites:\n      - TLS_AES_128_GCM_SHA256\n"
        + "      - TLS_MADE_UP_WITH_ROT13\n", Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("line 5: listener.tls.cipherSuites: 'TLS_MADE_UP_WITH_ROT13' is not a cipher suite this JVM supports");
    AgentConfig c = loader.parse("listener:\n  tls:\n    minVersion: '1.3'\n    cipherSuites: [TLS_AES_256_GCM_SHA384]\n", Map.of());
    assertThat(c.listener().tlsProtocols()).containsExactly("TLSv1.3");
    assertThat(c.listener().cipherSuites()).containsExactly("TLS_AES_256_GCM_SHA384");
    assertThat(loader.parse("", Map.of()).listener().cipherSuites()).isEqualTo(ListenerConfig.DEFAULT_CIPHER_SUITES);
  }

  @Test
  void key_requiredMissingNamesKeyAndLine() {
    assertThatThrownBy(() -> loader.parse("inference:\n  endpoints:\n    - name: a\n", Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("line 3: inference.endpoints[0].url: is required");
    assertThatThrownBy(() -> loader.parse("inference:\n  endpoints:\n    - url: ' '\n", Map.of()))
        .hasMessage("line 3: inference.endpoints[0].url: is required");
  }

  @ParameterizedTest
  @MethodSource("keys")
  void key_givenValueIsReadAndWrittenBack(ConfigSchema.Key<?, ?> key) {
    Sample s = sample(key);
    String[] yaml = yamlSetting(key, valueYaml(key, s));
    AgentConfig c = loader.parse(yaml[0], Map.of());
    assertThat(valueIn(c, key)).as(yaml[0]).isEqualTo(s.value());
    Object written = effectiveAt(c, key);
    if (key.type() instanceof ConfigType.SecretMap) {
      assertThat(written).isEqualTo(Map.of("X-Key", "<redacted>"));
    } else if (s.value() instanceof Duration) {
      assertThat(written).isEqualTo(s.text());
    } else if (key.type() == ConfigType.PATHS || key.type() == ConfigType.CIPHER_SUITES) {
      assertThat(written).isEqualTo(List.of(s.text()));
    } else if (key.type() == ConfigType.GPU_INDICES || key.type() == ConfigType.QUANTILES) {
      assertThat(written).isEqualTo(s.value());
    } else {
      assertThat(String.valueOf(written)).isEqualTo(String.valueOf(
          s.value() instanceof Long ? 3072 : s.text()));
    }
  }

  @ParameterizedTest
  @MethodSource("keys")
  void key_mappingOrListWhereAValueBelongsNamesKeyAndLine(ConfigSchema.Key<?, ?> key) {
    boolean map = key.type() instanceof ConfigType.SecretMap;
    String[] yaml = yamlSetting(key, map ? "just-text" : "{a: b}");
    String expected = map ? "expected a mapping of header names to values" : "expected a single value";
    assertThatThrownBy(() -> loader.parse(yaml[0], Map.of()))
        .as(yaml[0])
        .isInstanceOf(ConfigException.class)
        .hasMessage("line " + yaml[1] + ": " + fullName(key) + ": " + expected)
        .satisfies(e -> assertThat(((ConfigException) e).line()).isEqualTo(Integer.parseInt(yaml[1])));
  }

  @ParameterizedTest
  @MethodSource("keys")
  void key_invalidTextNamesKeyAndLine(ConfigSchema.Key<?, ?> key) {
    String bad = invalidText(key);
    if (bad == null) {
      return; // any text is valid (strings, paths)
    }
    String[] yaml = yamlSetting(key, bad);
    assertThatThrownBy(() -> loader.parse(yaml[0], Map.of()))
        .as(yaml[0])
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("line " + yaml[1] + ": " + fullName(key) + ": ")
        .hasMessageContaining(bad);
  }

  private static String invalidText(ConfigSchema.Key<?, ?> key) {
    ConfigType<?> t = key.type();
    if (t == ConfigType.DURATION) {
      return "soon";
    } else if (t == ConfigType.SIZE || t == ConfigType.COUNT) {
      return "many";
    } else if (t == ConfigType.FRACTION || t == ConfigType.QUANTILES) {
      return "1.5";
    } else if (t == ConfigType.NUMBER || t == ConfigType.GPU_INDICES) {
      return "-1";
    } else if (t == ConfigType.BOOLEAN || t == ConfigType.AUTO_BOOLEAN) {
      return "maybe";
    } else if (t == ConfigType.LISTEN) {
      return "nowhere";
    } else if (t == ConfigType.HTTP_URL) {
      return "ftp://x/metrics";
    } else if (key == ConfigSchema.DISCOVERY_SCOPE) {
      return "some";
    }
    return null;
  }

  private static String fullName(ConfigSchema.Key<?, ?> key) {
    return key.list() == null ? key.path() : key.list().path() + "[0]." + key.path();
  }

  @ParameterizedTest
  @MethodSource("keys")
  void key_overrideIsReadLikeTheFileForTopLevelScalars(ConfigSchema.Key<?, ?> key) {
    boolean overridable = key.list() == null && !(key.type() instanceof ConfigType.SecretMap);
    assertThat(ConfigLoader.SCALAR_KEYS.contains(key.path())).isEqualTo(overridable);
    if (!overridable) {
      return;
    }
    Sample s = sample(key);
    AgentConfig c = loader.parse("", Map.of(key.path(), s.text()));
    assertThat(valueIn(c, key)).isEqualTo(s.value());
    String bad = invalidText(key);
    if (bad != null) {
      assertThatThrownBy(() -> loader.parse("", Map.of(key.path(), bad)))
          .hasMessageStartingWith(key.path() + ": ")
          .satisfies(e -> assertThat(((ConfigException) e).line()).isZero());
    }
  }

  @Test
  void scalarKeys_areExactlyTheTopLevelScalarsInTableOrder() {
    assertThat(ConfigLoader.SCALAR_KEYS).containsExactly(
        "refresh.normal", "listen", "listener.tls.certFile", "listener.tls.keyFile",
        "listener.tls.clientCaFile", "listener.tls.minVersion", "listener.tls.cipherSuites",
        "listener.auth.bearerTokenFile", "listener.auth.basicUsersFile",
        "listener.auth.exemptPaths", "inference.enabled", "inference.window", "inference.costPerGpuHour", "inference.quantiles",
        "inference.discovery.enabled", "inference.discovery.scope", "inference.discovery.procRoot",
        "inference.scrape.timeout", "inference.scrape.maxBodyBytes",
        "inference.scrape.maxLineLength", "inference.scrape.maxSeries", "inference.scrape.maxLabels",
        "inference.scrape.concurrency", "inference.engines.directory",
        "inference.engines.profiles", "inference.slo.ttft", "inference.slo.itl",
        "inference.slo.e2e", "inference.slo.queue", "inference.slo.objective",
        "inference.slo.minRequests", "nvml.enabled", "nvml.library", "kubernetes.enabled",
        "kubernetes.nodeName", "kubernetes.kubeletUrl", "kubernetes.apiServerUrl",
        "kubernetes.tokenFile", "kubernetes.caFile", "kubernetes.insecureSkipVerify",
        "kubernetes.refresh");
  }

  // ---------------------------------------------------------------- forms

  @ParameterizedTest
  @ValueSource(strings = {"1048576", "1024Ki", "1Mi", "1mi", "1_048_576"})
  void size_formsOfOneMebibyte(String text) {
    AgentConfig c = loader.parse("inference:\n  scrape:\n    maxBodyBytes: " + text + "\n", Map.of());
    assertThat(c.inference().scrape().maxBodyBytes()).isEqualTo(1L << 20);
  }

  @Test
  void size_gibibytesAndLimits() {
    assertThat(loader.parse("", Map.of("inference.scrape.maxBodyBytes", "4Gi"))
        .inference().scrape().maxBodyBytes()).isEqualTo(4L << 30);
    assertThatThrownBy(() -> loader.parse("", Map.of("inference.scrape.maxLineLength", "4Gi")))
        .hasMessage("inference.scrape.maxLineLength: too large: '4Gi'");
    assertThatThrownBy(() -> loader.parse("", Map.of("inference.scrape.maxSeries", "0")))
        .hasMessage("inference.scrape.maxSeries: must be positive, not '0'");
    assertThatThrownBy(() -> loader.parse("", Map.of("inference.scrape.maxSeries", "-5")))
        .hasMessage("inference.scrape.maxSeries: must be positive, not '-5'");
    assertThatThrownBy(() -> loader.parse("", Map.of("inference.scrape.maxBodyBytes", "1.5Mi")))
        .hasMessage("inference.scrape.maxBodyBytes: expected a positive whole number, not '1.5Mi'");
    assertThatThrownBy(() -> loader.parse("", Map.of("inference.scrape.maxBodyBytes", "99999999999Gi")))
        .hasMessage("inference.scrape.maxBodyBytes: expected a positive whole number, not '99999999999Gi'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"true", "TRUE", "yes", "on", " On "})
  void boolean_trueForms(String text) {
    assertThat(loader.parse("", Map.of("nvml.enabled", text)).nvml().enabled()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"false", "False", "no", "off"})
  void boolean_falseForms(String text) {
    assertThat(loader.parse("", Map.of("inference.enabled", text)).inference().enabled()).isFalse();
  }

  @Test
  void boolean_kubernetesAutoIsNull() {
    assertThat(loader.parse("kubernetes:\n  enabled: auto\n", Map.of()).kubernetes().enabled()).isNull();
    assertThat(loader.parse("kubernetes:\n  enabled: AUTO\n", Map.of()).kubernetes().enabled()).isNull();
    assertThat(ConfigSchema.effective(AgentConfig.defaults()).get("kubernetes"))
        .isEqualTo(ConfigSchema.effective(loader.parse("kubernetes:\n  enabled: auto\n", Map.of())).get("kubernetes"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"1h", "1.5m", "90s", "90000ms", "PT1M30S"})
  void duration_forms(String text) {
    assertThat(loader.parse("", Map.of("inference.window", text)).inference().window())
        .isEqualTo(text.equals("1h") ? Duration.ofHours(1) : Duration.ofSeconds(90));
  }

  @Test
  void duration_zeroIsNotPositive() {
    assertThatThrownBy(() -> loader.parse("kubernetes:\n  refresh: 0s\n", Map.of()))
        .hasMessage("line 2: kubernetes.refresh: must be positive, not '0s'");
  }

  @Test
  void refresh_longerThanWindowNamesRefreshAndItsLine() {
    assertThatThrownBy(() -> loader.parse("inference:\n  window: 5s\nrefresh:\n  normal: 6s\n", Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("line 4: refresh.normal: must not be longer than inference.window (5s)");
    assertThatThrownBy(() -> loader.parse("", Map.of("refresh.normal", "2m")))
        .hasMessage("refresh.normal: must not be longer than inference.window (1m)");
  }

  @Test
  void refresh_equalToWindowIsAllowed() {
    AgentConfig c = loader.parse("refresh:\n  normal: 1m\n", Map.of());
    assertThat(c.refreshNormal()).isEqualTo(c.inference().window());
  }

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1:9464", "0.0.0.0:0", "localhost:65535", "[::1]:9464", "off", "OFF"})
  void listen_validForms(String text) {
    assertThat(loader.parse("listen: \"" + text + "\"\n", Map.of()).listen()).isEqualTo(text);
  }

  @Test
  void listen_offDisablesTheListener() {
    assertThat(loader.parse("listen: off\n", Map.of()).listenerDisabled()).isTrue();
    assertThat(AgentConfig.defaults().listenerDisabled()).isFalse();
  }

  @Test
  void listen_invalidForms() {
    assertThatThrownBy(() -> loader.parse("listen: 9464\n", Map.of()))
        .hasMessage("line 1: listen: expected host:port (or 'off'), not '9464'");
    assertThatThrownBy(() -> loader.parse("listen: \":9464\"\n", Map.of()))
        .hasMessage("line 1: listen: expected host:port (or 'off'), not ':9464'");
    assertThatThrownBy(() -> loader.parse("listen: \"host:\"\n", Map.of()))
        .hasMessage("line 1: listen: expected host:port (or 'off'), not 'host:'");
    assertThatThrownBy(() -> loader.parse("listen: host:65536\n", Map.of()))
        .hasMessage("line 1: listen: port must be 0-65535 in 'host:65536'");
    assertThatThrownBy(() -> loader.parse("listen: host:http\n", Map.of()))
        .hasMessage("line 1: listen: port must be 0-65535 in 'host:http'");
  }

  @Test
  void duplicateKey_namesTheSecondAndItsLine() {
    assertThatThrownBy(() -> loader.parse("nvml:\n  enabled: true\n  enabled: false\n", Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("line 3: nvml.enabled: given twice");
    assertThatThrownBy(() -> loader.parse("listen: off\nlisten: off\n", Map.of()))
        .hasMessage("line 2: listen: given twice");
    assertThatThrownBy(() -> loader.parse(
        "inference:\n  endpoints:\n    - url: http://h:1/m\n      tls:\n        caFile: a\n        caFile: b\n", Map.of()))
        .hasMessage("line 6: inference.endpoints[0].tls.caFile: given twice");
  }

  @Test
  void duplicateEndpointName_derivedNamesCollideToo() {
    assertThatThrownBy(() -> loader.parse(
        "inference:\n  endpoints:\n    - url: http://h:80/a\n    - url: http://h/b\n", Map.of()))
        .hasMessage("line 4: inference.endpoints[1].name: duplicate endpoint name 'h:80'");
  }

  @Test
  void tls_certWithoutKeyNamesTheTlsSection() {
    assertThatThrownBy(() -> loader.parse(
        "inference:\n  endpoints:\n    - url: https://h/m\n      tls:\n        certFile: /c\n", Map.of()))
        .hasMessage("line 4: inference.endpoints[0].tls: tls.certFile and tls.keyFile must be given together");
  }

  @Test
  void sections_wrongShapesNameTheSection() {
    assertThatThrownBy(() -> loader.parse("inference:\n  scrape: 5\n", Map.of()))
        .hasMessageStartingWith("line 2: inference.scrape: expected a mapping with keys [concurrency,");
    assertThatThrownBy(() -> loader.parse("inference:\n  endpoints: {a: b}\n", Map.of()))
        .hasMessage("line 2: inference.endpoints: expected a list of endpoints");
    assertThatThrownBy(() -> loader.parse("inference:\n  endpoints:\n    - 5\n", Map.of()))
        .hasMessageStartingWith("line 3: inference.endpoints[0]: expected a mapping with keys [bearerTokenFile,");
    assertThatThrownBy(() -> loader.parse("inference:\n  endpoints:\n    - url: http://h/m\n      tsl: {}\n", Map.of()))
        .hasMessage("line 4: inference.endpoints[0].tsl: unknown key; allowed here:"
            + " [bearerTokenFile, gpus, headers, name, slo, tls, url]");
  }

  @Test
  void listenerExemptPaths_sequenceIsReadAndEachPathChecked() {
    assertThat(loader.parse("listener:\n  auth:\n    exemptPaths: [/healthz, /metrics]\n", Map.of())
        .listener().exemptPaths()).containsExactly("/healthz", "/metrics");
    assertThatThrownBy(() -> loader.parse("listener:\n  auth:\n    exemptPaths:\n      - healthz\n", Map.of()))
        .hasMessage("line 4: listener.auth.exemptPaths: a path starts with '/', not 'healthz'");
  }

  @Test
  void endpointGpus_sequenceIsReadEachIndexChecked_andARepeatedIndexCountsOnce() {
    String endpoint = "inference:\n  endpoints:\n    - url: http://10.0.0.5:8000/metrics\n      gpus: ";
    assertThat(loader.parse(endpoint + "[0, 1]\n", Map.of()).inference().endpoints().get(0).gpus())
        .containsExactly(0, 1);
    assertThat(loader.parse(endpoint + "[2, 0, 2]\n", Map.of()).inference().endpoints().get(0).gpus())
        .containsExactly(2, 0);
    assertThatThrownBy(() -> loader.parse(endpoint + "\n        - 0\n        - one\n", Map.of()))
        .hasMessage("line 6: inference.endpoints[0].gpus: a GPU index is a whole number of 0 or more"
            + " (NVML's index), not 'one'");
    assertThat(loader.parse("", Map.of()).inference().costPerGpuHour()).isNull();
  }

  @Test
  void inferenceQuantiles_sequenceIsReadSortedAndEachNumberChecked() {
    assertThat(loader.parse("inference:\n  quantiles: [0.99, 0.5, 0.95, 0.999]\n", Map.of())
        .inference().quantiles()).containsExactly(0.5, 0.95, 0.99, 0.999);
    assertThat(loader.parse("inference:\n  quantiles: 0.95\n", Map.of())
        .inference().quantiles()).containsExactly(0.95);
    assertThat(AgentConfig.defaults().inference().quantiles()).containsExactly(0.5, 0.9, 0.99);
    assertThatThrownBy(() -> loader.parse("inference:\n  quantiles:\n    - 0.5\n    - p95\n", Map.of()))
        .hasMessage("line 4: inference.quantiles: expected a quantile between 0 and 1 such as 0.95,"
            + " not 'p95'");
    assertThatThrownBy(() -> loader.parse("inference:\n  quantiles: [0.5, 1]\n", Map.of()))
        .hasMessage("line 2: inference.quantiles: a quantile lies strictly between 0 and 1, not '1'");
    assertThatThrownBy(() -> loader.parse("inference:\n  quantiles: [0.5, 0]\n", Map.of()))
        .hasMessage("line 2: inference.quantiles: a quantile lies strictly between 0 and 1, not '0'");
    assertThatThrownBy(() -> loader.parse("\ninference:\n  quantiles: [0.9, 0.90]\n", Map.of()))
        .hasMessage("line 3: inference.quantiles: lists 0.9 twice");
    assertThatThrownBy(() -> loader.parse("inference:\n  quantiles: []\n", Map.of()))
        .hasMessage("line 2: inference.quantiles: needs at least one quantile, such as [0.5, 0.9, 0.99]");
    assertThatThrownBy(() -> loader.parse("inference:\n  quantiles:\n    - [0.5]\n", Map.of()))
        .hasMessage("line 3: inference.quantiles: expected a number between 0 and 1");
  }

  @Test
  void listenerValidate_settingsThatGoTogether() {
    assertThatThrownBy(() -> loader.parse("listener:\n  tls:\n    certFile: /c\n", Map.of()).listener().validate())
        .hasMessage("listener.tls.certFile: listener.tls.certFile and listener.tls.keyFile must be given together");
    assertThatThrownBy(() -> loader.parse("listener:\n  tls:\n    clientCaFile: /ca\n", Map.of()).listener().validate())
        .hasMessageStartingWith("listener.tls.clientCaFile: needs listener.tls.certFile");
    assertThatThrownBy(() -> loader.parse(
        "listener:\n  auth:\n    bearerTokenFile: /t\n    basicUsersFile: /u\n", Map.of()).listener().validate())
        .hasMessage("listener.auth: choose one of listener.auth.bearerTokenFile and listener.auth.basicUsersFile");
  }

  @Test
  void effective_defaultsInTheFilesOwnForms() {
    Map<String, Object> tree = ConfigSchema.effective(AgentConfig.defaults());
    Map<String, Object> expected = new LinkedHashMap<>();
    expected.put("refresh", Map.of("normal", "3s"));
    expected.put("listen", "127.0.0.1:9464");
    assertThat(tree).containsAllEntriesOf(expected);
    assertThat(tree.keySet()).containsExactly("refresh", "listen", "listener", "inference", "nvml", "kubernetes");
    @SuppressWarnings("unchecked")
    Map<String, Object> inference = (Map<String, Object>) tree.get("inference");
    assertThat(inference.keySet()).containsExactly("enabled", "window", "costPerGpuHour", "quantiles", "discovery", "scrape", "engines", "endpoints", "slo");
    assertThat(inference.get("quantiles")).isEqualTo(List.of(0.5, 0.9, 0.99));
    assertThat(inference.get("scrape")).isEqualTo(Map.of("timeout", "2s", "maxBodyBytes", 16L << 20,
        "maxLineLength", 65536, "maxSeries", 200000, "maxLabels", 64, "concurrency", 8));
    @SuppressWarnings("unchecked")
    Map<String, Object> nvml = (Map<String, Object>) tree.get("nvml");
    assertThat(nvml).containsEntry("enabled", true).containsEntry("library", null);
    assertThat(tree.get("kubernetes").toString()).contains("enabled=auto", "refresh=30s");
  }

  // ---------------------------------------------------------------- the README table

  @Test
  void readme_configurationTableIsTheSchemas() throws Exception {
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    int begin = readme.indexOf(TABLE_BEGIN);
    int end = readme.indexOf(TABLE_END);
    assertThat(begin).as("README.md has the markers " + TABLE_BEGIN + " ... " + TABLE_END).isPositive();
    assertThat(end).isGreaterThan(begin);
    int tableStart = readme.indexOf('\n', begin) + 1;
    String generated = ConfigSchema.markdownTable();
    if (Boolean.getBoolean("gputop.updateDocs")) {
      Files.writeString(README, readme.substring(0, tableStart) + generated + readme.substring(end),
          StandardCharsets.UTF_8);
      readme = Files.readString(README, StandardCharsets.UTF_8);
      end = readme.indexOf(TABLE_END);
    }
    assertThat(readme.substring(tableStart, end))
        .as("README.md's configuration table differs from ConfigSchema; regenerate it with"
            + " ./mvnw -B -q -pl otel-config test -Dtest=ConfigSchemaTest -Dgputop.updateDocs=true")
        .isEqualTo(generated);
  }
}
