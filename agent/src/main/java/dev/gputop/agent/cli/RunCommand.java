package dev.gputop.agent.cli;

import dev.gputop.agent.lifecycle.StandaloneAgent;
import dev.gputop.config.AgentConfig;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code run}: the agent proper. Refreshes every receiver every {@code refresh.normal}, exports
 * over OTLP as the {@code OTEL_*} settings say and serves the listener, until SIGTERM or Ctrl-C,
 * on which it flushes the exporters and exits within 5 s.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Run the agent until SIGTERM or Ctrl-C.",
      "%nRefreshes the receivers every refresh.normal, exports over OTLP (the OTEL_* environment"
          + " variables) and serves on the listen address the live view page (/), /metrics,"
          + " /api/snapshot, /api/history?server=NAME and /healthz. SIGTERM or Ctrl-C flushes the"
          + " exporters and exits 0 within 5 s."
    })
final class RunCommand implements Callable<Integer> {

  @Mixin ConfigMixin config;

  /**
   * Runs until SIGTERM or SIGINT, then stops within {@link StandaloneAgent#STOP_BUDGET}, logs one
   * line ({@code SIGTERM: stopped in 812 ms}) and returns 0. Any other end of the JVM (SIGHUP, a
   * host's System.exit) still stops the agent, from the shutdown hook.
   */
  @Override
  public Integer call() throws InterruptedException {
    AgentConfig cfg = config.load();
    StandaloneAgent agent = StandaloneAgent.start(cfg);
    StopSignals signals = StopSignals.install();
    Thread hook = new Thread(agent::close, "gputop-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    String signal = signals.await();
    agent.close(signal);
    Runtime.getRuntime().removeShutdownHook(hook);
    return ExitCodes.OK;
  }
}
