package dev.gputop.agent;

import dev.gputop.config.AgentConfig;
import dev.gputop.config.internal.TerminalText;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.Explanation;
import dev.gputop.inference.engine.UserProfiles;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.ExpositionFormatException;
import dev.gputop.inference.parse.ExpositionParser;
import dev.gputop.inference.parse.ParserLimits;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gputop-agent explain --url URL}: scrapes one endpoint once and prints, for every concept,
 * the source series that fed it (name, labels, value, the rule that read, summed or skipped it)
 * or why none did. The first thing to run when a number looks wrong.
 */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = "Scrape one metrics URL and show, for each value, which series fed it and by which rule, or why none did.")
public final class ExplainCommand implements Callable<Integer> {

  @Mixin ConfigMixin config;

  @Option(names = "--url", required = true, paramLabel = "URL", description = "The metrics URL, e.g. http://127.0.0.1:8000/metrics.")
  URI url;

  @Option(names = "--timeout", paramLabel = "D", converter = DurationConverter.class,
      description = "How long the scrape may take (default: 10s).")
  Duration timeout = Duration.ofSeconds(10);

  @Option(names = "--json", description = "Print the explanation as JSON.")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    AgentConfig cfg = config.load();
    EngineMapper mapper = new EngineMapper(UserProfiles.load(cfg.inference().engines()));
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!"http".equalsIgnoreCase(url.getScheme()) && !"https".equalsIgnoreCase(url.getScheme())) {
      err.println("explain: the URL must be http or https: " + TerminalText.value(url.toString()));
      err.flush();
      return ExitCodes.CONFIG;
    }
    byte[] body;
    try {
      HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
      HttpResponse<byte[]> response = client.send(
          HttpRequest.newBuilder(url).timeout(timeout)
              .header("Accept", "text/plain;version=0.0.4, application/openmetrics-text;q=0.5, */*;q=0.1")
              .GET().build(),
          HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() != 200) {
        err.println("explain: " + TerminalText.value(url.toString()) + " answered HTTP " + response.statusCode());
        err.flush();
        return ExitCodes.IO;
      }
      body = response.body();
    } catch (IOException e) {
      err.println("explain: can't scrape " + TerminalText.value(url.toString()) + ": " + TerminalText.value(e.toString()));
      err.flush();
      return ExitCodes.IO;
    }
    Exposition exposition;
    try {
      exposition = new ExpositionParser(ParserLimits.defaults()).parse(body, 0, body.length);
    } catch (ExpositionFormatException e) {
      err.println("explain: malformed exposition from " + TerminalText.value(url.toString()) + ": " + TerminalText.value(e.getMessage()));
      err.flush();
      return ExitCodes.IO;
    }
    Explanation explanation = Explanation.of(exposition, mapper);
    if (json) {
      out.println(Json.PRINTER.writeValueAsString(explanation.tree()));
    } else {
      out.println("scraped " + TerminalText.value(url.toString()) + ": " + body.length + " bytes, " + exposition.families().size()
          + " families, " + exposition.sampleCount() + " samples");
      out.print(TerminalText.lines(explanation.text()));
    }
    out.flush();
    return ExitCodes.OK;
  }
}
