package dev.gputop.agent;

import dev.gputop.config.AgentConfig;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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
      "Refreshes the receivers every refresh.normal, exports over OTLP (OTEL_* settings) and serves",
      "/metrics, /api/snapshot and /healthz on the listen address. SIGTERM flushes and exits within 5 s."
    })
final class RunCommand implements Callable<Integer> {

  @Mixin ConfigMixin config;

  @Override
  public Integer call() throws InterruptedException {
    AgentConfig cfg = config.load();
    StandaloneAgent agent = StandaloneAgent.start(cfg);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  agent.close();
                  stopped.countDown();
                },
                "gputop-shutdown"));
    stopped.await(); // the JVM exits once the hook has run
    return ExitCodes.OK;
  }
}
