package dev.gputop.agent.cli;

import dev.gputop.agent.demo.DemoReplicas;
import dev.gputop.agent.demo.DemoTable;
import dev.gputop.agent.demo.Replica;
import dev.gputop.agent.lifecycle.StandaloneAgent;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.Endpoint;
import dev.gputop.config.InferenceConfig;
import dev.gputop.config.ListenAddress;
import dev.gputop.config.internal.TerminalText;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
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
      "%nThe replicas (vLLM DP 2, SGLang TP 2, TGI, llama.cpp, TensorRT-LLM) serve the engines' real"
          + " metrics with counters that move like loaded servers; their URLs are printed for run or"
          + " Prometheus, and the agent's listener serves the live view page. --config is honoured"
          + " except for its endpoints and discovery (the demo scrapes its replicas, discovery off);"
          + " refresh.normal and inference.window default to 1s and 30s. No GPU and no inference"
          + " server needed."
    })
public final class DemoCommand implements Callable<Integer> {

  /**
   * The demo's own defaults, under the user's file: a refresh short enough that numbers appear
   * within seconds, a window long enough for stable percentiles and short enough that the first
   * burst shows.
   */
  static final Map<String, String> DEMO_DEFAULTS = Map.of("refresh.normal", "1s", "inference.window", "30s");

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

  @Option(names = "--port", paramLabel = "PORT",
      description = "The agent's listener port (the page, /metrics, /api/snapshot) on the listen address's host "
          + "(default: the configured listen address, or any free port when that is taken).")
  Integer port;

  @Option(names = "--replica-base-port", paramLabel = "PORT",
      description = "The replicas listen on PORT, PORT+1, ... PORT+4 on 127.0.0.1 (default: free ports).")
  int replicaBasePort;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    checkPorts();
    AgentConfig file = config.loadWithDefaults(DEMO_DEFAULTS);
    if (port != null) {
      file = file.withListen(listenAddress(file).withPort(port).toString());
    }
    quietLogging();
    PrintWriter out = spec.commandLine().getOut();
    boolean redraw = !plain && System.console() != null;
    try (DemoReplicas replicas = replicas(seed).basePort(replicaBasePort).start()) {
      AgentConfig cfg = demoConfig(file, replicas.replicas());
      StandaloneAgent agent = port != null ? StandaloneAgent.start(cfg) : startAgent(cfg);
      String replicaUrls = replicaLines(replicas.replicas());
      Thread hook = new Thread(agent::close, "gputop-demo-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      String signal = null;
      try (StopSignals signals = StopSignals.install()) {
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
              .append("listener: ").append(listener).append('\n')
              .append(replicaUrls).append('\n')
              .append(TerminalText.lines(DemoTable.render(agent.runtime().snapshot())));
          out.print(screen);
          out.flush();
          long now = System.nanoTime();
          if (now >= end) {
            break;
          }
          long sleep = Math.min(cfg.refreshNormal().toNanos(), end - now);
          signal = signals.await(sleep);
          if (signal != null) {
            break; // Ctrl-C or SIGTERM: a stop asked for, exit 0
          }
        }
      } finally {
        Runtime.getRuntime().removeShutdownHook(hook);
        agent.close(signal);
      }
    }
    return ExitCodes.OK;
  }

  /**
   * The demo's replicas: restarts on, and the first burst of load at once, so that the README's
   * 30-second demo shows a queue and a full KV cache (the {@code kv_cache_full} alert) in its
   * first half (DemoAlertTest).
   */
  public static DemoReplicas.Builder replicas(long seed) {
    return DemoReplicas.builder().seed(seed).earlyBurst(true);
  }

  /**
   * The user's configuration with the demo's endpoints and discovery off; every other key as the
   * file (or {@link #DEMO_DEFAULTS}) says.
   */
  static AgentConfig demoConfig(AgentConfig file, List<Replica> replicas) {
    List<Endpoint> endpoints = new ArrayList<>();
    for (Replica r : replicas) {
      endpoints.add(Endpoint.of(r.name(), r.url()));
    }
    InferenceConfig i = file.inference();
    return file.withInference(
        i.toBuilder().enabled(true).endpoints(endpoints).discovery(i.discovery().withEnabled(false)).build());
  }

  /** One line per replica: its name and the URL that {@code run} or Prometheus can scrape. */
  static String replicaLines(List<Replica> replicas) {
    StringBuilder b = new StringBuilder("replicas (scrape these with run or Prometheus):\n");
    for (Replica r : replicas) {
      b.append(String.format("  %-11s %s%n", r.name(), r.url()));
    }
    return b.toString();
  }

  private void checkPorts() {
    if (port != null && (port < 0 || port > 65_535)) {
      throw new ParameterException(spec.commandLine(), "--port must be 0 to 65535, not " + port);
    }
    if (replicaBasePort < 0 || replicaBasePort > DemoReplicas.Builder.MAX_BASE_PORT) {
      throw new ParameterException(spec.commandLine(), "--replica-base-port must be 1 to "
          + DemoReplicas.Builder.MAX_BASE_PORT + " (five ports from it), not " + replicaBasePort);
    }
  }

  /** The listen address, or loopback's when the file switched the listener off. */
  private static ListenAddress listenAddress(AgentConfig cfg) {
    return cfg.listenerDisabled() ? new ListenAddress("127.0.0.1", 0) : cfg.listenAddress();
  }

  /** Starts the agent; when the listen address is taken (an agent already runs), on any free port. */
  private static StandaloneAgent startAgent(AgentConfig cfg) {
    try {
      return StandaloneAgent.start(cfg);
    } catch (UncheckedIOException e) {
      if (cfg.listenerDisabled()) {
        throw e;
      }
      return StandaloneAgent.start(cfg.withListen(listenAddress(cfg).withPort(0).toString()));
    }
  }

  /** Log lines would tear the table; only warnings and worse are shown. */
  private static void quietLogging() {
    Logger.getLogger("").setLevel(Level.WARNING);
  }
}
