package dev.gputop.agent.demo;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The truth of demo replicas for tests: a {@link LoadListener} per model that keeps what the model
 * did (completed requests, TTFTs, histogram totals since the last restart, restart times), so a
 * test can compare what the agent computes with what really happened. The shipped demo keeps none
 * of it. Attach before the models are first read (they run only when read):
 *
 * <pre>{@code
 * try (DemoReplicas d = Truths.recorded(DemoReplicas.builder().seed(7).clock(clock).start())) {
 *   clock.advance(Duration.ofSeconds(30));
 *   Truth t = Truths.of(d.replica("vllm-dp2"));
 * }
 * }</pre>
 */
public final class Truths {

  /** How long and how much history is kept: far more than any test's window. */
  private static final long RETENTION_NANOS = 30L * 60 * 1_000_000_000L;

  private static final int RETENTION_MAX = 200_000;

  private Truths() {}

  /** Records the truth of every replica of {@code replicas} from now on; returns them. */
  public static DemoReplicas recorded(DemoReplicas replicas) {
    for (Replica r : replicas.replicas()) {
      recorded(r.model());
    }
    return replicas;
  }

  /** Records the truth of {@code model} from now on; returns it. */
  public static LoadModel recorded(LoadModel model) {
    model.listen(new Recorder(model.settings().engines()));
    return model;
  }

  /** What really happened in this replica up to now. */
  public static Truth of(Replica replica) {
    return of(replica.model());
  }

  /** What really happened in this model up to now (after simulating up to the clock). */
  public static Truth of(LoadModel model) {
    synchronized (model) {
      if (!(model.listener() instanceof Recorder recorder)) {
        throw new IllegalStateException("no truth recorded: start the replicas with Truths.recorded");
      }
      LoadModel.Stats stats = model.stats();
      List<Truth.Counters> counters = new ArrayList<>();
      List<Integer> running = new ArrayList<>();
      List<Integer> waiting = new ArrayList<>();
      for (EngineStats e : stats.engines()) {
        counters.add(new Truth.Counters(e.arrived, e.rejected, e.completed, e.promptTokens,
            e.generationTokens, e.prefixQueries, e.prefixHits, e.preemptions));
        running.add(e.running);
        waiting.add(e.waiting);
      }
      return new Truth(stats.nowNanos(), new ArrayList<>(recorder.completed),
          new ArrayList<>(recorder.ttfts), recorder.restarts, recorder.totals, counters, running,
          waiting);
    }
  }

  /** Keeps the events of one model; called on the model's lock, read on it. */
  private static final class Recorder implements LoadListener {
    final ArrayDeque<CompletedRequest> completed = new ArrayDeque<>();
    /** TTFTs as observed (at first token), also for requests still running: {nanos, value bits}. */
    final ArrayDeque<long[]> ttfts = new ArrayDeque<>();
    final List<Long> restarts = new ArrayList<>();
    final List<Map<Kind, Truth.Total>> totals = new ArrayList<>();

    Recorder(int engines) {
      for (int i = 0; i < engines; i++) {
        totals.add(Truth.emptyTotals());
      }
    }

    @Override
    public void observed(int engine, Kind kind, double value, long weight) {
      Map<Kind, Truth.Total> m = totals.get(engine);
      Truth.Total t = m.getOrDefault(kind, Truth.Total.ZERO);
      m.put(kind, new Truth.Total(t.count() + weight, t.sum() + value * weight));
    }

    @Override
    public void firstToken(long nanos, double ttftSeconds) {
      ttfts.addLast(new long[] {nanos, Double.doubleToLongBits(ttftSeconds)});
      while (ttfts.size() > RETENTION_MAX || ttfts.peekFirst()[0] < nanos - RETENTION_NANOS) {
        ttfts.removeFirst();
      }
    }

    @Override
    public void finished(CompletedRequest c) {
      completed.addLast(c);
      while (completed.size() > RETENTION_MAX
          || (!completed.isEmpty() && completed.peekFirst().finishNanos() < c.finishNanos() - RETENTION_NANOS)) {
        completed.removeFirst();
      }
    }

    @Override
    public void restarted(long nanos) {
      restarts.add(nanos);
      for (Map<Kind, Truth.Total> m : totals) {
        m.clear();
      }
    }
  }
}
