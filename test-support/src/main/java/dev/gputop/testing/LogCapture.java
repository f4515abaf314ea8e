package dev.gputop.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The records one logger publishes at a level and above while attached, for a test to assert
 * what was logged: attached by {@link #attach}, detached by {@link #close}, which also gives the
 * logger its parent handlers back (they are off while attached, so the capture does not print).
 * The one log capture of the modules' tests. Thread-safe: a record may come from any thread.
 */
public final class LogCapture implements AutoCloseable {

  private final Logger logger;
  private final boolean useParentHandlers;
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Handler handler;

  private LogCapture(Logger logger, Level level) {
    this.logger = logger;
    this.useParentHandlers = logger.getUseParentHandlers();
    int threshold = level.intValue();
    this.handler = new Handler() {
      @Override
      public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= threshold) {
          records.add(record);
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
  }

  /** Starts capturing what {@code logger} publishes at {@code level} and above. */
  public static LogCapture attach(Logger logger, Level level) {
    LogCapture c = new LogCapture(logger, level);
    logger.setUseParentHandlers(false);
    logger.addHandler(c.handler);
    return c;
  }

  /** The records captured so far, in order (a live view). */
  public List<LogRecord> records() {
    return records;
  }

  /** Stops capturing; the logger has its parent handlers again. The records stay readable. */
  @Override
  public void close() {
    logger.removeHandler(handler);
    logger.setUseParentHandlers(useParentHandlers);
  }
}
