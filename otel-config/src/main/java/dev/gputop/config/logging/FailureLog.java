package dev.gputop.config.logging;

import dev.gputop.receiver.Clock;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.net.ssl.SSLException;

/**
 * The agent's one way to log a failure that repeats (a scrape endpoint down, an OTLP backend
 * unreachable, a GPU that stopped answering, the Kubernetes API refusing the pod list): a
 * failure that lasts an hour writes a few dozen lines, not one per attempt.
 *
 * <p>Per source (a key: an endpoint name, a GPU, an exporter), while it fails:
 *
 * <ul>
 *   <li>the first failure logs one WARNING: what failed, where, and the reason on one line;
 *   <li>further failures log nothing until a reminder is due, then one WARNING saying how long the
 *       failure has lasted, how many attempts failed, and the latest reason; at most one reminder
 *       per {@link #DEFAULT_REMINDER_INTERVAL} (injectable, for tests);
 *   <li>the first success after failures logs one INFO: recovered, after how long and how many
 *       failures.
 * </ul>
 *
 * <p>A stack trace is attached only to an unexpected failure: a {@link Throwable} that is not one
 * of the ordinary ways a network peer or a file fails (connection refused or reset, unknown host,
 * timeouts, TLS errors, and any {@link java.io.IOException}, see {@link #isExpected}). Such
 * failures are the environment's, and their stack traces tell an operator nothing.
 *
 * <p>Memory is bounded: at most {@code maxKeys} sources are tracked at once (failures of further
 * sources go to FINE, with one WARNING saying so), and a source's entry is removed when it
 * recovers. Time comes from the injected {@link Clock}'s monotonic reading. Thread-safe.
 *
 * <pre>{@code
 * FailureLog failures = FailureLog.create(logger, clock);
 * try {
 *   scrape(endpoint);
 *   failures.success(endpoint.name(), "Scrape of " + endpoint);
 * } catch (IOException e) {
 *   failures.failure(endpoint.name(), "Scrape of " + endpoint, e);
 * }
 * }</pre>
 */
public final class FailureLog {

  /** How often a lasting failure is reminded of. */
  public static final Duration DEFAULT_REMINDER_INTERVAL = Duration.ofMinutes(1);

  /** More sources than any node has failing at once; past it memory is not grown. */
  public static final int DEFAULT_MAX_KEYS = 1024;

  private final Logger logger;
  private final Clock clock;
  private final long reminderNanos;
  private final int maxKeys;
  /** Guarded by {@code this}; insertion order, so the oldest failure is first. */
  private final Map<String, State> failing = new LinkedHashMap<>();
  private boolean overflowReported;

  private static final class State {
    final String what;
    final long since;
    long lastLogged;
    long failures;
    long failuresSinceLog;
    String reason;

    State(String what, long since, String reason) {
      this.what = what;
      this.since = since;
      this.lastLogged = since;
      this.failures = 1;
      this.reason = reason;
    }
  }

  private FailureLog(Logger logger, Clock clock, Duration reminderInterval, int maxKeys) {
    this.logger = Objects.requireNonNull(logger, "logger");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (reminderInterval.isNegative() || reminderInterval.isZero()) {
      throw new IllegalArgumentException("reminderInterval must be positive: " + reminderInterval);
    }
    if (maxKeys < 1) {
      throw new IllegalArgumentException("maxKeys must be at least 1: " + maxKeys);
    }
    this.reminderNanos = reminderInterval.toNanos();
    this.maxKeys = maxKeys;
  }

  /** A log with the default reminder interval (one minute) and key bound. */
  public static FailureLog create(Logger logger, Clock clock) {
    return new FailureLog(logger, clock, DEFAULT_REMINDER_INTERVAL, DEFAULT_MAX_KEYS);
  }

  /** A log with the given reminder interval and at most {@code maxKeys} sources tracked. */
  public static FailureLog create(Logger logger, Clock clock, Duration reminderInterval, int maxKeys) {
    return new FailureLog(logger, clock, reminderInterval, maxKeys);
  }

  /**
   * Records a failure of {@code key} whose cause is {@code error}; the reason logged is {@link
   * #reason(Throwable)}, and the stack trace is attached only when the error is not {@linkplain
   * #isExpected expected}.
   *
   * @param what what failed and where, e.g. {@code Export of metrics to http://collector:4318}
   */
  public void failure(String key, String what, Throwable error) {
    record(key, what, reason(error), isExpected(error) ? null : error);
  }

  /** Records a failure of {@code key} described by {@code reason} (one line; no stack trace). */
  public void failure(String key, String what, String reason) {
    record(key, what, oneLine(reason), null);
  }

  /**
   * Records a success of {@code key}: one INFO when it was failing, nothing otherwise.
   *
   * @param what what recovered, as it was named in the failure (used only when the failure was
   *     not tracked)
   */
  public void success(String key, String what) {
    State state;
    long now = clock.nanoTime();
    synchronized (this) {
      state = failing.remove(key);
    }
    if (state != null) {
      logger.info(state.what + " recovered after " + format(Duration.ofNanos(now - state.since))
          + " (" + state.failures + (state.failures == 1 ? " failure)" : " failures)"));
    }
  }

