package dev.gputop.nvml;

import dev.gputop.config.logging.FailureLog;
import dev.gputop.config.services.GpuPowerSource;
import dev.gputop.config.services.GpuProcess;
import dev.gputop.config.services.GpuProcessSource;
import dev.gputop.config.services.GpuReading;
import dev.gputop.config.services.ProcessOwnerLookup;
import dev.gputop.receiver.Alert;
import dev.gputop.receiver.Clock;
import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.Receiver;
import dev.gputop.receiver.ReceiverContext;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

/**
 * The {@code nvml} receiver: samples every GPU on the agent's refresh thread, publishes an
 * immutable snapshot, and serves it to the OpenTelemetry instruments ({@link NvmlMetrics}), the
 * JSON snapshot ({@code gpus}, {@code alerts}), {@code /healthz} and discovery ({@link
 * GpuProcessSource}, published through the {@link ReceiverContext}).
 *
 * <p>NVML is opened at the first refresh, on the refresh thread, not when the receiver is created:
 * {@code nvmlInit} can take seconds on a node without {@code nvidia-persistenced}, and the agent's
 * other receivers and listener need not wait for it. Without libnvidia-ml, or without a GPU, it
 * reports {@code unavailable} with the reason, logs it once, and tries to open NVML again every
 * minute (the driver may load after the agent). A GPU
 * that falls off the bus is reported as {@code failed} with a {@code gpu_failed} alert, and the
 * receiver is then {@code unhealthy}.
 *
 * <p>Thread-safety: {@link #refresh()} runs on one agent thread at a time; everything else reads
 * the latest snapshot through an {@link AtomicReference} and may be called from any thread.
 */
final class NvmlReceiver implements Receiver, GpuProcessSource, GpuPowerSource {

  private static final Logger logger = Logger.getLogger(NvmlReceiver.class.getName());

  static final String NAME = "nvml";
  static final long REOPEN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(60);

  /**
   * Everything one refresh produced, the snapshot's part ({@code gpus}, {@code alerts}) as the
   * {@link Contribution} it is read as: built once per refresh, not once per read.
   */
  private record Snapshot(
      boolean available,
      String unavailableReason,
      GpuSample sample,
      List<GpuEntry> entries,
      Contribution contribution,
      HealthStatus health,
      List<NvmlMetrics.DeviceView> devices,
      List<NvmlMetrics.ProcessView> processes,
      List<NvmlMetrics.XidView> xids,
      GpuPowerSource.Readings readings)
      implements NvmlMetrics.Source {

    static Snapshot unavailable(String reason) {
      return new Snapshot(
          false, reason, GpuSample.empty(null), List.of(), Contribution.NONE,
          HealthStatus.unavailable(reason), List.of(), List.of(), List.of(), GpuPowerSource.Readings.NONE);
    }
  }

  /** How long a critical Xid keeps the {@code gpu_xid} alert active. */
  static final long XID_ALERT_NANOS = TimeUnit.MINUTES.toNanos(10);

  private final ReceiverContext context;
  private final String library;
  private final Clock clock;
  private final ProcessNames names;
  private final GpuLibrary.Opener opener;
  private final AtomicReference<Snapshot> snapshot;
  private final NvmlMetrics metrics;
  private final Map<String, DeviceAttributes> attributes = new HashMap<>();
  private GpuLibrary nvml;
  private boolean openAttempted;
  private long lastOpenAttempt;
  /**
   * The reason last logged for NVML being unavailable. Unavailability is a state of the host (no
   * driver, no GPU), not a failure that recovers: it is logged once per distinct reason, with no
   * reminders, so a CPU-only node says it once.
   */
  private String loggedReason;
  /** Sample failures (a binding error while NVML is open): throttled, with a recovery line. */
  private final FailureLog sampleFailures;
  private boolean closed;
  private final XidLog xids = new XidLog();
  private Thread eventThread;
  private volatile boolean stopEvents;

  /** Creates the receiver, registers instruments and publishes {@link GpuProcessSource}; NVML opens at the first refresh. */
  public static NvmlReceiver create(ReceiverContext context) {
    return new NvmlReceiver(context, new ProcessNames());
  }

  NvmlReceiver(ReceiverContext context, ProcessNames names) {
    this(context, names, Nvml::open);
  }

