package dev.gputop.inference.discovery;

import dev.gputop.config.DiscoveryConfig;
import dev.gputop.config.KubernetesConfig;
import dev.gputop.config.logging.FailureLog;
import dev.gputop.config.services.GpuProcess;
import dev.gputop.config.services.GpuProcessSource;
import dev.gputop.inference.discovery.CommandRecognizer.Endpoint;
import dev.gputop.inference.discovery.CommandRule.Role;
import dev.gputop.inference.discovery.ProcFs.Cmdline;
import dev.gputop.inference.discovery.ProcFs.Stat;
import dev.gputop.inference.discovery.internal.kubernetes.KubernetesPods;
import dev.gputop.inference.discovery.internal.kubernetes.PodInfo;
import dev.gputop.inference.discovery.internal.kubernetes.PodLookup;
import dev.gputop.inference.engine.EngineProfiles;
import dev.gputop.receiver.Clock;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Finds inference servers among this host's processes (docs/discovery.md):
 * takes the PIDs on each GPU from NVML (or every process, with {@code inference.discovery.scope:
 * all}), recognizes vLLM, SGLang, TGI and llama.cpp from /proc/PID/cmdline, merges each server's
 * processes (API server, engine cores, workers, schedulers, shards, forked copies) into one entry
 * by walking parent links, and derives the metrics URL from the flags. A containerized server is
 * reached at its pod IP, from the Kubernetes pods on this node; one without a known pod IP is
 * skipped with the reason.
 *
 * <p>Processes are keyed by (pid, start time), so a reused PID is read afresh; a process's command
 * line is read once and kept while its pid, start time and name stay the same. A pass reads one
 * small /proc/PID/stat per candidate process. Servers that exit are gone on the next pass, new ones
 * appear on it.
 *
 * <p>Thread-safe: {@link #discover()} is synchronized (the inference receiver calls it from one
 * thread; the {@code discover} command from another).
 *
 * <pre>{@code
 * ServerDiscovery d = new ProcessDiscovery(config.inference().discovery(), config.kubernetes(),
 *     () -> context.lookup(GpuProcessSource.class), context.clock());
 * DiscoveryResult r = d.discover();
 * }</pre>
 */
public final class ProcessDiscovery implements ServerDiscovery {

  private static final Logger logger = Logger.getLogger(ProcessDiscovery.class.getName());

  /** An unrecognized process is re-read after this long, in case it changed its title without changing its name. */
  private static final long REREAD_UNRECOGNIZED_NANOS = TimeUnit.SECONDS.toNanos(60);
  private static final int MAX_ANCESTRY = 128;
  private static final int COMMAND_DISPLAY = 400;

  private final DiscoveryConfig config;
  private final ProcFs proc;
  private final Supplier<GpuProcessSource> gpuProcesses;
  private final PodLookup pods;
  private final String kubernetesProblem;
  private final Clock clock;
  private volatile CommandRecognizer recognizer = CommandRecognizer.defaults();
  private final Map<Long, Entry> cache = new HashMap<>();
  /** A pass that throws (bad /proc content) or a /proc that can't be listed: throttled. */
  private final FailureLog failures;
  /** Whether the pod lookup was used (and refreshed) in the current pass. */
  private boolean podsConsulted;

  /**
   * Discovery as configured.
   *
   * @param config {@code inference.discovery.*}
   * @param kubernetes {@code kubernetes.*}; lookups run when enabled, or on auto inside a cluster
   * @param gpuProcesses gives the NVML receiver's process list, or null (or a supplier of null)
   *     when NVML is off; asked on every pass, so NVML may start after discovery
   * @param clock the agent's clock
   */
  public ProcessDiscovery(
      DiscoveryConfig config, KubernetesConfig kubernetes, Supplier<GpuProcessSource> gpuProcesses, Clock clock) {
    this(config, Path.of(config.procRoot()), gpuProcesses, PodSetup.of(kubernetes, clock), clock);
  }

