package dev.gputop.agent;

import dev.gputop.config.AgentConfig;
import dev.gputop.inference.engine.EngineProfiles;
import dev.gputop.inference.engine.ProfileDescriptions;
import dev.gputop.inference.engine.UserProfiles;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gputop-agent engines}: the engine profiles in use (built in, and the user's from {@code
 * inference.engines.*}) in recognition order, with what each maps: prefixes, label rules, each
 * concept's sources in preference order with their versions, and the discovery rule.
 */
@Command(
    name = "engines",
    mixinStandardHelpOptions = true,
    description = "List the engine profiles in use and what each maps (concepts to metrics, label rules, discovery).")
public final class EnginesCommand implements Callable<Integer> {

  @Mixin ConfigMixin config;

  @Option(names = "--json", description = "Print the profiles as JSON.")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    AgentConfig cfg = config.load();
    EngineProfiles profiles = UserProfiles.load(cfg.inference().engines());
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(Json.PRINTER.writeValueAsString(ProfileDescriptions.tree(profiles)));
    } else {
      out.print(ProfileDescriptions.text(profiles));
    }
    out.flush();
    return ExitCodes.OK;
  }
}
