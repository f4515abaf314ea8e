package dev.gputop.benchmarks.scale;

import dev.gputop.config.Endpoint;
import dev.gputop.config.ScrapeConfig;
import dev.gputop.inference.scrape.HttpScraper;
import dev.gputop.inference.scrape.ScrapeResult;
import dev.gputop.receiver.Clock;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The HTTP exchange alone: what one {@link HttpScraper#scrapeAll} costs per target, in CPU
 * seconds of this process (every thread but the endpoints' own) and bytes allocated, against N
 * loopback endpoints serving the moving vLLM exposition (docs/PERFORMANCE.md, "Cost at scale").
 * Run with the JVM options to compare, e.g.:
 *
 * <pre>
 * java -Xmx64m -XX:+UseSerialGC -cp benchmarks/target/benchmarks.jar \
 *   dev.gputop.benchmarks.scale.ScrapeHttpCost 100 200
 * </pre>
 *
 * Arguments: endpoints (default 100), measured cycles (default 200; as many again warm up), and
 * the client: {@code scraper} (the agent's {@link HttpScraper}, on Eclipse Jetty's
 * {@code HttpClient} since issue 12; before, on the JDK's {@code java.net.http}),
 * {@code urlconnection} (the JDK's {@code HttpURLConnection}, blocking,
 * 8 threads) or {@code jetty} (Eclipse Jetty 12's {@code HttpClient}, 8 requests in flight), the
 * last two only to compare what the exchange itself costs.
 */
public final class ScrapeHttpCost {

  private ScrapeHttpCost() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    int cycles = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    String client = args.length > 2 ? args[2] : "scraper";
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    MovingVllmExposition server = new MovingVllmExposition(7);
    try (LoopbackEndpoints endpoints = new LoopbackEndpoints(n);
        HttpScraper httpScraper = new HttpScraper(ScrapeConfig.defaults(), Clock.system(),
            io.opentelemetry.api.OpenTelemetry.noop());
        Alternatives alternatives = new Alternatives(client)) {
      Alternatives.Cycle scraper = client.equals("scraper")
          ? t -> count(httpScraper.scrapeAll(t)) : alternatives::scrapeAll;
      endpoints.publish(server.render(), "text/plain; version=0.0.4; charset=utf-8");
      endpoints.start();
      long serverTid = threadId("loopback-endpoints");
      List<Endpoint> targets = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        targets.add(Endpoint.of("vllm-" + i,
            URI.create("http://127.0.0.1:" + endpoints.ports().get(i) + "/metrics")));
      }
      long ok = 0;
      for (int i = 0; i < cycles; i++) {
        ok += scraper.scrapeAll(targets);
      }
      double cpu0 = ProcessProbe.cpuSeconds(ProcessHandle.current().pid());
      long srv0 = threads.getThreadCpuTime(serverTid);
      long alloc0 = allocated(threads, serverTid);
      long good = 0;
      for (int i = 0; i < cycles; i++) {
        good += scraper.scrapeAll(targets);
      }
      double cpu = ProcessProbe.cpuSeconds(ProcessHandle.current().pid()) - cpu0
          - (threads.getThreadCpuTime(serverTid) - srv0) / 1e9;
      long alloc = allocated(threads, serverTid) - alloc0;
      System.out.printf(Locale.ROOT, client + ": %d endpoints x %d cycles: %d of %d ok; %.1f us CPU and %,d B"
              + " allocated per scrape (warm-up %d ok)%n", n, cycles, good, (long) n * cycles,
          1e6 * cpu / good, alloc / Math.max(1, good), ok);
    }
  }

  private static long count(List<ScrapeResult> results) {
    return results.stream().filter(ScrapeResult::ok).count();
  }

  private static long allocated(com.sun.management.ThreadMXBean threads, long except) {
    long sum = 0;
    for (long id : threads.getAllThreadIds()) {
      if (id != except) {
        long a = threads.getThreadAllocatedBytes(id);
        sum += Math.max(0, a);
      }
    }
    return sum;
  }

  private static long threadId(String name) {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals(name)) {
        return t.getId();
      }
    }
    throw new IllegalStateException("no thread " + name);
  }
}
