package dev.gputop.agent.attach;

import java.lang.instrument.Instrumentation;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The entry points of {@code -javaagent:gputop-agent.jar[=OPTIONS]} ({@link #premain}) and of
 * dynamic attach through the Attach API or {@code jcmd PID JVMTI.agent_load} ({@link #agentmain}).
 * OPTIONS is {@code config=PATH} and/or flat configuration overrides, comma-separated (see {@link
 * AgentOptions}).
 *
 * <p>Both only start one daemon thread and return: everything else (reading the configuration,
 * building the SDK, binding the listener, the first scrape) happens on that thread, so the host
 * application's start is delayed by the cost of this class alone. This class therefore uses no
 * lambdas and no string concatenation (each would bootstrap invokedynamic machinery on the
 * application's main thread) and never throws: a failure is logged by {@link AttachedAgent}.
 *
 * <p>Thread-safe: a second premain or attach in the same JVM does nothing.
 */
public final class AttachAgent {

  /** Set once per JVM: the jar is on the system class path, so every attach sees this class. */
  private static final AtomicBoolean STARTED = new AtomicBoolean();

  private AttachAgent() {}

  /** Called by the JVM before the application's main for {@code -javaagent}. */
  public static void premain(String options, Instrumentation instrumentation) {
    start(options, "premain");
  }

  /** Called by the JVM when the jar is attached to a running process. */
  public static void agentmain(String options, Instrumentation instrumentation) {
    start(options, "agentmain");
  }

  private static void start(String options, String how) {
    long t0 = System.nanoTime();
    try {
      if (!STARTED.compareAndSet(false, true)) {
        Starter.alreadyRunning(how);
        return;
      }
      Thread t = new Thread(new Starter(options, how, t0), "gputop-attach");
      t.setDaemon(true);
      t.setContextClassLoader(AttachAgent.class.getClassLoader());
      t.start();
    } catch (Throwable e) { // the host application must start whatever happens here
      STARTED.set(false);
    }
  }

  /** The background thread's body; measures how long the entry point kept the caller. */
  private static final class Starter implements Runnable {
    private final String options;
    private final String how;
    private final long entered;
    private final long returned;

    Starter(String options, String how, long entered) {
      this.options = options;
      this.how = how;
      this.entered = entered;
      this.returned = System.nanoTime();
    }

    @Override
    public void run() {
      AttachedAgent.startInBackground(options, how, returned - entered);
    }

    static void alreadyRunning(String how) {
      Thread t = new Thread(new AlreadyRunning(how), "gputop-attach");
      t.setDaemon(true);
      t.start();
    }
  }

  private static final class AlreadyRunning implements Runnable {
    private final String how;

    AlreadyRunning(String how) {
      this.how = how;
    }

    @Override
    public void run() {
      AttachedAgent.logAlreadyRunning(how);
    }
  }
}
