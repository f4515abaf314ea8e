package dev.gputop.benchmarks.scale;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the harness reads about a process from outside it, so that the measured process runs
 * exactly as shipped (no agent, no JMX inside it): CPU time and memory from {@code /proc}, and for
 * a JVM the bytes each thread allocated ({@code jcmd Thread.print -e}) and the live heap after a
 * full GC ({@code jcmd GC.class_histogram}, which collects first). Linux only.
 */
final class ProcessProbe {

  /** Clock ticks per second of {@code /proc/PID/stat}; 100 on every Linux the harness targets. */
  static final double CLK_TCK = 100.0;

  private static final Pattern THREAD = Pattern.compile(
      "^\"(.*)\" #\\d+.* cpu=([0-9.]+)ms .*allocated=([0-9.]+)([BKMG]) .*tid=(0x[0-9a-f]+)");
  private static final Pattern TOTAL = Pattern.compile("^Total\\s+(\\d+)\\s+(\\d+)");

  private ProcessProbe() {}

  /** User plus system CPU seconds of the whole process (every thread). */
  static double cpuSeconds(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // After "pid (comm) ": state is field 3, utime 14 and stime 15 (1-based).
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / CLK_TCK;
  }

  /** A {@code VmRSS}-style line of {@code /proc/PID/status}, in bytes. */
  static long statusBytes(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith(field + ":")) {
        String[] p = line.substring(field.length() + 1).trim().split("\\s+");
        return Long.parseLong(p[0]) * 1024;
      }
    }
    return -1;
  }

  /** One JVM thread as {@code Thread.print -e} shows it. */
  record ThreadUse(String name, double cpuMillis, long allocatedBytes) {}

  /** Every live thread of a JVM by its tid, with its CPU time and the bytes it allocated. */
  static Map<String, ThreadUse> threads(long pid) throws IOException {
    Map<String, ThreadUse> out = new HashMap<>();
    for (String line : jcmd(pid, "Thread.print", "-e").split("\n")) {
      Matcher m = THREAD.matcher(line);
      if (m.find()) {
        double v = Double.parseDouble(m.group(3));
        long unit = switch (m.group(4)) {
          case "K" -> 1L << 10;
          case "M" -> 1L << 20;
          case "G" -> 1L << 30;
          default -> 1;
        };
        out.put(m.group(5), new ThreadUse(m.group(1), Double.parseDouble(m.group(2)),
            (long) (v * unit)));
      }
    }
    return out;
  }

  /** Bytes of live objects after a full GC; the class histogram is written to {@code save}. */
  static long liveHeapBytes(long pid, Path save) throws IOException {
    String histogram = jcmd(pid, "GC.class_histogram");
    Files.writeString(save, histogram);
    String[] lines = histogram.split("\n");
    for (int i = lines.length - 1; i >= 0; i--) {
      Matcher m = TOTAL.matcher(lines[i].trim());
      if (m.find()) {
        return Long.parseLong(m.group(2));
      }
    }
    throw new IOException("no Total line in GC.class_histogram: " + histogram);
  }

  static String jcmd(long pid, String... command) throws IOException {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    List<String> cmd = new java.util.ArrayList<>(List.of(jcmd, Long.toString(pid)));
    cmd.addAll(List.of(command));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("jcmd " + String.join(" ", command) + " did not finish");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
    return new String(out, StandardCharsets.UTF_8);
  }
}
