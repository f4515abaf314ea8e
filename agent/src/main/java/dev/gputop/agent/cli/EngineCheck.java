package dev.gputop.agent.cli;

import dev.gputop.inference.engine.Concept;
import dev.gputop.inference.engine.Drift;
import dev.gputop.inference.engine.EngineMapper;
import dev.gputop.inference.engine.EngineProfile;
import dev.gputop.inference.engine.Explanation;
import dev.gputop.inference.engine.ServerScrape;
import dev.gputop.inference.parse.Exposition;
import dev.gputop.inference.parse.MetricFamily;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The report of {@code gputop-agent engines --check --url URL}: what one scrape says about how
 * well the engine's profile still fits it, on one screen, to paste into a bug report. The engine
 * and profile, the concepts read and those N/A, the engine's families no rule reads, the concepts
 * a server of that version should export but doesn't (with the name expected), and a verdict.
 * Every list is bounded. Stateless.
 */
final class EngineCheck {

  /** At most this many family names of an unrecognized endpoint are listed. */
  static final int MAX_FAMILIES = 10;

  private EngineCheck() {}

  /** The report for one scrape of {@code url} ({@code bytes} long, parsed into {@code exposition}). */
  static String report(URI url, int bytes, Exposition exposition, EngineMapper mapper) {
    Explanation explanation = Explanation.of(exposition, mapper);
    ServerScrape scrape = mapper.map(exposition);
    EngineProfile profile = explanation.profile();
    StringBuilder sb = new StringBuilder();
    sb.append("gputop-agent engines --check ").append(url).append('\n');
    sb.append("scraped: ").append(bytes).append(" bytes, ").append(exposition.families().size())
        .append(" families, ").append(exposition.sampleCount()).append(" samples\n");
    if (profile == null) {
      sb.append("engine: unknown: no profile's prefixes or markers start any family name\n");
      List<MetricFamily> families = exposition.families();
      sb.append("families (first ").append(Math.min(MAX_FAMILIES, families.size())).append(" of ")
          .append(families.size()).append("):");
      for (int i = 0; i < families.size() && i < MAX_FAMILIES; i++) {
        sb.append(i == 0 ? " " : ", ").append(families.get(i).name());
      }
      sb.append('\n');
      sb.append("verdict: not recognized; if this is an inference server, its engine needs a profile"
          + " (docs/engines/README.md)\n");
      return sb.toString();
    }
    sb.append("engine: ").append(profile.engine().id()).append(" (").append(profile.name()).append(", ")
        .append(profile.origin()).append(")\n");
    List<String> read = new ArrayList<>();
    List<String> na = new ArrayList<>();
    for (Concept c : profile.concepts().keySet()) {
      (scrape.get(c) != null ? read : na).add(c.key());
    }
    sb.append("read: ").append(read.size()).append(" of ").append(profile.concepts().size())
        .append(" concepts the profile maps").append(read.isEmpty() ? "" : ": " + String.join(", ", read)).append('\n');
    sb.append("N/A: ").append(na.isEmpty() ? "none" : String.join(", ", na)).append('\n');
    Drift d = scrape.drift();
    sb.append("unread families (the engine's, no rule reads them): ").append(d.unreadCount()).append('\n');
    for (String name : d.unread()) {
      sb.append("  ").append(name).append('\n');
    }
    if (d.unreadCount() > d.unread().size()) {
      sb.append("  … and ").append(d.unreadCount() - d.unread().size()).append(" more\n");
    }
    sb.append("missing (expected from this version, not exported): ").append(d.missing().size()).append('\n');
    for (Drift.Missing m : d.missing()) {
      sb.append("  ").append(m.describe()).append('\n');
    }
    if (!d.duplicates().isEmpty()) {
      sb.append("skipped as a wrapper's duplicates: ").append(String.join(", ", d.duplicates())).append('\n');
    }
    sb.append(d.isEmpty()
        ? "verdict: the profile fits this server\n"
        : "verdict: the engine has moved on from its profile: paste this report into an issue, or add the new"
            + " names to a profile (docs/engines/README.md)\n");
    return sb.toString();
  }
}