  /**
   * This discovery recognizing the processes of these engine profiles (the built-in ones and the
   * user's) instead of the built-in ones. Call before the first {@link #discover}.
   */
  public ProcessDiscovery withProfiles(EngineProfiles profiles) {
    this.recognizer = new CommandRecognizer(CommandRecognizer.rules(profiles));
    return this;
  }

  /** Discovery with a fixed GPU process source ({@code null} when NVML is off). */
  public static ProcessDiscovery withGpuSource(
      DiscoveryConfig config, KubernetesConfig kubernetes, GpuProcessSource gpuProcesses, Clock clock) {
    return new ProcessDiscovery(config, kubernetes, () -> gpuProcesses, clock);
  }

  /** For tests: a fake procfs root and a fake pod lookup (null: Kubernetes off). */
  ProcessDiscovery(
      DiscoveryConfig config, Path procRoot, Supplier<GpuProcessSource> gpuProcesses, PodLookup pods, Clock clock) {
    this(config, new ProcFs(procRoot), gpuProcesses, new PodSetup(pods, null), clock);
  }

  /** For tests: a procfs reader that can pretend files are unreadable. */
  ProcessDiscovery(
      DiscoveryConfig config, ProcFs proc, Supplier<GpuProcessSource> gpuProcesses, PodLookup pods, Clock clock) {
    this(config, proc, gpuProcesses, new PodSetup(pods, null), clock);
  }

  private ProcessDiscovery(
      DiscoveryConfig config, Path procRoot, Supplier<GpuProcessSource> gpuProcesses, PodSetup pods, Clock clock) {
    this(config, new ProcFs(procRoot), gpuProcesses, pods, clock);
  }

  private ProcessDiscovery(
      DiscoveryConfig config, ProcFs proc, Supplier<GpuProcessSource> gpuProcesses, PodSetup pods, Clock clock) {
    this.config = Objects.requireNonNull(config, "config");
    this.proc = proc;
    this.gpuProcesses = gpuProcesses == null ? () -> null : gpuProcesses;
    this.pods = pods.pods();
    this.kubernetesProblem = pods.problem();
    this.clock = Objects.requireNonNull(clock, "clock");
    this.failures = FailureLog.create(logger, clock);
  }

  /** The pod lookup from {@code kubernetes.*}, or why there is none although it was asked for. */
  private record PodSetup(PodLookup pods, String problem) {
    static PodSetup of(KubernetesConfig kubernetes, Clock clock) {
      if (kubernetes == null) {
        return new PodSetup(null, null);
      }
      try {
        return new PodSetup(KubernetesPods.create(kubernetes, clock), null);
      } catch (IllegalArgumentException e) {
        // A half-configured cluster must not stop the agent: host servers are still found.
        logger.warning("Kubernetes pod lookups disabled: " + e.getMessage());
        return new PodSetup(null, e.getMessage());
      }
    }
  }

  @Override
  public synchronized DiscoveryResult discover() {
    if (!config.enabled()) {
      return new DiscoveryResult(List.of(), List.of(), List.of("discovery is off (inference.discovery.enabled: false)"));
    }
    try {
      DiscoveryResult result = pass();
      failures.success("pass", "Discovery pass");
      return result;
    } catch (RuntimeException e) {
      // Bad /proc content must never take the receiver down. Logged throttled, with its trace.
      failures.failure("pass", "Discovery pass", e);
      return new DiscoveryResult(List.of(), List.of(), List.of("discovery pass failed: " + e));
    }
  }

