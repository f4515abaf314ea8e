package dev.gputop.agent.cli;

import dev.gputop.agent.runtime.Json;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.DiscoveryConfig;
import dev.gputop.config.internal.TerminalText;
import dev.gputop.config.services.GpuProcess;
import dev.gputop.config.services.GpuProcessSource;
import dev.gputop.inference.discovery.DiscoveredServer;
import dev.gputop.inference.discovery.DiscoveryResult;
import dev.gputop.inference.discovery.ProcessDiscovery;
import dev.gputop.inference.discovery.SkippedProcess;
import dev.gputop.nvml.Nvml;
import dev.gputop.nvml.NvmlUnavailableException;
import dev.gputop.receiver.Clock;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gputop-agent discover}: one discovery pass, printed as a table (servers with how each was
 * found, then skipped processes with the reason, then notes) or as the {@link DiscoveryResult} in
 * JSON. Runs with the same configuration as {@code run}, so it shows exactly what the agent would
 * scrape.
 */
@Command(
    name = "discover",
    mixinStandardHelpOptions = true,
    description = "Find inference servers on this host once and print what was found, how, and what was skipped and why.")
final class DiscoverCommand implements Callable<Integer> {

  @Mixin ConfigMixin config;

  @Option(names = "--json", description = "Print the result as JSON.")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    AgentConfig cfg = config.load();
    DiscoveryConfig dc = cfg.inference().discovery();
    GpuProcessSource gpus = dc.enabled() ? gpuProcesses(cfg) : null;
    DiscoveryResult result;
    try (ProcessDiscovery discovery = ProcessDiscovery.withGpuSource(dc, cfg.kubernetes(), gpus, Clock.system())
        .withProfiles(dev.gputop.inference.engine.UserProfiles.load(cfg.inference().engines()))) {
      result = discovery.discover();
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(Json.PRINTER.writeValueAsString(result));
    } else {
      out.print(table(result, dc));
    }
    out.flush();
    return ExitCodes.OK;
  }

  /**
   * The processes on each GPU from one NVML sample (the {@code gpus} command's reading), or a
   * source that says why there are none; discovery turns that into its note.
   */
  private static GpuProcessSource gpuProcesses(AgentConfig cfg) {
    if (!cfg.nvml().enabled()) {
      return new SampledGpuProcesses(List.of(), "nvml.enabled is false");
    }
    try (Nvml nvml = Nvml.open(cfg.nvml().library())) {
      return new SampledGpuProcesses(nvml.sample().processes(), null);
    } catch (NvmlUnavailableException e) {
      return new SampledGpuProcesses(List.of(), e.getMessage());
    }
  }

  /** A fixed list of GPU processes from one sample. Immutable. */
  private record SampledGpuProcesses(List<GpuProcess> gpuProcesses, String unavailableReason)
      implements GpuProcessSource {
    @Override
    public boolean available() {
      return unavailableReason == null;
    }
  }

  /** The human-readable report. */
  static String table(DiscoveryResult r, DiscoveryConfig dc) {
    StringBuilder b = new StringBuilder();
    b.append("scope: ").append(dc.scope().name().toLowerCase()).append(", procfs: ").append(dc.procRoot()).append('\n');
    if (r.servers().isEmpty()) {
      b.append("\nno inference servers found\n");
    } else {
      b.append('\n');
      List<String[]> rows = new ArrayList<>();
      rows.add(new String[] {"SERVER", "ENGINE", "URL", "GPUS", "PIDS"});
      for (DiscoveredServer s : r.servers()) {
        rows.add(new String[] {
          s.name(), s.engine(), s.url().toString(), s.gpus().isEmpty() ? "-" : join(s.gpus()), join(s.pids())
        });
      }
      int[] w = widths(rows);
      for (int i = 0; i < rows.size(); i++) {
        b.append(row(rows.get(i), w)).append('\n');
        if (i > 0) {
          DiscoveredServer s = r.servers().get(i - 1);
          b.append("    command: ").append(TerminalText.value(s.command())).append('\n');
          b.append("    how:     ").append(TerminalText.value(s.how())).append('\n');
          if (s.containerId() != null) {
            b.append("    container: ").append(TerminalText.value(s.containerId())).append('\n');
          }
        }
      }
    }
    if (!r.skipped().isEmpty()) {
      b.append("\nskipped:\n");
      List<String[]> rows = new ArrayList<>();
      rows.add(new String[] {"PID", "COMMAND", "REASON"});
      for (SkippedProcess s : r.skipped()) {
        rows.add(new String[] {Long.toString(s.pid()), abbreviate(s.command(), 60), s.reason()});
      }
      int[] w = widths(rows);
      for (String[] row : rows) {
        b.append(row(row, w)).append('\n');
      }
    }
    if (!r.notes().isEmpty()) {
      b.append("\nnotes:\n");
      for (String n : r.notes()) {
        b.append("  - ").append(TerminalText.value(n)).append('\n');
      }
    }
    return b.toString();
  }

  /** Widths of the cells, each escaped for the terminal in place first (commands, names from /proc). */
  private static int[] widths(List<String[]> rows) {
    int[] w = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        row[i] = TerminalText.value(row[i]);
        w[i] = Math.max(w[i], row[i].length());
      }
    }
    return w;
  }

  private static String row(String[] cells, int[] w) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < cells.length; i++) {
      if (i > 0) {
        b.append("  ");
      }
      b.append(cells[i]);
      if (i < cells.length - 1) {
        b.append(" ".repeat(w[i] - cells[i].length()));
      }
    }
    return b.toString();
  }

  private static String join(List<? extends Number> values) {
    return values.stream().map(String::valueOf).collect(Collectors.joining(","));
  }

  private static String abbreviate(String s, int max) {
    return s == null ? "" : s.length() <= max ? s : s.substring(0, max - 1) + "…";
  }
}
