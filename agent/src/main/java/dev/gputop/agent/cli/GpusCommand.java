package dev.gputop.agent.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gputop.agent.runtime.Json;
import dev.gputop.config.AgentConfig;
import dev.gputop.config.internal.TerminalText;
import dev.gputop.nvml.GpuEntries;
import dev.gputop.nvml.GpuEntry;
import dev.gputop.nvml.GpuProcessEntry;
import dev.gputop.nvml.GpuSample;
import dev.gputop.nvml.Nvml;
import dev.gputop.nvml.NvmlUnavailableException;
import dev.gputop.nvml.ProcessNames;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpus [--json]}: reads every GPU once through NVML and prints it with its processes, like a
 * small nvidia-smi. {@code --json} prints {@code {"driverVersion": ..., "gpus": [...]}} with the
 * same {@code gpus[]} records as {@code /api/snapshot} ({@code server} is null here: no inference
 * receiver runs).
 *
 * <p>Exit codes (README.md "Exit codes"): 0 when NVML answered (also with no GPU); 4 when NVML is unavailable (the library
 * is missing or can't be initialized: an I/O failure), with "NVML unavailable:
 * REASON" on stderr and, with {@code --json}, {@code {"gpus": [], "unavailable": REASON}} on stdout
 * so scripts still get a document; 1 for a bad configuration.
 */
@Command(
    name = "gpus",
    mixinStandardHelpOptions = true,
    description = {
      "Read every GPU once through NVML and print it with its processes, like a small nvidia-smi.",
      "%nUses nvml.library from --config. Exit 4 when NVML is unavailable (no driver, no GPU access)."
    })
final class GpusCommand implements Callable<Integer> {

  @Mixin ConfigMixin config;

  @Option(names = "--json", description = "Print JSON: {\"driverVersion\", \"gpus\": [...]}, gpus[] as in /api/snapshot.")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    AgentConfig cfg = config.load();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    GpuSample sample;
    String library;
    try (Nvml nvml = Nvml.open(cfg.nvml().library())) {
      sample = nvml.sample();
      library = nvml.libraryFile();
    } catch (NvmlUnavailableException e) {
      err.println("NVML unavailable: " + TerminalText.value(e.getMessage()));
      err.flush();
      if (json) {
        ObjectNode doc = Json.MAPPER.createObjectNode();
        doc.putArray("gpus");
        doc.put("unavailable", e.getMessage());
        out.println(Json.PRINTER.writeValueAsString(doc));
        out.flush();
      }
      return ExitCodes.IO;
    }
    List<GpuEntry> gpus = GpuEntries.of(sample, null, new ProcessNames());
    if (json) {
      ObjectNode doc = Json.MAPPER.createObjectNode();
      doc.put("driverVersion", sample.driverVersion());
      doc.set("gpus", Json.MAPPER.valueToTree(gpus));
      out.println(Json.PRINTER.writeValueAsString(doc));
    } else {
      out.print(table(sample.driverVersion(), library, gpus));
    }
    out.flush();
    return ExitCodes.OK;
  }

  /** The text form: one line per GPU, then one per process. */
  static String table(String driverVersion, String library, List<GpuEntry> gpus) {
    StringBuilder s = new StringBuilder();
    s.append("NVML driver ").append(orNa(driverVersion)).append("  (").append(orNa(library)).append(")\n");
    if (gpus.isEmpty()) {
      return s.append("No NVIDIA GPU found.\n").toString();
    }
    String gpuFormat = "%-5s %-28s %-42s %-16s %5s %21s %8s %5s  %s%n";
    s.append(String.format(Locale.ROOT, gpuFormat,
        "GPU", "NAME", "UUID", "BUS ID", "UTIL", "MEMORY USED / TOTAL", "POWER", "TEMP", "STATE"));
    for (GpuEntry g : gpus) {
      String memory = mib(g.memoryUsedBytes()) + " / " + mib(g.memoryTotalBytes()) + " MiB";
      String state = TerminalText.value(g.error() == null ? g.state() : g.state() + ": " + g.error());
      s.append(String.format(Locale.ROOT, gpuFormat,
          id(g), truncate(orNa(g.name()), 28), orNa(g.uuid()), orNa(g.pciBusId()),
          g.utilization() == null ? "N/A" : Math.round(g.utilization() * 100) + "%",
          memory,
          g.powerWatts() == null ? "N/A" : String.format(Locale.ROOT, "%.0f W", g.powerWatts()),
          g.temperatureCelsius() == null ? "N/A" : g.temperatureCelsius() + "C",
          state));
    }
    s.append('\n');
    String processFormat = "%-5s %-9s %-20s %14s %6s%n";
    s.append(String.format(Locale.ROOT, processFormat, "GPU", "PID", "NAME", "GPU MEMORY", "SM"));
    boolean any = false;
    for (GpuEntry g : gpus) {
      for (GpuProcessEntry p : g.processes()) {
        any = true;
        s.append(String.format(Locale.ROOT, processFormat,
            id(g), p.pid(), truncate(orNa(p.name()), 20),
            p.usedMemoryBytes() == null ? "N/A" : mib(p.usedMemoryBytes()) + " MiB",
            p.utilization() == null ? "N/A" : Math.round(p.utilization() * 100) + "%"));
      }
    }
    if (!any) {
      s.append("No running compute processes.\n");
    }
    return s.toString();
  }

  /** The GPU column: the index, with {@code /N} for its MIG instance N. */
  private static String id(GpuEntry g) {
    return g.migIndex() == null ? Integer.toString(g.index()) : g.index() + "/" + g.migIndex();
  }

  private static String mib(Long bytes) {
    return bytes == null ? "N/A" : Long.toString(bytes / (1024 * 1024));
  }

  /** A value NVML reported (a name, a process's name), printable: escaped for the terminal. */
  private static String orNa(String s) {
    return s == null ? "N/A" : TerminalText.value(s);
  }

  private static String truncate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 1) + "~";
  }
}
