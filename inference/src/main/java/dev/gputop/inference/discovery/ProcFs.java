package dev.gputop.inference.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the few files of a procfs that discovery needs, from a configurable root (the host's /proc
 * may be mounted at /host/proc, and tests point it at a fake tree). Every read is one small file;
 * a process that exits mid-scan shows up as {@code null} results, never as an exception.
 *
 * <p>Stateless and thread-safe.
 */
class ProcFs {

  private final Path root;

  ProcFs(Path root) {
    this.root = root;
  }

  Path root() {
    return root;
  }

  /** The numeric entries of the procfs root, i.e. every visible process. */
  List<Long> pids() throws IOException {
    List<Long> pids = new ArrayList<>();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(root)) {
      for (Path p : dir) {
        long pid = parsePid(p.getFileName().toString());
        if (pid > 0) {
          pids.add(pid);
        }
      }
    }
    return pids;
  }

  /** {@code /proc/PID/stat}, or null when the process is gone or the file can't be read. */
  Stat stat(long pid) {
    byte[] bytes = read(pid, "stat");
    return bytes == null ? null : Stat.parse(pid, new String(bytes, StandardCharsets.UTF_8));
  }

  /** {@code /proc/PID/cmdline}: its arguments, or why there are none. */
  Cmdline cmdline(long pid) {
    try {
      return Cmdline.parse(Files.readAllBytes(root.resolve(Long.toString(pid)).resolve("cmdline")));
    } catch (NoSuchFileException e) {
      return Cmdline.GONE;
    } catch (AccessDeniedException e) {
      return Cmdline.UNREADABLE;
    } catch (IOException | RuntimeException e) {
      // ESRCH and friends surface as plain IOExceptions when the process exits during the read.
      return Cmdline.GONE;
    }
  }

  /** {@code /proc/PID/cgroup} as text, or null when it can't be read. */
  String cgroup(long pid) {
    byte[] bytes = read(pid, "cgroup");
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * The network namespace of a process ({@code net:[4026531992]}), or null when it can't be read
   * (reading another user's namespace links needs root or CAP_SYS_PTRACE).
   */
  String netNamespace(String pidOrSelf) {
    try {
      return Files.readSymbolicLink(root.resolve(pidOrSelf).resolve("ns").resolve("net")).toString();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return null;
    }
  }

  /** One variable of {@code /proc/PID/environ}, or null when unset or unreadable. */
  String environ(long pid, String name) {
    byte[] bytes = read(pid, "environ");
    if (bytes == null) {
      return null;
    }
    String prefix = name + "=";
    for (String entry : new String(bytes, StandardCharsets.UTF_8).split("\0")) {
      if (entry.startsWith(prefix)) {
        return entry.substring(prefix.length());
      }
    }
    return null;
  }

  private byte[] read(long pid, String file) {
    try {
      return Files.readAllBytes(root.resolve(Long.toString(pid)).resolve(file));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  static long parsePid(String name) {
    if (name.isEmpty() || name.length() > 10) {
      return -1;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    return Long.parseLong(name);
  }

  /**
   * The fields of {@code /proc/PID/stat} discovery uses.
   *
   * @param pid the process
   * @param comm the kernel's short name (15 bytes; setproctitle may rename it)
   * @param state R, S, D, Z (zombie), ...
   * @param ppid the parent
   * @param startTime field 22, clock ticks after boot: with the pid it identifies a process
   *     across PID reuse
   */
  record Stat(long pid, String comm, char state, long ppid, long startTime) {

    /** Parses the line; the comm may contain spaces and parentheses, so fields count from the last ')'. */
    static Stat parse(long pid, String text) {
      int open = text.indexOf('(');
      int close = text.lastIndexOf(')');
      if (open < 0 || close < open) {
        return null;
      }
      String comm = text.substring(open + 1, close);
      String[] f = text.substring(close + 1).trim().split("\\s+");
      // After the comm: f[0] = field 3 (state), f[1] = field 4 (ppid), f[19] = field 22 (starttime).
      if (f.length < 20 || f[0].isEmpty()) {
        return null;
      }
      try {
        return new Stat(pid, comm, f[0].charAt(0), Long.parseLong(f[1]), Long.parseLong(f[19]));
      } catch (NumberFormatException e) {
        return null;
      }
    }

    boolean zombie() {
      return state == 'Z' || state == 'X' || state == 'x';
    }
  }

  /**
   * A command line as the kernel shows it.
   *
   * @param argv the arguments; empty for kernel threads and zombies
   * @param status why argv may be empty
   */
  record Cmdline(List<String> argv, Status status) {

    enum Status {
      OK,
      EMPTY,
      UNREADABLE,
      GONE
    }

    static final Cmdline GONE = new Cmdline(List.of(), Status.GONE);
    static final Cmdline UNREADABLE = new Cmdline(List.of(), Status.UNREADABLE);

    Cmdline {
      argv = List.copyOf(argv);
    }

    /**
     * Splits on NUL. A process that rewrote its argv with setproctitle (vLLM's {@code
     * VLLM::EngineCore}, SGLang's {@code sglang::scheduler_TP0}) shows one string padded with
     * spaces or NULs: that single string is split on whitespace so titles and flags still read.
     */
    static Cmdline parse(byte[] bytes) {
      List<String> args = new ArrayList<>();
      int start = 0;
      for (int i = 0; i <= bytes.length; i++) {
        if (i == bytes.length || bytes[i] == 0) {
          if (i > start) {
            args.add(new String(bytes, start, i - start, StandardCharsets.UTF_8));
          }
          start = i + 1;
        }
      }
      if (args.size() == 1) {
        String only = args.get(0).strip();
        if (only.isEmpty()) {
          return new Cmdline(List.of(), Status.EMPTY);
        }
        if (only.indexOf(' ') >= 0) {
          return new Cmdline(List.of(only.split("\\s+")), Status.OK);
        }
        return new Cmdline(List.of(only), Status.OK);
      }
      return new Cmdline(args, args.isEmpty() ? Status.EMPTY : Status.OK);
    }

    /** The command line joined by spaces, cut at {@code max} characters, for display. */
    String display(int max) {
      String s = String.join(" ", argv);
      return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
  }
}