  private DiscoveryResult pass() {
    List<String> notes = new ArrayList<>();
    List<SkippedProcess> skipped = new ArrayList<>();
    GpuProcessSource source = gpuProcesses.get();
    Map<Long, Set<Integer>> gpusByPid = new HashMap<>();
    if (source != null && source.available()) {
      for (GpuProcess p : source.gpuProcesses()) {
        gpusByPid.computeIfAbsent(p.pid(), k -> new TreeSet<>()).add(p.gpuIndex());
      }
    } else {
      String reason = source == null ? "NVML receiver not running" : source.unavailableReason();
      String unavailable = "NVML unavailable (" + (reason == null ? "unknown reason" : reason) + ")";
      if (config.scope() == DiscoveryConfig.Scope.GPU) {
        cache.clear();
        return new DiscoveryResult(List.of(), List.of(),
            List.of(unavailable + ": scope gpu finds no servers; set inference.discovery.scope: all"));
      }
      notes.add(unavailable + ": GPU indices are unknown");
    }

    Collection<Long> candidates;
    if (config.scope() == DiscoveryConfig.Scope.ALL) {
      try {
        Set<Long> all = new TreeSet<>(proc.pids());
        all.addAll(gpusByPid.keySet());
        candidates = all;
        failures.success("proc", "Listing " + proc.root());
      } catch (IOException e) {
        String msg = "can't list " + proc.root() + ": " + e;
        failures.failure("proc", "Listing " + proc.root(), e);
        notes.add(msg);
        candidates = new TreeSet<>(gpusByPid.keySet());
      }
    } else {
      candidates = new TreeSet<>(gpusByPid.keySet());
    }

    Pass pass = new Pass();
    Map<Long, Group> groups = new LinkedHashMap<>();
    int invisibleGpuProcesses = 0;
    for (long pid : candidates) {
      View v = pass.view(pid);
      Set<Integer> gpus = gpusByPid.getOrDefault(pid, Set.of());
      if (v == null) {
        if (!gpus.isEmpty()) {
          invisibleGpuProcesses++;
        }
        continue; // exited since it was listed, or in a PID namespace we can't see
      }
      if (v.stat.zombie()) {
        continue;
      }
      if (v.entry.rule == null && gpus.isEmpty()) {
        continue; // not an inference server, and no GPU that would make it a worker
      }
      View root = pass.root(v);
      if (root == null) {
        skipped.add(new SkippedProcess(pid, display(v), unrecognizedReason(v, gpus)));
        continue;
      }
      Group g = groups.computeIfAbsent(root.stat.pid(), k -> new Group(root));
      g.add(v, gpus);
      if (root != v) {
        // Recognized processes between the member and its root (an engine core between a worker
        // and the API server) belong to the server too.
        int depth = 0;
        for (View a = pass.parent(v); a != null && a != root && depth++ < MAX_ANCESTRY; a = pass.parent(a)) {
          if (a.entry.rule != null) {
            g.add(a, gpusByPid.getOrDefault(a.stat.pid(), Set.of()));
          }
        }
        g.add(root, gpusByPid.getOrDefault(root.stat.pid(), Set.of()));
      }
    }
    cache.keySet().retainAll(pass.views.keySet());
    if (invisibleGpuProcesses > 0 && invisibleGpuProcesses == gpusByPid.size()) {
      // NVML reports host PIDs; none resolving means we look at another PID namespace's /proc.
      notes.add("none of the " + invisibleGpuProcesses + " GPU processes NVML reports is visible under "
          + proc.root() + ": run the agent in the host PID namespace (hostPID: true) or mount the host's /proc"
          + " and set inference.discovery.procRoot");
    }

    podsConsulted = false;
    Map<String, DiscoveredServer> servers = new TreeMap<>();
    for (Group g : groups.values()) {
      DiscoveredServer s = toServer(g, skipped);
      if (s != null) {
        String name = s.name();
        if (servers.containsKey(name)) {
          name = name + "-" + s.pids().get(0);
          s = new DiscoveredServer(dev.gputop.config.Endpoint.of(name, s.url()), s.engine(), s.gpus(), s.pids(), s.command(), s.how(), s.containerId(), s.pod());
        }
        servers.put(name, s);
      }
    }
    if (kubernetesProblem != null) {
      notes.add("Kubernetes pod lookups are off: " + kubernetesProblem);
    } else if (podsConsulted && pods.problem() != null) {
      notes.add("Kubernetes: " + pods.problem());
    }
    skipped.sort(java.util.Comparator.comparingLong(SkippedProcess::pid));
    return new DiscoveryResult(List.copyOf(servers.values()), skipped, notes);
  }

