package dev.gputop.benchmarks.scale;

import dev.gputop.config.Endpoint;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;

/**
 * The same GET of every target through another client, for {@link ScrapeHttpCost}: the body
 * read into memory with a cap, 8 at a time, keep-alive, no proxy, no redirects. Measurement
 * only: none of the scraper's limits, error mapping or telemetry.
 */
final class Alternatives implements AutoCloseable {

  interface Cycle {
    long scrapeAll(List<Endpoint> targets) throws Exception;
  }

  private static final int CONCURRENCY = 8;
  private static final int CAP = 16 << 20;

  private final String kind;
  private final ExecutorService pool;
  private final HttpClient jetty;

  Alternatives(String kind) throws Exception {
    this.kind = kind;
    this.pool = kind.equals("urlconnection") ? Executors.newFixedThreadPool(CONCURRENCY) : null;
    if (kind.equals("jetty")) {
      jetty = new HttpClient(new HttpClientTransportOverHTTP(1));
      jetty.setFollowRedirects(false);
      jetty.setMaxConnectionsPerDestination(1);
      jetty.setUserAgentField(null);
      jetty.start();
    } else {
      jetty = null;
    }
  }

  long scrapeAll(List<Endpoint> targets) throws Exception {
    return kind.equals("jetty") ? jetty(targets) : urlConnection(targets);
  }

  private long urlConnection(List<Endpoint> targets) throws Exception {
    List<Callable<Boolean>> tasks = new ArrayList<>(targets.size());
    for (Endpoint t : targets) {
      tasks.add(() -> {
        HttpURLConnection c = (HttpURLConnection) t.url().toURL().openConnection(Proxy.NO_PROXY);
        c.setInstanceFollowRedirects(false);
        c.setConnectTimeout(1500);
        c.setReadTimeout(2000);
        c.setRequestProperty("Accept", "text/plain;version=0.0.4");
        c.setRequestProperty("Accept-Encoding", "gzip");
        c.setRequestProperty("User-Agent", "gputop-agent");
        int status = c.getResponseCode();
        try (InputStream in = c.getInputStream()) {
          byte[] body = read(in, c.getContentLengthLong());
          return status == 200 && body.length > 0;
        }
      });
    }
    long ok = 0;
    for (Future<Boolean> f : pool.invokeAll(tasks, 2, TimeUnit.SECONDS)) {
      if (!f.isCancelled() && f.get()) {
        ok++;
      }
    }
    return ok;
  }

  private static byte[] read(InputStream in, long length) throws IOException {
    byte[] buf = new byte[(int) Math.min(length >= 0 ? length : 16 << 10, CAP)];
    int n = 0;
    while (true) {
      if (n == buf.length) {
        if (buf.length >= CAP) {
          throw new IOException("too large");
        }
        buf = java.util.Arrays.copyOf(buf, Math.min(buf.length * 2, CAP));
      }
      int r = in.read(buf, n, buf.length - n);
      if (r < 0) {
        return n == buf.length ? buf : java.util.Arrays.copyOf(buf, n);
      }
      n += r;
    }
  }

  private long jetty(List<Endpoint> targets) throws Exception {
    Semaphore slots = new Semaphore(CONCURRENCY);
    CountDownLatch done = new CountDownLatch(targets.size());
    AtomicLong ok = new AtomicLong();
    for (Endpoint t : targets) {
      slots.acquire();
      jetty.newRequest(t.url())
          .timeout(2, TimeUnit.SECONDS)
          .headers(h -> h.put("Accept", "text/plain;version=0.0.4")
              .put("Accept-Encoding", "gzip").put("User-Agent", "gputop-agent"))
          .send(new BufferingResponseListener(CAP) {
            @Override
            public void onComplete(org.eclipse.jetty.client.Result result) {
              if (!result.isFailed() && result.getResponse().getStatus() == 200
                  && getContent().length > 0) {
                ok.incrementAndGet();
              }
              slots.release();
              done.countDown();
            }
          });
    }
    done.await(3, TimeUnit.SECONDS);
    return ok.get();
  }

  @Override
  public void close() throws Exception {
    if (pool != null) {
      pool.shutdownNow();
    }
    if (jetty != null) {
      jetty.stop();
    }
  }
}
