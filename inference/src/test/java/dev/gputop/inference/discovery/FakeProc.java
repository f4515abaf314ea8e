package dev.gputop.inference.discovery;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A fake procfs tree in a temp directory: stat, cmdline, cgroup and ns/net of made-up processes. */
final class FakeProc {

  static final String HOST_NET = "net:[4026531992]";

  final Path root;

  FakeProc(Path root) {
    this.root = root;
    netns("self", HOST_NET);
  }

  /** A process; the cmdline is written NUL-separated as the kernel does. */
  FakeProc process(long pid, long ppid, long startTime, String comm, String... argv) {
    return process(pid, ppid, startTime, 'S', comm, argv.length == 0 ? "" : String.join("\0", argv) + "\0");
  }

  /** A process with raw cmdline bytes (setproctitle padding, empty for kernel threads). */
  FakeProc process(long pid, long ppid, long startTime, char state, String comm, String rawCmdline) {
    Path dir = root.resolve(Long.toString(pid));
    try {
      Files.createDirectories(dir.resolve("ns"));
      Files.writeString(dir.resolve("stat"),
          pid + " (" + comm + ") " + state + " " + ppid + " " + ppid + " " + ppid
              + " 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 " + startTime + " 1000 200\n");
      Files.write(dir.resolve("cmdline"), rawCmdline.getBytes(StandardCharsets.UTF_8));
      if (!Files.exists(dir.resolve("cgroup"))) {
        Files.writeString(dir.resolve("cgroup"), "0::/user.slice/user-1000.slice/session-4.scope\n");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  FakeProc cgroup(long pid, String text) {
    try {
      Files.writeString(root.resolve(Long.toString(pid)).resolve("cgroup"), text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  FakeProc netns(String pidOrSelf, String link) {
    try {
      Path ns = root.resolve(pidOrSelf).resolve("ns");
      Files.createDirectories(ns);
      Files.deleteIfExists(ns.resolve("net"));
      Files.createSymbolicLink(ns.resolve("net"), Path.of(link));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  FakeProc exit(long pid) {
    try (var walk = Files.walk(root.resolve(Long.toString(pid)))) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }
}