  private DiscoveredServer toServer(Group g, List<SkippedProcess> skipped) {
    View owner = g.urlOwner();
    String engine = g.root.entry.rule.engine();
    if (owner == null) {
      skipped.add(new SkippedProcess(g.root.stat.pid(), display(g.root),
          engine + " helper processes (" + g.titles() + ") without their server process among their ancestors"));
      return null;
    }
    long pid = owner.stat.pid();
    if (owner.entry.cmdline.status() != Cmdline.Status.OK) {
      skipped.add(new SkippedProcess(pid, owner.stat.comm(),
          "looks like " + engine + " (process name " + owner.stat.comm() + ") but its command line is "
              + owner.entry.cmdline.status().name().toLowerCase() + ", so the port is unknown"));
      return null;
    }
    List<String> argv = owner.entry.cmdline.argv();
    Endpoint ep = CommandRecognizer.endpoint(owner.entry.rule, argv, var -> proc.environ(pid, var));
    if (ep.error() != null) {
      skipped.add(new SkippedProcess(pid, display(owner), ep.error()));
      return null;
    }
    StringBuilder how = new StringBuilder();
    how.append(owner.entry.rule.describe()).append(" (pid ").append(pid).append("); ").append(ep.how());
    String host = ep.host();
    String name = engine + "-" + ep.port();
    CgroupIds ids = owner.entry.cgroup(proc, pid);
    String containerId = ids.containerId();
    PodInfo inPod = null;
    PodLookup inLookup = null;
    if (ids != CgroupIds.NONE) {
      String where = containerId != null ? "container " + CgroupIds.shortId(containerId) : "pod " + ids.podUid();
      PodLookup podLookup = pods();
      String ownNs = proc.netNamespace("self");
      String theirNs = proc.netNamespace(Long.toString(pid));
      if (ownNs != null && ownNs.equals(theirNs)) {
        how.append("; in ").append(where).append(", same network namespace as the agent");
        PodInfo pod = podLookup == null ? null : podLookup.find(containerId, ids.podUid());
        if (pod != null) {
          name = pod.qualifiedName() + ":" + ep.port();
          inPod = pod;
          inLookup = podLookup;
        }
      } else {
        String reason = null;
        PodInfo pod = null;
        if (podLookup == null) {
          reason = where + " has no known pod IP: Kubernetes lookups are off"
              + (kubernetesProblem != null ? " (" + kubernetesProblem + ")" : " (kubernetes.enabled)");
        } else {
          pod = podLookup.find(containerId, ids.podUid());
          if (pod == null) {
            reason = where + " has no known pod IP: "
                + (podLookup.problem() != null ? podLookup.problem() : "no pod from " + podLookup.source() + " runs it");
          } else if (pod.hostNetwork()) {
            // The pod IP of a host-network pod is the node's IP: reachable from the agent's own
            // network namespace, unless the server binds loopback only.
            name = pod.qualifiedName() + ":" + ep.port();
            if (pod.podIp() != null && !CommandRecognizer.isLoopback(ep.bindHost())) {
              host = pod.podIp();
              how.append("; in pod ").append(pod.qualifiedName()).append(" (host network), node IP ").append(host);
            } else {
              how.append("; in pod ").append(pod.qualifiedName())
                  .append(" (host network, loopback: reachable when the agent uses the host network too)");
            }
          } else if (pod.podIp() == null) {
            reason = where + " is in pod " + pod.qualifiedName() + ", which has no IP yet";
          } else if (CommandRecognizer.isLoopback(ep.bindHost())) {
            reason = "listens on " + ep.bindHost() + " inside pod " + pod.qualifiedName()
                + ", unreachable from the agent (start it with a wildcard host such as 0.0.0.0)";
          } else {
            host = pod.podIp();
            how.append("; in pod ").append(pod.qualifiedName()).append(", pod IP ").append(host);
            name = pod.qualifiedName() + ":" + ep.port();
          }
        }
        if (reason != null) {
          skipped.add(new SkippedProcess(pid, display(owner), reason));
          return null;
        }
        inPod = pod;
        inLookup = podLookup;
      }
    }
    if (g.members.size() > 1) {
      how.append("; merged ").append(g.members.size()).append(" processes by parent links");
    }
    dev.gputop.config.Endpoint endpoint;
    try {
      endpoint = dev.gputop.config.Endpoint.of(name, URI.create(ep.url(host)));
    } catch (IllegalArgumentException e) {
      // e.g. a --host whose name is not a valid URL host: one skipped process, not a failed discovery.
      skipped.add(new SkippedProcess(pid, display(owner), "its metrics URL can't be scraped: " + e.getMessage()));
      return null;
    }
    return new DiscoveredServer(endpoint, engine, List.copyOf(g.gpus), List.copyOf(new TreeSet<>(g.members.keySet())),
        display(owner), how.toString(), containerId,
        inPod == null ? null : new dev.gputop.config.PodIdentity(
            inPod.namespace(), inPod.name(), inLookup.containerName(containerId), inPod.uid()));
  }

