package dev.gputop.inference.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.inference.discovery.CommandRecognizer.Endpoint;
import dev.gputop.inference.discovery.CommandRule.Role;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommandRecognizerTest {

  private final CommandRecognizer recognizer = CommandRecognizer.defaults();

  private CommandRule rule(String cmdline) {
    return recognizer.recognize(List.of(cmdline.split(" ")));
  }

  private static Endpoint endpoint(CommandRule rule, String cmdline) {
    return CommandRecognizer.endpoint(rule, List.of(cmdline.split(" ")), v -> null);
  }

  @Test
  void recognize_vllmServeForms() {
    assertThat(rule("vllm serve meta-llama/Llama-3.1-8B --port 8001")).satisfies(r -> {
      assertThat(r.engine()).isEqualTo("vllm");
      assertThat(r.role()).isEqualTo(Role.SERVER);
    });
    assertThat(rule("/usr/bin/python3 /usr/local/bin/vllm serve m").engine()).isEqualTo("vllm");
    assertThat(rule("python3 -m vllm.entrypoints.openai.api_server --model m").engine()).isEqualTo("vllm");
    assertThat(rule("/opt/venv/bin/python3.12 -u -m vllm.entrypoints.openai.api_server").engine()).isEqualTo("vllm");
    assertThat(rule("python -X faulthandler -m vllm.entrypoints.openai.api_server").engine()).isEqualTo("vllm");
    assertThat(rule("VLLM::EngineCore").role()).isEqualTo(Role.HELPER);
    assertThat(rule("VLLM::Worker_TP1").role()).isEqualTo(Role.HELPER);
    assertThat(rule("VLLM::EngineCore_DP0").engine()).isEqualTo("vllm");
    assertThat(rule("VLLM::APIServer_0").role()).isEqualTo(Role.HELPER);
    // VLLM_PROCESS_NAME_PREFIX=team-a renames every title.
    assertThat(rule("team-a::EngineCore").engine()).isEqualTo("vllm");
    assertThat(rule("team-a::Worker_TP3").engine()).isEqualTo("vllm");
    assertThat(recognizer.recognizeComm("ab::EngineCore").engine()).isEqualTo("vllm");
    assertThat(rule("foo::bar")).isNull();
  }

  @Test
  void recognize_otherEngines() {
    assertThat(rule("python3 -m sglang.launch_server --model-path m --enable-metrics").role()).isEqualTo(Role.SERVER);
    assertThat(rule("sglang serve --model-path m").engine()).isEqualTo("sglang");
    assertThat(rule("sglang::scheduler_TP0").role()).isEqualTo(Role.HELPER);
    assertThat(rule("sglang::scheduler_DP0_TP0").engine()).isEqualTo("sglang");
    assertThat(rule("text-generation-launcher --model-id m").role()).isEqualTo(Role.SUPERVISOR);
    assertThat(rule("/usr/local/bin/text-generation-router --port 80 --prometheus-port 9000").role()).isEqualTo(Role.SERVER);
    assertThat(rule("text-generation-router-v3 --port 80").role()).isEqualTo(Role.SERVER);
    assertThat(rule("/opt/conda/bin/python3.11 /opt/conda/bin/text-generation-server serve m --uds-path /tmp/x").role())
        .isEqualTo(Role.HELPER);
    assertThat(rule("./build/bin/llama-server -m model.gguf --metrics").engine()).isEqualTo("llamacpp");
  }

  @Test
  void recognize_the2026Engines() {
    assertThat(rule("trtllm-serve serve /models/llama --port 8001").engine()).isEqualTo("trtllm");
    assertThat(rule("/usr/bin/python3 /usr/local/bin/trtllm-serve nvidia/Llama-3.1-8B").engine()).isEqualTo("trtllm");
    assertThat(rule("/opt/tritonserver/bin/tritonserver --model-repository /models").engine()).isEqualTo("triton");
    assertThat(rule("python3 -m dynamo.frontend --http-port 8080").engine()).isEqualTo("dynamo");
    assertThat(rule("python3 -m dynamo.vllm --model m")).as("a Dynamo worker is not the frontend").isNull();
    assertThat(rule("lmdeploy serve api_server internlm/internlm3-8b-instruct").engine()).isEqualTo("lmdeploy");
    assertThat(rule("/usr/bin/python3 /usr/local/bin/lmdeploy serve api_server m --server-port 23334").role())
        .isEqualTo(Role.SERVER);
    assertThat(rule("lmdeploy serve proxy --server-port 8000")).isNull();
    assertThat(rule("lmdeploy serve")).isNull();
    assertThat(rule("lmdeploy chat internlm/internlm3-8b-instruct")).isNull();
    assertThat(rule("text-embeddings-router --model-id BAAI/bge-large-en-v1.5").engine()).isEqualTo("tei");
  }

  @Test
  void endpoint_the2026Engines() {
    assertThat(endpoint(rule("trtllm-serve serve m --port 8123"), "trtllm-serve serve m --port 8123").url("127.0.0.1"))
        .isEqualTo("http://127.0.0.1:8123/prometheus/metrics");
    assertThat(endpoint(rule("trtllm-serve m"), "trtllm-serve m").url("127.0.0.1"))
        .isEqualTo("http://127.0.0.1:8000/prometheus/metrics");
    String triton = "tritonserver --model-repository /m --http-port 9000 --metrics-port 9002";
    assertThat(endpoint(rule(triton), triton).url("127.0.0.1")).isEqualTo("http://127.0.0.1:9002/metrics");
    assertThat(endpoint(rule("tritonserver --model-repository /m"), "tritonserver --model-repository /m").port())
        .isEqualTo(8002);
    Endpoint dyn = CommandRecognizer.endpoint(rule("python3 -m dynamo.frontend"), List.of("python3", "-m", "dynamo.frontend"),
        Map.of("DYN_HTTP_PORT", "8787")::get);
    assertThat(dyn.port()).isEqualTo(8787);
    assertThat(dyn.how()).contains("$DYN_HTTP_PORT=8787");
    assertThat(endpoint(rule("lmdeploy serve api_server m"), "lmdeploy serve api_server m").port()).isEqualTo(23333);
    String tei = "text-embeddings-router --model-id m --port 8080";
    assertThat(endpoint(rule(tei), tei).port()).as("the main port serves /metrics too").isEqualTo(8080);
    String teiProm = "text-embeddings-router --model-id m --port 8080 --prometheus-port 9100";
    assertThat(endpoint(rule(teiProm), teiProm).port()).isEqualTo(9100);
    Endpoint teiDocker = CommandRecognizer.endpoint(rule("text-embeddings-router --model-id m"),
        List.of("text-embeddings-router", "--model-id", "m"), Map.of("PORT", "80")::get);
    assertThat(teiDocker.port()).isEqualTo(80);
  }

  @Test
  void recognize_lookalikesAreNotServers() {
    assertThat(rule("vllm bench serve --port 8000")).isNull();
    assertThat(rule("vim vllm")).isNull();
    assertThat(rule("text-generation-benchmark --tokenizer-name m")).isNull();
    assertThat(rule("text-generation-server download-weights m")).isNull();
    assertThat(rule("python3 -c from multiprocessing.spawn import spawn_main; spawn_main() --multiprocessing-fork")).isNull();
    assertThat(rule("python3 train.py --port 8000")).isNull();
    assertThat(rule("grep vllm serve")).isNull();
    assertThat(recognizer.recognize(List.of())).isNull();
  }

  @Test
  void recognizeComm_titlesAndShortNames() {
    assertThat(recognizer.recognizeComm("VLLM::EngineCor").engine()).isEqualTo("vllm");
    assertThat(recognizer.recognizeComm("llama-server").engine()).isEqualTo("llamacpp");
    // 24 characters: the 15-byte comm can't tell the launcher from the router or a shard.
    assertThat(recognizer.recognizeComm("text-generation")).isNull();
    assertThat(recognizer.recognizeComm("bash")).isNull();
  }

  @Test
  void endpoint_defaultsPerEngine() {
    assertThat(endpoint(rule("vllm serve m"), "vllm serve m").url("127.0.0.1")).isEqualTo("http://127.0.0.1:8000/metrics");
    Endpoint vllm = endpoint(rule("vllm serve m"), "vllm serve m");
    assertThat(vllm.host()).isEqualTo("127.0.0.1");
    assertThat(vllm.how()).contains("default port 8000").contains("wildcard");
    assertThat(endpoint(rule("python3 -m sglang.launch_server"), "python3 -m sglang.launch_server").port()).isEqualTo(30000);
    assertThat(endpoint(rule("llama-server -m x"), "llama-server -m x").port()).isEqualTo(8080);
    assertThat(endpoint(rule("text-generation-launcher"), "text-generation-launcher --port 3000").port()).isEqualTo(9000);
  }

  @Test
  void endpoint_flagsAndWildcards() {
    CommandRule vllm = rule("vllm serve m");
    assertThat(endpoint(vllm, "vllm serve m --port 8001 --host 10.1.2.3").url("10.1.2.3")).isEqualTo("http://10.1.2.3:8001/metrics");
    assertThat(endpoint(vllm, "vllm serve m --port=8002 --host=::").host()).isEqualTo("127.0.0.1");
    assertThat(endpoint(vllm, "vllm serve m --host 0.0.0.0 --port 8003").host()).isEqualTo("127.0.0.1");
    assertThat(endpoint(vllm, "vllm serve m --host fd00::5 --port 8004").url("fd00::5")).isEqualTo("http://[fd00::5]:8004/metrics");
    assertThat(endpoint(vllm, "vllm serve m --port 80x").error()).contains("80x");
    assertThat(endpoint(vllm, "vllm serve m --port 70000").error()).contains("out of range");
    // argparse: the last occurrence wins.
    assertThat(endpoint(vllm, "vllm serve m --port 1 --port 2").port()).isEqualTo(2);
  }

  @Test
  void endpoint_tgiRouterPrefersPrometheusPort() {
    CommandRule router = rule("text-generation-router");
    assertThat(endpoint(router, "text-generation-router --port 80 --prometheus-port 9001 --hostname 0.0.0.0").port()).isEqualTo(9001);
    // Before TGI 3.3 the router had no --prometheus-port: metrics are on the API port.
    assertThat(endpoint(router, "text-generation-router --port 8080").port()).isEqualTo(8080);
  }

  @Test
  void endpoint_environmentWhenNoFlag() {
    CommandRule llama = rule("llama-server");
    Map<String, String> env = Map.of("LLAMA_ARG_PORT", "9090", "LLAMA_ARG_HOST", "0.0.0.0");
    Endpoint e = CommandRecognizer.endpoint(llama, List.of("llama-server", "-m", "x"), env::get);
    assertThat(e.url(e.host())).isEqualTo("http://127.0.0.1:9090/metrics");
    assertThat(e.how()).contains("$LLAMA_ARG_PORT=9090");
    Endpoint flagWins = CommandRecognizer.endpoint(llama, List.of("llama-server", "--port", "7070"), env::get);
    assertThat(flagWins.port()).isEqualTo(7070);
  }

  @Test
  void connectHost_wildcardsMeanLoopback() {
    assertThat(CommandRecognizer.connectHost("0.0.0.0")).isEqualTo("127.0.0.1");
    assertThat(CommandRecognizer.connectHost("::")).isEqualTo("127.0.0.1");
    assertThat(CommandRecognizer.connectHost("[::]")).isEqualTo("127.0.0.1");
    assertThat(CommandRecognizer.connectHost("192.168.1.4")).isEqualTo("192.168.1.4");
    assertThat(CommandRecognizer.isLoopback("127.0.0.1")).isTrue();
    assertThat(CommandRecognizer.isLoopback("10.0.0.1")).isFalse();
  }
}
