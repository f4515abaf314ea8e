package dev.gputop.nvml;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Xid events the event thread received, per GPU: a count per code (for the {@code
 * gputop.gpu.xid} counter) and the last {@link #RECENT_PER_GPU} events (for the snapshot). Bounded:
 * at most {@link #MAX_CODES_PER_GPU} codes and {@link #MAX_GPUS} GPUs are kept. Thread-safe: the
 * event thread records, the refresh thread reads copies.
 */
final class XidLog {

  static final int RECENT_PER_GPU = 16;
  static final int MAX_CODES_PER_GPU = 64;
  static final int MAX_GPUS = 64;

  /** One received event with when it arrived. Immutable. */
  record Entry(XidEvent event, long epochNanos) {
    Instant time() {
      return Instant.ofEpochSecond(0, epochNanos);
    }
  }

  /** What one GPU received: counts by code and the latest events, oldest first. Immutable. */
  record Gpu(Map<Long, Long> counts, List<Entry> recent) {
    Gpu {
      counts = Map.copyOf(counts);
      recent = List.copyOf(recent);
    }
  }

  private static final class State {
    final Map<Long, Long> counts = new LinkedHashMap<>();
    final Deque<Entry> recent = new ArrayDeque<>();
  }

  private final Map<String, State> byGpu = new LinkedHashMap<>();

  /** Records an event received at {@code epochNanos}. */
  synchronized void record(XidEvent event, long epochNanos) {
    State s = byGpu.get(event.gpuUuid());
    if (s == null) {
      if (byGpu.size() >= MAX_GPUS) {
        return;
      }
      s = new State();
      byGpu.put(event.gpuUuid(), s);
    }
    if (s.counts.containsKey(event.xid()) || s.counts.size() < MAX_CODES_PER_GPU) {
      s.counts.merge(event.xid(), 1L, Long::sum);
    }
    s.recent.addLast(new Entry(event, epochNanos));
    while (s.recent.size() > RECENT_PER_GPU) {
      s.recent.removeFirst();
    }
  }

  /** A copy of every GPU's state. */
  synchronized Map<String, Gpu> snapshot() {
    Map<String, Gpu> copy = new LinkedHashMap<>();
    byGpu.forEach((uuid, s) -> copy.put(uuid, new Gpu(s.counts, new ArrayList<>(s.recent))));
    return copy;
  }
}
