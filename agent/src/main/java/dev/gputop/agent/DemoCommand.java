package dev.gputop.agent;

import dev.gputop.agent.demo.DemoReplicas;
import dev.gputop.agent.demo.DemoTable;
import dev.gputop.agent.demo.Replica;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.DiscoveryConfig;
import dev.gputop.config.Endpoint;
import dev.gputop.config.InferenceConfig;
import dev.gputop.config.TlsConfig;
import dev.gputop.config.internal.TerminalText;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code demo}: starts local replicas of vLLM (DP 2), SGLang (TP 2), TGI, llama.cpp and TensorRT-LLM on
 * loopback, points the agent at them as configured endpoints (discovery off) and redraws the
 * serving table every refresh. Needs no GPU and no inference server; NVML runs as configured and
 * reports itself unavailable where there is none.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Scrape local replicas of vLLM, SGLang, TGI, llama.cpp and TensorRT-LLM; show a live table.",
      "The replicas (vLLM DP 2, SGLang TP 2, TGI, llama.cpp) serve the engines' real metrics with",
      "counters that move like loaded servers. No GPU and no inference server needed."
    })
final class DemoCommand implements Callable<Integer> {

  /** Short enough that numbers appear within seconds, long enough for stable percentiles. */
  static final Duration DEMO_REFRESH = Duration.ofSeconds(1);

  static final Duration DEMO_WINDOW = Duration.ofSeconds(30);

  private static final String CLEAR = "\033[H\033[2J";

  @Mixin ConfigMixin config;

  @Option(
      names = "--for",
      paramLabel = "D",
      converter = DurationConverter.class,
      description = "Stop after D, e.g. 30s (default: run until Ctrl-C).")
  Duration duration;

  @Option(names = "--seed", paramLabel = "N", description = "Seed of the replicas' load (default ${DEFAULT-VALUE}).")
  long seed = 42;

  @Option(names = "--plain", description = "Never clear the screen; print each table below the last.")
  boolean plain;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    AgentConfig file = config.load();
    quietLogging();
    PrintWriter out = spec.commandLine().getOut();
    boolean redraw = !plain && System.console() != null;
    try (DemoReplicas replicas = replicas(seed).start()) {
      AgentConfig cfg = demoConfig(file, replicas.replicas());
      StandaloneAgent agent = startAgent(cfg);
      CountDownLatch done = new CountDownLatch(1);
      Thread hook = new Thread(() -> {
        agent.close();
        done.countDown();
      }, "gputop-demo-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        agent.runtime().awaitFirstRefresh(Duration.ofSeconds(5));
        long start = System.nanoTime();
        long end = duration == null ? Long.MAX_VALUE : start + duration.toNanos();
        String listener = agent.server() == null
            ? "off"
            : agent.server().url() + " (/metrics, /api/snapshot, /api/history, /healthz)\n"
                + "live view: open " + agent.server().url() + "/ in a browser, or run: java -jar gputop-agent.jar top --url "
                + agent.server().url();
        while (true) {
          long elapsed = System.nanoTime() - start;
          StringBuilder screen = new StringBuilder();
          if (redraw) {
            screen.append(CLEAR);
          } else {
            screen.append('\n');
          }
          screen.append("gputop-agent demo: replicas of vLLM (DP 2), SGLang (TP 2), TGI, llama.cpp, TensorRT-LLM on loopback; ")
              .append("refresh ").append(EffectiveConfig.duration(cfg.refreshNormal()))
              .append(", window ").append(EffectiveConfig.duration(cfg.inference().window()))
              .append(", ").append(TimeUnit.NANOSECONDS.toSeconds(elapsed)).append('s')
              .append(duration == null ? " (Ctrl-C to stop)" : " of " + EffectiveConfig.duration(duration))
              .append('\n')
              .append("listener: ").append(listener).append("\n\n")
              .append(TerminalText.lines(DemoTable.render(agent.runtime().snapshot())));
          out.print(screen);
          out.flush();
          long now = System.nanoTime();
          if (now >= end) {
            break;
          }
          long sleep = Math.min(cfg.refreshNormal().toNanos(), end - now);
          if (done.await(sleep, TimeUnit.NANOSECONDS)) {
            break; // Ctrl-C: the hook is closing the agent
          }
        }
      } finally {
        if (done.getCount() > 0) {
          Runtime.getRuntime().removeShutdownHook(hook);
          agent.close();
        }
      }
    }
    return ExitCodes.OK;
  }

  /**
   * The demo's replicas: restarts on, and the first burst of load at once, so that the README's
   * 30-second demo shows a queue and a full KV cache (the {@code kv_cache_full} alert) in its
   * first half (DemoAlertTest).
   */
  static DemoReplicas.Builder replicas(long seed) {
    return DemoReplicas.builder().seed(seed).earlyBurst(true);
  }

  /**
   * The user's configuration with the demo's endpoints, discovery off, a 1 s refresh and a 30 s
   * window; NVML, the listener and Kubernetes stay as configured.
   */
  static AgentConfig demoConfig(AgentConfig file, List<Replica> replicas) {
    List<Endpoint> endpoints = new ArrayList<>();
    for (Replica r : replicas) {
      endpoints.add(new Endpoint(r.name(), r.url(), Map.of(), null, TlsConfig.defaults()));
    }
    InferenceConfig i = file.inference();
    DiscoveryConfig noDiscovery = new DiscoveryConfig(false, i.discovery().scope(), i.discovery().procRoot());
    InferenceConfig inference = new InferenceConfig(true, DEMO_WINDOW, noDiscovery, endpoints, i.scrape());
    return new AgentConfig(DEMO_REFRESH, file.listen(), inference, file.nvml(), file.kubernetes(), file.listener());
  }

  /** Starts the agent; when the listen address is taken (an agent already runs), on any free port. */
  private static StandaloneAgent startAgent(AgentConfig cfg) {
    try {
      return StandaloneAgent.start(cfg);
    } catch (UncheckedIOException e) {
      if (cfg.listenerDisabled()) {
        throw e;
      }
      String host = cfg.listen().substring(0, cfg.listen().lastIndexOf(':'));
      AgentConfig any = cfg.withListen(host + ":0");
      return StandaloneAgent.start(any);
    }
  }

  /** Log lines would tear the table; only warnings and worse are shown. */
  private static void quietLogging() {
    Logger.getLogger("").setLevel(Level.WARNING);
  }
}
