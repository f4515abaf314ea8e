package dev.gputop.config.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.ConfigException;
import dev.gputop.config.ConfigLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzz test of the configuration loader (Jazzer): whatever a configuration file or a flat
 * override holds, loading ends with an {@link AgentConfig} or a {@link ConfigException} naming a
 * key; never another exception, a hang or a stack overflow (YAML anchors, deep nesting, huge
 * numbers, odd encodings).
 *
 * <p>In the default suite {@link #seeds_andTheirMutations_loadOrFailWithAConfigException} runs
 * the target over the seed configurations below and deterministic mutations of them. With {@code
 * -Plong} (.ci/run) the mutations are {@code gputop.fuzz.scale} (8) times as many and the {@code
 * @FuzzTest} runs too, in Jazzer's regression mode (its agent costs several seconds a JVM;
 * without a committed corpus it replays only the empty input, a seed here). Fuzzing for real:
 * docs/RELIABILITY.md.
 */
class ConfigLoaderFuzzTest {

  /** Configurations as the README, the examples and the loader tests write them. */
  static final List<String> SEEDS = List.of(
      "",
      "refresh:\n  normal: 3s\nlisten: 127.0.0.1:9464\ninference:\n  window: 1m\n  discovery:\n    scope: gpu\n",
      "inference:\n  endpoints:\n    - name: chat-api\n      url: https://chat.internal:8443/metrics\n"
          + "      headers:\n        X-Api-Key: ${env:CHAT_API_KEY}\n      bearerTokenFile: /var/run/secrets/t\n"
          + "      tls:\n        caFile: /etc/ssl/ca.pem\n        certFile: /c.pem\n        keyFile: /k.pem\n",
      "inference:\n  scrape:\n    timeout: 1500ms\n    maxBodyBytes: 16Mi\n    maxSeries: 200000\n    concurrency: 8\n",
      "nvml:\n  enabled: off\nkubernetes:\n  enabled: auto\n  refresh: 30s\n  insecureSkipVerify: yes\n",
      "listener:\n  tls:\n    certFile: /c\n    keyFile: /k\n  auth:\n    exemptPaths: [/healthz, /metrics]\n",
      "inference:\n  slo:\n    ttft: 500ms\n    objective: 0.99\n    overrides:\n      - match: {engine: vllm, model: \"llama-*\"}\n        ttft: 1s\n",
      "a: &x [*x]\n",
      "refresh: {normal: PT3S}\nlisten: off\n");

  private static final ConfigLoader LOADER = new ConfigLoader();
  /** How many times the default run's mutations a run makes (-Plong: 8). */
  private static final int SCALE = Integer.getInteger("gputop.fuzz.scale", 1);

  @Tag("long")
  @FuzzTest(maxDuration = "5m")
  void load_anyText_endsWithAConfigOrAConfigException(FuzzedDataProvider data) {
    String key = data.consumeBoolean() ? data.consumeString(40) : null;
    String value = key == null ? null : data.consumeString(40);
    load(data.consumeRemainingAsString(), key, value);
  }

  @Test
  void seeds_andTheirMutations_loadOrFailWithAConfigException() {
    long runs = 0;
    for (String seed : SEEDS) {
      load(seed, null, null);
      for (String m : mutations(seed)) {
        load(m, null, null);
        load(seed, "inference.window", m.length() > 20 ? m.substring(0, 20) : m);
        runs += 2;
      }
    }
    assertThat(runs).isGreaterThan(500);
    assertThat(LOADER.parse(SEEDS.get(1), Map.of()).listen()).isEqualTo("127.0.0.1:9464");
  }

  private static void load(String yaml, String key, String value) {
    try {
      LOADER.parse(yaml, key == null ? Map.of() : Map.of(key, value));
    } catch (ConfigException expected) {
      // a clear error naming the key: the promise
    }
  }

  /**
   * Truncations, single-character changes to YAML's special characters, indentation shifts, at
   * 40 points (times {@link #SCALE}).
   */
  static List<String> mutations(String seed) {
    List<String> out = new ArrayList<>();
    String special = ":-{}[]&*!|>'\"%@`#,? \t\n";
    int n = seed.length();
    int points = 40 * SCALE;
    for (int i = 1; i <= points && n > 0; i++) {
      int at = (int) ((long) (n - 1) * i / points);
      out.add(seed.substring(0, at));
      char[] c = seed.toCharArray();
      c[at] = special.charAt(i % special.length());
      out.add(new String(c));
      out.add(seed.substring(0, at) + "  " + seed.substring(at));
    }
    out.add(seed.replace("\n", "\r\n"));
    out.add(new String(seed.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1) + "\u0000");
    return out;
  }
}
