package dev.gputop.agent;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The host application of {@link AttachIT}: prints one line, idles until the file named by its
 * argument appears, prints another and returns from main (so the JVM exits only if every thread
 * the agent left behind is a daemon). With {@code --uptime} it prints the JVM's uptime at main
 * instead, for measuring what {@code -javaagent} adds to start-up.
 */
final class HostApp {

  static final String SERVING = "host app: serving";
  static final String DONE = "host app: done";

  private HostApp() {}

  public static void main(String[] args) throws Exception {
    if (args[0].equals("--uptime")) {
      System.out.println(java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime());
      return;
    }
    Path stop = Path.of(args[0]);
    System.out.println(SERVING);
    System.out.flush();
    while (!Files.exists(stop)) {
      Thread.sleep(50);
    }
    System.out.println(DONE);
  }
}