  /**
   * The pod lookup, brought up to date on its first use in a pass: a host without containerized
   * servers never lists pods. Null when Kubernetes lookups are off.
   */
  private PodLookup pods() {
    if (pods != null && !podsConsulted) {
      pods.refreshIfDue();
      podsConsulted = true;
    }
    return pods;
  }

  private static String unrecognizedReason(View v, Set<Integer> gpus) {
    String onGpu = "uses GPU " + joinInts(gpus) + " but ";
    switch (v.entry.cmdline.status()) {
      case UNREADABLE:
        return onGpu + "its command line is unreadable (permission denied; run the agent as root or with hostPID)";
      case EMPTY:
        return onGpu + "its command line is empty (kernel thread or exiting)";
      case GONE:
        return onGpu + "it exited during the scan";
      default:
        return v.entry.rule == null
            ? onGpu + "its command is not a recognized inference server"
            : "recognized as " + v.entry.rule.engine() + " but no server owns it";
    }
  }

  private static String joinInts(Set<Integer> s) {
    StringBuilder b = new StringBuilder();
    for (int i : s) {
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(i);
    }
    return b.toString();
  }

  private static String display(View v) {
    return v.entry.cmdline.status() == Cmdline.Status.OK ? v.entry.cmdline.display(COMMAND_DISPLAY) : v.stat.comm();
  }

  /** The processes of one server, found from their common root. Used by one pass only. */
  private static final class Group {
    final View root;
    final Map<Long, View> members = new LinkedHashMap<>();
    /** The GPUs of all members, in index order. */
    final Set<Integer> gpus = new TreeSet<>();

    Group(View root) {
      this.root = root;
    }

    void add(View v, Set<Integer> gpuIndices) {
      if (members.putIfAbsent(v.stat.pid(), v) == null) {
        gpus.addAll(gpuIndices);
      }
    }

    /**
     * The process whose flags give the URL: the root when it serves (a vLLM API server, the parent
     * of forked V0 workers), else the serving process nearest the root (a TGI router under its
     * launcher), else a supervisor that knows the port (a TGI launcher whose router is not visible).
     */
    View urlOwner() {
      if (root.entry.rule.role() == Role.SERVER) {
        return root;
      }
      View best = null;
      for (View v : members.values()) {
        if (v.entry.rule != null && v.entry.rule.role() == Role.SERVER
            && (best == null || (v.stat.ppid() == root.stat.pid() && best.stat.ppid() != root.stat.pid())
                || (v.stat.ppid() == best.stat.ppid() && v.stat.pid() < best.stat.pid()))) {
          best = v;
        }
      }
      if (best != null) {
        return best;
      }
      return root.entry.rule.role() == Role.SUPERVISOR ? root : null;
    }

