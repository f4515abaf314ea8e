package dev.gputop.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.EndpointConfig;
import dev.gputop.config.InferenceConfig;
import dev.gputop.config.KubernetesConfig;
import dev.gputop.config.ScrapeConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes an {@link AgentConfig} back as YAML in the file's own key names, for {@code
 * check-config}. Header values are secrets and are printed as {@code <redacted>}; file paths are
 * printed as they are. Stateless and thread-safe.
 */
final class EffectiveConfig {

  static final String REDACTED = "<redacted>";

  private EffectiveConfig() {}

  static String toYaml(AgentConfig c) throws JsonProcessingException {
    return Yaml.MAPPER.writeValueAsString(tree(c));
  }

  /**
   * The YAML writer, created on first use: {@link #duration} is on the start-up path of {@code
   * run}, and building a mapper there would cost the first scrape ~100 ms of class loading.
   */
  private static final class Yaml {
    static final ObjectMapper MAPPER =
        new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));
  }

  static Map<String, Object> tree(AgentConfig c) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("refresh", Map.of("normal", duration(c.refreshNormal())));
    root.put("listen", c.listen());

    InferenceConfig i = c.inference();
    Map<String, Object> inference = new LinkedHashMap<>();
    inference.put("enabled", i.enabled());
    inference.put("window", duration(i.window()));
    Map<String, Object> discovery = new LinkedHashMap<>();
    discovery.put("enabled", i.discovery().enabled());
    discovery.put("scope", i.discovery().scope().name().toLowerCase(Locale.ROOT));
    discovery.put("procRoot", i.discovery().procRoot());
    inference.put("discovery", discovery);
    ScrapeConfig s = i.scrape();
    Map<String, Object> scrape = new LinkedHashMap<>();
    scrape.put("timeout", duration(s.timeout()));
    scrape.put("maxBodyBytes", s.maxBodyBytes());
    scrape.put("maxLineLength", s.maxLineLength());
    scrape.put("maxSeries", s.maxSeries());
    scrape.put("maxLabels", s.maxLabels());
    scrape.put("concurrency", s.concurrency());
    inference.put("scrape", scrape);
    List<Object> endpoints = new ArrayList<>();
    for (EndpointConfig e : i.endpoints()) {
      Map<String, Object> ep = new LinkedHashMap<>();
      ep.put("name", e.name());
      ep.put("url", e.url().toString());
      Map<String, Object> headers = new LinkedHashMap<>();
      e.headers().keySet().forEach(k -> headers.put(k, REDACTED));
      ep.put("headers", headers);
      ep.put("bearerTokenFile", e.bearerTokenFile());
      Map<String, Object> tls = new LinkedHashMap<>();
      tls.put("caFile", e.tls().caFile());
      tls.put("certFile", e.tls().certFile());
      tls.put("keyFile", e.tls().keyFile());
      tls.put("insecureSkipVerify", e.tls().insecureSkipVerify());
      ep.put("tls", tls);
      endpoints.add(ep);
    }
    inference.put("endpoints", endpoints);
    root.put("inference", inference);

    Map<String, Object> nvml = new LinkedHashMap<>();
    nvml.put("enabled", c.nvml().enabled());
    nvml.put("library", c.nvml().library());
    root.put("nvml", nvml);

    KubernetesConfig k = c.kubernetes();
    Map<String, Object> kubernetes = new LinkedHashMap<>();
    kubernetes.put("enabled", k.enabled() == null ? "auto" : k.enabled());
    kubernetes.put("nodeName", k.nodeName());
    kubernetes.put("kubeletUrl", k.kubeletUrl());
    kubernetes.put("apiServerUrl", k.apiServerUrl());
    kubernetes.put("tokenFile", k.tokenFile());
    kubernetes.put("caFile", k.caFile());
    kubernetes.put("insecureSkipVerify", k.insecureSkipVerify());
    kubernetes.put("refresh", duration(k.refresh()));
    root.put("kubernetes", kubernetes);
    return root;
  }

  /** The shortest of the file's own duration forms: 1h, 2m, 3s or 500ms. */
  static String duration(Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
