package dev.gputop.agent;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The host application of {@link AttachIT}: prints one line, idles until the file named by its
 * argument appears, prints another and returns from main (so the JVM exits only if every thread
 * the agent left behind is a daemon). A second argument is a URL it fetches once with the JDK's HTTP
 * client after the first line (traced by the OpenTelemetry Java agent, when present, like any
 * application request). With {@code --uptime} it prints the JVM's uptime at main
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
    if (args.length > 1) {
      java.net.http.HttpClient.newHttpClient().send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(args[1])).build(),
          java.net.http.HttpResponse.BodyHandlers.discarding());
    }
    while (!Files.exists(stop)) {
      Thread.sleep(50);
    }
    System.out.println(DONE);
  }
}
