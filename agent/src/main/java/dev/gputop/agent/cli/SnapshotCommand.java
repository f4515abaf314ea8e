package dev.gputop.agent.cli;

import dev.gputop.agent.runtime.AgentRuntime;
import dev.gputop.agent.runtime.Json;
import dev.gputop.config.AgentConfig;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code snapshot --for D}: runs the receivers for D (refreshing every {@code refresh.normal}), then
 * prints one JSON snapshot, the same document as {@code /api/snapshot}, and exits. Nothing is
 * exported and no listener is opened, so it can run beside a running agent.
 */
@Command(
    name = "snapshot",
    mixinStandardHelpOptions = true,
    description = {
      "Run the receivers for a while, print one JSON snapshot and exit.",
      "%nThe document is the one /api/snapshot serves (docs/json-schema.md). Rates and percentiles"
          + " need two scrapes, so D should be at least refresh.normal. Opens no listener, exports nothing."
    })
final class SnapshotCommand implements Callable<Integer> {

  @Mixin ConfigMixin config;

  @Option(
      names = "--for",
      paramLabel = "D",
      converter = DurationConverter.class,
      description = "How long to run the receivers, e.g. 10s (default: twice refresh.normal).")
  Duration duration;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    AgentConfig cfg = config.load();
    Duration runFor = duration != null ? duration : cfg.refreshNormal().multipliedBy(2);
    try (AgentRuntime runtime = AgentRuntime.builder(cfg).build()) {
      runtime.start();
      Thread.sleep(runFor.toMillis());
      // Let a refresh in flight finish so the snapshot holds its result.
      runtime.stopRefreshing(cfg.inference().scrape().timeout().plusSeconds(1));
      PrintWriter out = spec.commandLine().getOut();
      out.println(Json.PRINTER.writeValueAsString(runtime.snapshot()));
      out.flush();
    }
    return ExitCodes.OK;
  }
}
