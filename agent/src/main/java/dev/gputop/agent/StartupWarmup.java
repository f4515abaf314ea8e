package dev.gputop.agent;

import java.util.Set;

/**
 * Initializes, on a background thread, the JDK pieces the first scrape needs but the command line
 * and the SDK set-up do not: the default TLS context (reading the CA store is the largest single
 * cost of the first scrape, even of an http URL, because the JDK HTTP client builds it eagerly)
 * and the HTTP client classes. On a machine with a free core this overlaps with picocli, the
 * configuration and the SDK, shortening the time to the first scrape; elsewhere it costs nothing
 * extra, since the same work would be done on the main path. Stateless.
 */
final class StartupWarmup {

  /** The commands that scrape. */
  private static final Set<String> SCRAPING = Set.of("run", "snapshot", "demo");

  private StartupWarmup() {}

  static void startFor(String[] args) {
    if (args.length == 0 || !SCRAPING.contains(args[0])) {
      return;
    }
    Thread t = new Thread(StartupWarmup::warm, "gputop-warmup");
    t.setDaemon(true);
    t.setPriority(Thread.NORM_PRIORITY - 1);
    t.start();
  }

  private static void warm() {
    try {
      javax.net.ssl.SSLContext.getDefault();
      Class.forName("java.net.http.HttpClient", true, StartupWarmup.class.getClassLoader());
    } catch (Exception | LinkageError e) {
      // Only an optimization: the scrape path does the same work and reports failures itself.
    }
  }
}
