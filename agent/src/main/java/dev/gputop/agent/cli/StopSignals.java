package dev.gputop.agent.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.LinkedHashMap;
import java.util.Map;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGTERM and SIGINT as a request to stop rather than the JVM's own exit: with its default
 * handlers the JVM ends with 143 (or 130) whatever the shutdown hooks did, so {@code systemctl
 * stop} and a pod's deletion would read as failures, and the hooks' log lines race the JVM's
 * closing of the log handlers. Once {@link #install()}ed, either signal only releases {@link
 * #await()}; the command stops the agent on its own thread, logs, and returns exit 0.
 *
 * <p>Where the JVM won't hand a signal over ({@code -Xrs}, or a host that reserved it), that
 * signal keeps its default behaviour: the caller's shutdown hook still stops the agent.
 */
final class StopSignals implements AutoCloseable {

  private final CountDownLatch received = new CountDownLatch(1);
  private final AtomicReference<String> name = new AtomicReference<>();
  private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();

  private StopSignals() {}

  /** Takes over SIGTERM and SIGINT for this process, until {@link #close()}. */
  static StopSignals install() {
    StopSignals s = new StopSignals();
    for (String signal : new String[] {"TERM", "INT"}) {
      try {
        Signal sig = new Signal(signal);
        s.previous.put(sig, Signal.handle(sig, received -> s.receive("SIG" + received.getName())));
      } catch (IllegalArgumentException e) {
        // reserved by the JVM here: the default exit and the shutdown hook apply
      }
    }
    return s;
  }

  /** Gives the signals back to the handlers they had (the JVM's: exit), e.g. when a demo ends. */
  @Override
  public void close() {
    previous.forEach(Signal::handle);
    previous.clear();
  }

  private void receive(String signal) {
    name.compareAndSet(null, signal);
    received.countDown();
  }

  /** Waits for SIGTERM or SIGINT; returns its name, e.g. {@code SIGTERM}. */
  String await() throws InterruptedException {
    received.await();
    return name.get();
  }

  /** Waits at most {@code nanos}; the signal's name, or null when none came. */
  String await(long nanos) throws InterruptedException {
    return received.await(nanos, TimeUnit.NANOSECONDS) ? name.get() : null;
  }
}
