package dev.gputop.agent.cli;

import dev.gputop.agent.runtime.Json;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.Endpoint;
import dev.gputop.config.internal.TerminalText;
import dev.gputop.config.ScrapeConfig;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.EngineProfiles;
import dev.gputop.inference.engine.ProfileDescriptions;
import dev.gputop.inference.engine.UserProfiles;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionFormatException;
import dev.gputop.inference.scrape.ScrapeResult;
import dev.gputop.inference.scrape.UnreadableBody;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code gputop-agent engines}: the engine profiles in use (built in, and the user's from {@code
 * inference.engines.*}) in recognition order, with what each maps: prefixes, label rules, each
 * concept's sources in preference order with their versions, and the discovery rule. With {@code
 * --check --url URL}: scrapes one endpoint and reports how well its profile still fits it
 * ({@link EngineCheck}), on one screen, to paste into a bug report.
 */
@Command(
    name = "engines",
    mixinStandardHelpOptions = true,
    description = "List the engine profiles in use and what each maps (concepts to metrics, label rules, discovery);"
        + " with --check --url URL, report whether a server's metrics still fit its profile.")
final class EnginesCommand implements Callable<Integer> {

  @Mixin ConfigMixin config;

  @Option(names = "--json", description = "Print the profiles as JSON.")
  boolean json;

  @Option(names = "--check", description = "Scrape --url once and report the engine's families no rule reads and the"
      + " values its version should have but doesn't export (drift).")
  boolean check;

  @Option(names = "--url", paramLabel = "URL", description = "The metrics URL to check, e.g. http://127.0.0.1:8000/metrics.")
  URI url;

  @Option(names = "--timeout", paramLabel = "D", converter = DurationConverter.class,
      description = "How long the check's scrape may take (default: 10s).")
  Duration timeout = Duration.ofSeconds(10);

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (check != (url != null)) {
      throw new ParameterException(spec.commandLine(), "--check and --url go together: engines --check --url URL");
    }
    AgentConfig cfg = config.load();
    EngineProfiles profiles = UserProfiles.load(cfg.inference().engines());
    PrintWriter out = spec.commandLine().getOut();
    if (check) {
      return check(cfg, profiles, out, spec.commandLine().getErr());
    }
    if (json) {
      out.println(Json.PRINTER.writeValueAsString(ProfileDescriptions.tree(profiles)));
    } else {
      out.print(ProfileDescriptions.text(profiles));
    }
    out.flush();
    return ExitCodes.OK;
  }

  private int check(AgentConfig cfg, EngineProfiles profiles, PrintWriter out, PrintWriter err) {
    Endpoint endpoint;
    try {
      endpoint = OneScrape.endpoint(cfg, url, "check");
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--url " + e.getMessage());
    }
    ScrapeConfig s = cfg.inference().scrape();
    s = s.toBuilder().timeout(timeout).build();
    ScrapeResult result = OneScrape.scrape(s, endpoint);
    if (!result.ok()) {
      err.println("engines --check: can't scrape " + TerminalText.value(url.toString()) + ": "
          + TerminalText.value(result.error()));
      err.flush();
      return ExitCodes.IO;
    }
    Exposition exposition;
    try {
      exposition = OneScrape.parse(s, result);
    } catch (ExpositionFormatException e) {
      err.println("engines --check: " + TerminalText.value(url.toString()) + ": "
          + TerminalText.value(UnreadableBody.message(result, e)));
      err.flush();
      return ExitCodes.IO;
    }
    // Family and label names are the server's: a hostile one can't move the cursor.
    out.print(TerminalText.lines(EngineCheck.report(url, result.length(), exposition, new EngineMapper(profiles))));
    out.flush();
    return ExitCodes.OK;
  }
}
