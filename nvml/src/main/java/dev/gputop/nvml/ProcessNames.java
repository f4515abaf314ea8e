package dev.gputop.nvml;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The executable name of a process ({@code /proc/PID/comm}), for {@code process.executable.name}
 * and the {@code gpus} command. Names are cached by PID and process start time ({@code
 * /proc/PID/stat} field 22), so a reused PID never inherits an old name; the cache is bounded
 * (least recently used entries go first). On hosts without procfs every name is null.
 *
 * <p>NVML reports host PIDs: inside a container this only finds names with {@code hostPID: true}
 * or the host's procfs mounted and passed as {@code procRoot} (docs/nvml.md, docs/discovery.md
 * "Containers and Kubernetes").
 *
 * <p>Thread-safe (synchronized); does a small procfs read per call.
 */
public final class ProcessNames {

  private static final int DEFAULT_CAPACITY = 1024;
  static final long REVALIDATE_SECONDS = 30;
  private static final long REVALIDATE_NANOS = TimeUnit.SECONDS.toNanos(REVALIDATE_SECONDS);

  private static final class Entry {
    final long startTime;
    final String name;
    long checkedAt;

    Entry(long startTime, String name, long checkedAt) {
      this.startTime = startTime;
      this.name = name;
      this.checkedAt = checkedAt;
    }
  }

  private final Path procRoot;
  private final LongSupplier nanoTime;
  private final Map<Long, Entry> cache;

  /** Reads {@code /proc}. */
  public ProcessNames() {
    this(Path.of("/proc"), DEFAULT_CAPACITY);
  }

  /**
   * @param procRoot the procfs mount to read, e.g. {@code /host/proc}
   * @param capacity how many processes to remember
   */
  public ProcessNames(Path procRoot, int capacity) {
    this(procRoot, capacity, System::nanoTime);
  }

  ProcessNames(Path procRoot, int capacity, LongSupplier nanoTime) {
    this.procRoot = procRoot;
    this.nanoTime = nanoTime;
    this.cache =
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<Long, Entry> eldest) {
            return size() > capacity;
          }
        };
  }

  /** The process's executable name, or null when the process is gone or procfs can't be read. */
  public synchronized String nameOf(long pid) {
    long now = nanoTime.getAsLong();
    Entry cached = cache.get(pid);
    if (cached != null && now - cached.checkedAt < REVALIDATE_NANOS) {
      return cached.name;
    }
    Path dir = procRoot.resolve(Long.toString(pid));
    String stat = firstLine(dir.resolve("stat"));
    if (stat == null) {
      // Not visible here (gone, or a container without the host's PID namespace): remember that
      // too, or every cycle would pay for a failed open.
      cache.put(pid, new Entry(-1, null, now));
      return null;
    }
    long startTime = startTime(stat);
    if (cached != null && cached.startTime == startTime) {
      cached.checkedAt = now;
      return cached.name;
    }
    String name = firstLine(dir.resolve("comm"));
    if (name == null) {
      return null;
    }
    cache.put(pid, new Entry(startTime, name, now));
    return name;
  }

  /** Forgets every PID not in {@code live} (the processes NVML lists now). */
  public synchronized void retain(Collection<Long> live) {
    cache.keySet().retainAll(live instanceof java.util.Set ? live : new HashSet<>(live));
  }

  /** Field 22 of /proc/PID/stat, counted after the command in parentheses (which may hold spaces). */
  static long startTime(String stat) {
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      return -1;
    }
    String[] fields = stat.substring(close + 1).trim().split(" ");
    // fields[0] is field 3 (state), so field 22 is fields[19].
    if (fields.length < 20) {
      return -1;
    }
    try {
      return Long.parseLong(fields[19]);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  // Files.readString trusts the size procfs reports (0) and can come back short; read lines.
  private static String firstLine(Path file) {
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return reader.readLine();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