    String titles() {
      Set<String> t = new TreeSet<>();
      for (View v : members.values()) {
        if (v.entry.cmdline.status() == Cmdline.Status.OK && !v.entry.cmdline.argv().isEmpty()) {
          t.add(CommandRecognizer.fileName(v.entry.cmdline.argv().get(0)));
        } else {
          t.add(v.stat.comm());
        }
      }
      return String.join(", ", t);
    }
  }

  /** A process as one pass sees it: its current stat and its cached reading. */
  private static final class View {
    final Stat stat;
    final Entry entry;

    View(Stat stat, Entry entry) {
      this.stat = stat;
      this.entry = entry;
    }
  }

  /** What is kept about one process between passes, valid while pid, start time and name stay. */
  private static final class Entry {
    final long startTime;
    final String comm;
    final Cmdline cmdline;
    final CommandRule rule;
    final long readAtNanos;
    private CgroupIds cgroup;

    Entry(long startTime, String comm, Cmdline cmdline, CommandRule rule, long readAtNanos) {
      this.startTime = startTime;
      this.comm = comm;
      this.cmdline = cmdline;
      this.rule = rule;
      this.readAtNanos = readAtNanos;
    }

    CgroupIds cgroup(ProcFs proc, long pid) {
      if (cgroup == null) {
        cgroup = CgroupIds.parse(proc.cgroup(pid));
      }
      return cgroup;
    }
  }

  /** The views read during one pass, so each process's stat is read at most once per pass. */
  private final class Pass {
    final Map<Long, View> views = new HashMap<>();
    final Set<Long> missing = new HashSet<>();
    final long now = clock.nanoTime();

    View view(long pid) {
      View v = views.get(pid);
      if (v != null || missing.contains(pid)) {
        return v;
      }
      Stat st = proc.stat(pid);
      if (st == null) {
        missing.add(pid);
        return null;
      }
      Entry e = cache.get(pid);
      if (e == null
          || e.startTime != st.startTime()
          || !e.comm.equals(st.comm())
          || (e.rule == null && now - e.readAtNanos > REREAD_UNRECOGNIZED_NANOS)) {
        e = read(st);
        if (e == null) {
          missing.add(pid);
          return null;
        }
        cache.put(pid, e);
      }
      v = new View(st, e);
      views.put(pid, v);
      return v;
    }

    private Entry read(Stat st) {
      Cmdline c = st.zombie() ? new Cmdline(List.of(), Cmdline.Status.EMPTY) : proc.cmdline(st.pid());
      if (c.status() == Cmdline.Status.GONE) {
        return null;
      }
      CommandRule rule = c.status() == Cmdline.Status.OK ? recognizer.recognize(c.argv()) : null;
      if (rule == null && c.status() == Cmdline.Status.UNREADABLE) {
        rule = recognizer.recognizeComm(st.comm());
      }
      return new Entry(st.startTime(), st.comm(), c, rule, now);
    }

    View parent(View v) {
      long ppid = v.stat.ppid();
      return ppid <= 0 || ppid == v.stat.pid() ? null : view(ppid);
    }

    /**
     * The topmost recognized process among {@code v} and its ancestors, of the same engine as the
     * nearest recognized one; null when none is recognized.
     */
    View root(View v) {
      View top = v.entry.rule != null ? v : null;
      String engine = top == null ? null : top.entry.rule.engine();
      Set<Long> seen = new HashSet<>();
      View cur = v;
      for (int i = 0; i < MAX_ANCESTRY && seen.add(cur.stat.pid()); i++) {
        View p = parent(cur);
        if (p == null) {
          break;
        }
        CommandRule r = p.entry.rule;
        if (r != null && (engine == null || engine.equals(r.engine()))) {
          top = p;
          engine = r.engine();
        }
        cur = p;
      }
      return top;
    }
  }
}