  /** A receiver over any {@link GpuLibrary}: {@link Nvml} in production, a Java fake in unit tests. */
  NvmlReceiver(ReceiverContext context, ProcessNames names, GpuLibrary.Opener opener) {
    this.context = context;
    this.opener = opener;
    this.library = context.config().nvml().library();
    this.clock = context.clock();
    this.names = names;
    this.sampleFailures = FailureLog.create(logger, clock);
    this.snapshot = new AtomicReference<>(Snapshot.unavailable("NVML not sampled yet"));
    this.metrics = new NvmlMetrics(context.openTelemetry().getMeter("dev.gputop.nvml"), snapshot::get);
    context.publish(GpuProcessSource.class, this);
    context.publish(GpuPowerSource.class, this);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public synchronized void refresh() {
    if (closed) {
      return;
    }
    if (nvml == null) {
      if (!openAttempted || clock.nanoTime() - lastOpenAttempt >= REOPEN_INTERVAL_NANOS) {
        tryOpen();
      }
      if (nvml == null) {
        return;
      }
    }
    try {
      long sampledNanos = clock.nanoTime();
      publish(nvml.sample(), sampledNanos);
      sampleFailures.success(NAME, "NVML sample");
    } catch (RuntimeException e) {
      // Not expected from the binding; never let it stop the agent's scheduler.
      sampleFailures.failure(NAME, "NVML sample", e);
      Snapshot previous = snapshot.get();
      snapshot.set(
          new Snapshot(true, null, previous.sample(), previous.entries(), previous.contribution(),
              HealthStatus.unhealthy(List.of("NVML sample failed: " + e)), previous.devices(),
              previous.processes(), previous.xids(),
              // No readings: a server's energy over this sample is not known (N/A, not a zero).
              GpuPowerSource.Readings.NONE));
    }
  }

  private void tryOpen() {
    openAttempted = true;
    lastOpenAttempt = clock.nanoTime();
    try {
      nvml = opener.open(library);
      loggedReason = null;
      startEvents(nvml);
      logger.info(
          "NVML: driver " + nvml.driverVersion() + ", library " + nvml.libraryFile()
              + ", process entries of " + nvml.processEntrySize() + " bytes");
    } catch (NvmlUnavailableException e) {
      unavailable(e.getMessage());
    }
  }

  /**
   * Starts the daemon thread that waits for Xid events ({@link GpuLibrary#waitForXid}, 1 s at a
   * time), so a wait never blocks sampling and close() is prompt.
   */
  private void startEvents(GpuLibrary library) {
    stopEvents = false;
    FailureLog waitFailures = FailureLog.create(logger, clock);
    Thread t = new Thread(() -> {
      while (!stopEvents) {
        try {
          XidEvent e = library.waitForXid(dev.gputop.nvml.internal.jna.Layouts.EVENT_WAIT_MILLIS);
          waitFailures.success(NAME, "waiting for NVML events");
          if (e != null && e.gpuUuid() != null) {
            xids.record(e, clock.epochNanos());
            logger.warning("GPU " + e.index() + " (" + e.gpuUuid() + "): Xid " + e.xid()
                + (XidCodes.isCritical(e.xid()) ? " (" + XidCodes.describe(e.xid()) + ")" : ""));
          }
        } catch (InterruptedException ie) {
          return;
        } catch (RuntimeException ex) {
          waitFailures.failure(NAME, "waiting for NVML events", ex);
          try {
            Thread.sleep(dev.gputop.nvml.internal.jna.Layouts.EVENT_WAIT_MILLIS);
          } catch (InterruptedException ie) {
            return;
          }
        }
      }
    }, "gputop-nvml-events");
    t.setDaemon(true);
    t.start();
    eventThread = t;
  }

  private void stopEvents() {
    Thread t = eventThread;
    eventThread = null;
    if (t == null) {
      return;
    }
    stopEvents = true;
    t.interrupt();
    try {
      t.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void unavailable(String reason) {
    if (!reason.equals(loggedReason)) {
      loggedReason = reason;
      logger.warning("NVML unavailable: " + reason + " (GPU metrics are off; the agent runs on)");
    }
    snapshot.set(Snapshot.unavailable(reason));
  }

  private void publish(GpuSample sample, long sampledNanos) {
    if (sample.devices().isEmpty()) {
      unavailable("NVML found no NVIDIA GPU");
      return;
    }
    loggedReason = null;
    ProcessOwnerLookup owners = context.lookup(ProcessOwnerLookup.class);
    java.util.Map<String, XidLog.Gpu> received = xids.snapshot();
    List<GpuEntry> entries = GpuEntries.of(sample, owners, names, received);

    List<NvmlMetrics.DeviceView> devices = new ArrayList<>(sample.devices().size());
    List<Alert> alerts = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    Map<String, DeviceAttributes> seen = new HashMap<>();
    for (GpuDevice d : sample.devices()) {
      DeviceAttributes a = attributes.get(d.id());
      if (a == null || !a.matches(d)) {
        a = new DeviceAttributes(d);
      }
      seen.put(d.id(), a);
      devices.add(new NvmlMetrics.DeviceView(d, a));
      if (d.state() == GpuState.FAILED) {
        String message =
            (d.isMig() ? "MIG instance " : "GPU ") + d.index()
                + (d.isMig() ? "/" + d.migIndex() : "") + " (" + d.id()
                + (d.pciBusId() != null ? ", " + d.pciBusId() : "") + ") failed: " + d.error();
        alerts.add(new Alert(GpuAlert.GPU_FAILED, null, message));
        reasons.add(message);
      }
    }
    attributes.clear();
    attributes.putAll(seen);

    List<NvmlMetrics.XidView> xidViews = new ArrayList<>();
    long now = clock.epochNanos();
    for (NvmlMetrics.DeviceView view : devices) {
      GpuDevice d = view.device();
      if (d.isMig() || d.uuid() == null) {
        continue; // events are registered per GPU
      }
      XidLog.Gpu x = received.get(d.uuid());
      java.util.Map<Long, Long> counts = new java.util.TreeMap<>();
      // The critical codes start at 0 so that increase() in PromQL sees their first event.
      XidCodes.CRITICAL_CODES.forEach(code -> counts.put(code, 0L));
      if (x != null) {
        counts.putAll(x.counts());
        List<String> recent = new ArrayList<>();
        for (XidLog.Entry e : x.recent()) {
          long code = e.event().xid();
          if (XidCodes.isCritical(code) && now - e.epochNanos() <= XID_ALERT_NANOS
              && !recent.contains(Long.toString(code))) {
            recent.add(Long.toString(code));
          }
        }
        if (!recent.isEmpty()) {
          StringBuilder m = new StringBuilder("GPU " + d.index() + " (" + d.uuid() + ") reported ");
          for (int i = 0; i < recent.size(); i++) {
            long code = Long.parseLong(recent.get(i));
            m.append(i == 0 ? "" : ", ").append("Xid ").append(code).append(" (").append(XidCodes.describe(code)).append(')');
          }
          alerts.add(new Alert(GpuAlert.GPU_XID, null, m.append(" in the last 10 minutes").toString()));
        }
      }
      counts.forEach((code, count) -> xidViews.add(new NvmlMetrics.XidView(view.attributes().xid(code), count)));
    }

    List<NvmlMetrics.ProcessView> processes = new ArrayList<>();
    for (GpuEntry e : entries) {
      for (GpuProcessEntry p : e.processes()) {
        AttributesBuilder b =
            Attributes.builder()
                .put(DeviceAttributes.HW_ID, e.uuid())
                .put(DeviceAttributes.PROCESS_PID, p.pid());
        if (p.name() != null) {
          b.put(DeviceAttributes.PROCESS_EXECUTABLE_NAME, p.name());
        }
        if (p.server() != null) {
          b.put(DeviceAttributes.SERVER, p.server());
        }
        if (p.kubernetes() != null) {
          p.kubernetes().addTo(b); // per-pod GPU memory and utilization, without vGPU modes
        }
        processes.add(
            new NvmlMetrics.ProcessView(
                b.build(), p.usedMemoryBytes() == null ? -1 : p.usedMemoryBytes(), p.utilization()));
      }
    }
    HealthStatus health = reasons.isEmpty() ? HealthStatus.healthy() : HealthStatus.unhealthy(reasons);
    snapshot.set(
        new Snapshot(true, null, sample, entries, Contribution.ofGpus(entries, alerts), health, List.copyOf(devices),
            List.copyOf(processes), List.copyOf(xidViews), readings(entries, sampledNanos)));
  }

  /** The GPUs' readings for {@link GpuPowerSource}: whole GPUs only (a MIG instance's power is its GPU's). */
  private static GpuPowerSource.Readings readings(List<GpuEntry> entries, long sampledNanos) {
    List<GpuReading> out = new ArrayList<>(entries.size());
    for (GpuEntry e : entries) {
      if (e.parentUuid() != null) {
        continue;
      }
      boolean lost = GpuState.FAILED.jsonName().equals(e.state());
      out.add(new GpuReading(e.index(), e.uuid(), lost, lost ? null : e.powerWatts(),
          lost ? null : e.energyJoules(), lost ? null : e.utilization(),
          lost ? null : e.memoryUsedBytes(), lost ? null : e.memoryTotalBytes()));
    }
    return new GpuPowerSource.Readings(sampledNanos, out);
  }

  @Override
  public HealthStatus health() {
    return snapshot.get().health();
  }

  @Override
  public Contribution contribution() {
    return snapshot.get().contribution();
  }

  /** The latest {@code gpus[]} entries. */
  public List<GpuEntry> gpus() {
    return snapshot.get().entries();
  }

  @Override
  public boolean available() {
    return snapshot.get().available();
  }

  @Override
  public String unavailableReason() {
    return snapshot.get().unavailableReason();
  }

  @Override
  public List<GpuProcess> gpuProcesses() {
    return snapshot.get().sample().processes();
  }

  @Override
  public GpuPowerSource.Readings gpuReadings() {
    return snapshot.get().readings();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopEvents();
    metrics.close();
    if (nvml != null) {
      nvml.close();
      nvml = null;
    }
  }
}
