package dev.gputop.agent;

import dev.gputop.receiver.Contribution;
import dev.gputop.receiver.ExportedHistogram;
import dev.gputop.receiver.HealthStatus;
import dev.gputop.receiver.Receiver;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** A receiver whose published state the test sets; counts refreshes and closes. Thread-safe. */
public final class FakeReceiver implements Receiver {

  final String name;
  public final AtomicInteger refreshes = new AtomicInteger();
  public final AtomicInteger closes = new AtomicInteger();
  public final AtomicReference<Contribution> contribution = new AtomicReference<>(Contribution.NONE);
  public final AtomicReference<HealthStatus> health = new AtomicReference<>(HealthStatus.healthy());
  public final AtomicReference<List<ExportedHistogram>> histograms = new AtomicReference<>(List.of());
  /** Counted down on every refresh, so tests wait for refreshes instead of sleeping. */
  public volatile CountDownLatch refreshed = new CountDownLatch(1);
  /** When set, refresh() blocks until it is counted down (a slow scrape). */
  public volatile CountDownLatch block;
  public volatile RuntimeException throwOnRefresh;

  public FakeReceiver(String name) {
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void refresh() {
    refreshes.incrementAndGet();
    refreshed.countDown();
    CountDownLatch b = block;
    if (b != null) {
      try {
        b.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    RuntimeException t = throwOnRefresh;
    if (t != null) {
      throw t;
    }
  }

  @Override
  public HealthStatus health() {
    return health.get();
  }

  @Override
  public Contribution contribution() {
    return contribution.get();
  }

  @Override
  public List<ExportedHistogram> exportedHistograms() {
    return histograms.get();
  }

  @Override
  public void close() {
    closes.incrementAndGet();
  }
}