  /** Whether {@code key} is failing now (a failure recorded and no success since). */
  public synchronized boolean isFailing(String key) {
    return failing.containsKey(key);
  }

  /** How many sources are failing now. */
  public synchronized int failingCount() {
    return failing.size();
  }

  private void record(String key, String what, String reason, Throwable trace) {
    long now = clock.nanoTime();
    LogRecord out;
    synchronized (this) {
      State state = failing.get(key);
      if (state == null) {
        if (failing.size() >= maxKeys) {
          out = overflow(key, what, reason);
        } else {
          failing.put(key, new State(what, now, reason));
          out = new LogRecord(Level.WARNING, what + " failed: " + reason);
          out.setThrown(trace);
        }
      } else {
        state.failures++;
        state.failuresSinceLog++;
        state.reason = reason;
        if (now - state.lastLogged >= reminderNanos) {
          state.lastLogged = now;
          out = new LogRecord(Level.WARNING, state.what + " still failing after "
              + format(Duration.ofNanos(now - state.since)) + " (" + state.failures
              + " failures, " + state.failuresSinceLog + " since the last report): " + reason);
          out.setThrown(trace);
          state.failuresSinceLog = 0;
        } else if (logger.isLoggable(Level.FINE)) {
          out = new LogRecord(Level.FINE, state.what + " failed again: " + reason);
        } else {
          out = null;
        }
      }
    }
    if (out != null) {
      // The source shown by SimpleFormatter's default format is the caller's component, not us.
      out.setLoggerName(logger.getName());
      out.setSourceClassName(logger.getName());
      out.setSourceMethodName(null);
      logger.log(out);
    }
  }

  private LogRecord overflow(String key, String what, String reason) {
    if (!overflowReported) {
      overflowReported = true;
      return new LogRecord(Level.WARNING, "more than " + maxKeys
          + " sources are failing at once; further failures are logged at FINE only (first: "
          + what + ": " + reason + ")");
    }
    return logger.isLoggable(Level.FINE) ? new LogRecord(Level.FINE, what + " failed: " + reason) : null;
  }

  /**
   * Whether {@code error} is an ordinary failure of the environment (a peer, a network, a file)
   * rather than a bug: connection refused or reset, unknown host, a timeout, a TLS error, or any
   * other {@link java.io.IOException} or {@link TimeoutException}, also when wrapped as the cause
   * of another exception.
   */
  public static boolean isExpected(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof java.io.IOException || t instanceof TimeoutException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * The reason of {@code error} on one line: the innermost cause that says something, named the
   * way an operator reads it ({@code connection refused}, {@code timed out}, {@code TLS: ...}),
   * else its class and message.
   */
  public static String reason(Throwable error) {
    if (error == null) {
      return "unknown error";
    }
    Throwable root = error;
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      root = t;
      if (named(t) != null) {
        break;
      }
    }
    String named = named(root);
    String message = root.getMessage();
    if (named != null) {
      return oneLine(message == null || message.isBlank() || named.equals(message)
          ? named : named + " (" + message + ")");
    }
    return oneLine(root.getClass().getSimpleName() + (message == null ? "" : ": " + message));
  }

  private static String named(Throwable t) {
    if (t instanceof ConnectException) {
      return "connection refused";
    }
    if (t instanceof HttpTimeoutException || t instanceof SocketTimeoutException
        || t instanceof TimeoutException || t instanceof InterruptedIOException) {
      return "timed out";
    }
    if (t instanceof UnknownHostException) {
      return "unknown host";
    }
    if (t instanceof NoRouteToHostException || t instanceof PortUnreachableException) {
      return "unreachable";
    }
    if (t instanceof SSLException) {
      return "TLS error";
    }
    if (t instanceof ClosedChannelException) {
      return "connection closed";
    }
    if (t instanceof SocketException) {
      return "connection error";
    }
    return null;
  }

  /** {@code text} on one line, at most 300 characters (a peer's message can be anything). */
  static String oneLine(String text) {
    if (text == null) {
      return "unknown error";
    }
    String line = text.strip().replaceAll("\\s*[\\r\\n]+\\s*", " / ");
    return line.length() <= 300 ? line : line.substring(0, 297) + "...";
  }

  /** {@code 45s}, {@code 2m 5s}, {@code 3h 2m}: how long, for a human. */
  static String format(Duration d) {
    long s = Math.max(0, d.toSeconds());
    if (s < 60) {
      return d.toMillis() < 1000 ? d.toMillis() + "ms" : s + "s";
    }
    if (s < 3600) {
      return (s / 60) + "m" + (s % 60 == 0 ? "" : " " + (s % 60) + "s");
    }
    long m = s / 60;
    return (m / 60) + "h" + (m % 60 == 0 ? "" : " " + (m % 60) + "m");
  }
}
