package dev.gputop.agent.cli;

import dev.gputop.agent.runtime.Json;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.Endpoint;
import dev.gputop.config.ScrapeConfig;
import dev.gputop.config.internal.TerminalText;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.Explanation;
import dev.gputop.inference.engine.UserProfiles;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionFormatException;
import dev.gputop.inference.scrape.HttpScraper;
import dev.gputop.inference.scrape.ScrapeResult;
import dev.gputop.inference.scrape.UnreadableBody;
import dev.gputop.inference.stats.ConceptResult;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code gputop-agent explain --url URL}: scrapes one endpoint once, through the scraper {@code
 * run} uses ({@link HttpScraper}: the same headers, bearer token, TLS, limits and error texts;
 * an endpoint of {@code --config} with this URL lends its headers, token and TLS), and prints,
 * for every concept, the source series that fed it (name, labels, value, the rule that read or
 * skipped it) or why none did, then how the agent combines the series read and the value it
 * reports ({@link ConceptResult}). The first thing to run when a number looks wrong.
 *
 * <p>Its printing is in two places: {@link #fail} for the one-line errors, and the end of {@link
 * #call} for the result.
 */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = {
      "Scrape one metrics URL and show, for each value, which series fed it and by which rule, or why none did.",
      "%nThen how the agent combines them (sum, max) and the value it reports. The scrape is run's own: an"
          + " endpoint of --config with this URL lends its headers, bearer token and TLS, and inference.scrape.*"
          + " its limits. Exit 4 when the URL can't be scraped or read."
    })
final class ExplainCommand implements Callable<Integer> {

  @Mixin ConfigMixin config;

  @Option(names = "--url", required = true, paramLabel = "URL", description = "The metrics URL, e.g. http://127.0.0.1:8000/metrics.")
  URI url;

  @Option(names = "--timeout", paramLabel = "D", converter = DurationConverter.class,
      description = "How long the scrape may take (default: inference.scrape.timeout, 2s).")
  Duration timeout;

  @Option(names = "--json", description = "Print the explanation as JSON.")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    AgentConfig cfg = config.load();
    EngineMapper mapper = new EngineMapper(UserProfiles.load(cfg.inference().engines()));
    Endpoint endpoint;
    try {
      endpoint = OneScrape.endpoint(cfg, url, ADHOC);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--url " + e.getMessage());
    }
    ScrapeConfig s = cfg.inference().scrape();
    if (timeout != null) {
      s = s.toBuilder().timeout(timeout).build();
    }
    ScrapeResult result = OneScrape.scrape(s, endpoint);
    if (!result.ok()) {
      return fail("can't scrape " + url + ": " + result.error());
    }
    Exposition exposition;
    try {
      exposition = OneScrape.parse(s, result);
    } catch (ExpositionFormatException e) {
      return fail("can't read " + url + ": " + UnreadableBody.message(result, e));
    }
    Explanation explanation = Explanation.of(exposition, mapper);
    List<ConceptResult> results = explanation.profile() == null ? List.of() : ConceptResult.of(mapper.map(exposition));
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> tree = new LinkedHashMap<>(explanation.tree());
      List<Map<String, String>> values = new java.util.ArrayList<>();
      for (ConceptResult r : results) {
        values.add(Map.of("concept", r.concept().key(), "combined", r.combined(), "value", r.value()));
      }
      tree.put("results", values);
      out.println(Json.PRINTER.writeValueAsString(tree));
    } else {
      out.println("scraped " + TerminalText.value(url.toString()) + (endpoint.name().equals(ADHOC) ? "" : " (as endpoint " + TerminalText.value(endpoint.name()) + ")")
          + ": " + result.length() + " bytes, " + exposition.families().size()
          + " families, " + exposition.sampleCount() + " samples");
      out.print(TerminalText.lines(explanation.text()));
      out.print(TerminalText.lines(resultsText(results)));
    }
    out.flush();
    return ExitCodes.OK;
  }

  /** The name of an endpoint that is not in the configuration. */
  private static final String ADHOC = "explain";

  /** How each concept's series were combined and what the agent reports, one line each. */
  static String resultsText(List<ConceptResult> results) {
    if (results.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder("\nas the agent reports them (this scrape):\n");
    for (ConceptResult r : results) {
      sb.append(String.format("  %-20s %s; %s%n", r.concept().key(), r.combined(), r.value()));
    }
    return sb.toString();
  }

  private int fail(String message) {
    PrintWriter err = spec.commandLine().getErr();
    err.println("explain: " + TerminalText.value(message));
    err.flush();
    return ExitCodes.IO;
  }
}
