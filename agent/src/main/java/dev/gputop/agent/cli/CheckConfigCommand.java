package dev.gputop.agent.cli;

import dev.gputop.config.AgentConfig;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code check-config}: loads and validates the configuration, prints the effective configuration
 * (every key with its default filled in, header values redacted) and exits 0, or exits 1 with a
 * message naming the key and line. Settings that load but won't work as meant ({@link
 * ConfigWarnings}) are warned about on stderr; they don't change the exit code.
 */
@Command(
    name = "check-config",
    mixinStandardHelpOptions = true,
    description = {
      "Validate the configuration and print the effective configuration.",
      "%nDefaults are filled in and secrets redacted; warnings (a scrape timeout as long as the refresh,"
          + " a credential file that can't be read) go to stderr. Exit 0 when valid, 1 with the key and"
          + " line when not, 4 when the file can't be read."
    })
final class CheckConfigCommand implements Callable<Integer> {

  @Mixin ConfigMixin config;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    AgentConfig cfg = config.load();
    cfg.listener().validate();
    // Engine profiles of the user's are configuration too: a bad one fails here, not at start.
    dev.gputop.inference.engine.UserProfiles.load(cfg.inference().engines());
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    List<String> warnings = ConfigWarnings.of(cfg);
    for (String w : warnings) {
      err.println("warning: " + w);
    }
    err.flush();
    out.println("# configuration OK" + (config.file() == null ? " (no file: defaults)" : ": " + config.file())
        + (warnings.isEmpty() ? "" : ", " + warnings.size() + (warnings.size() == 1 ? " warning" : " warnings")));
    out.print(EffectiveConfig.toYaml(cfg));
    out.flush();
    return ExitCodes.OK;
  }
}
