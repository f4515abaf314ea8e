package dev.gputop.agent.demo;

import com.sun.net.httpserver.HttpServer;
import dev.gputop.receiver.Clock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Five local inference servers that need no GPU: replicas of the metrics endpoints of vLLM (V1,
 * data parallel 2), SGLang (tensor parallel 2), TGI, llama.cpp and TensorRT-LLM's trtllm-serve
 * (on {@code /prometheus/metrics}), each with the
 * engine's real metric names, labels, bucket boundaries and quirks, and counters that move like a
 * loaded server (see {@link LoadModel}). They listen on 127.0.0.1 and serve {@code GET /metrics}.
 *
 * <pre>{@code
 * try (DemoReplicas demo = DemoReplicas.start(42)) {
 *   for (Replica r : demo.replicas()) {
 *     System.out.println(r.name() + " " + r.engine() + " " + r.url());
 *   }
 * }
 * }</pre>
 *
 * <p>Tests drive them on a manual clock (test-support's {@code ManualClock}) and compare with
 * the truth they record through each model's {@link LoadListener} (the tests' {@code Truths}):
 *
 * <pre>{@code
 * ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
 * try (DemoReplicas demo = DemoReplicas.builder().seed(7).clock(clock).restarts(false).start()) {
 *   clock.advance(Duration.ofSeconds(30));
 *   // scrape demo.replica("vllm-dp2").url() ...
 * }
 * }</pre>
 *
 * <p>The models advance lazily to the clock's reading whenever they are read, so no simulation
 * thread is needed and runs are reproducible for a given seed and clock. The HTTP servers run on
 * daemon threads, so they never keep a JVM alive; {@link #close()} stops them. Thread-safe.
 */
public final class DemoReplicas implements AutoCloseable {

  /** Replica names, in the order {@link #replicas()} lists them. */
  public static final List<String> NAMES = List.of("vllm-dp2", "sglang-tp2", "tgi", "llamacpp", "trtllm");

  private final List<Replica> replicas;
  private final ExecutorService executor;
  private final AtomicBoolean closed = new AtomicBoolean();

  private DemoReplicas(List<Replica> replicas, ExecutorService executor) {
    this.replicas = List.copyOf(replicas);
    this.executor = executor;
  }

  /** Starts the five replicas on ephemeral loopback ports, on the system clock, with restarts. */
  public static DemoReplicas start(long seed) throws IOException {
    return builder().seed(seed).start();
  }

  /** A builder with the defaults: seed 0, system clock, restarts on, ephemeral ports. */
  public static Builder builder() {
    return new Builder();
  }

  /** The replicas: vllm-dp2, sglang-tp2, tgi, llamacpp, trtllm. */
  public List<Replica> replicas() {
    return replicas;
  }

  /** The replica with this name. */
  public Replica replica(String name) {
    for (Replica r : replicas) {
      if (r.name().equals(name)) {
        return r;
      }
    }
    throw new IllegalArgumentException("no demo replica named '" + name + "', expected one of " + NAMES);
  }

  /** Stops the HTTP servers. Idempotent. */
  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    for (Replica r : replicas) {
      r.stop();
    }
    executor.shutdownNow();
  }

  /** The load settings of each demo replica, by name (before {@link Builder#restarts}). */
  public static LoadModel.Settings settings(String name) {
    switch (name) {
      case "vllm-dp2":
        return new LoadModel.Settings(2, 48, 28_000, 16, 8.0, 1.7, 700, 160, 8192, 14_000, 0.012, 0.030, 0.55, 0, 900);
      case "sglang-tp2":
        return new LoadModel.Settings(1, 64, 48_000, 1, 6.0, 2.0, 600, 150, 8192, 16_000, 0.010, 0.025, 0.6, 0, 1200);
      case "tgi":
        return new LoadModel.Settings(1, 32, 40_000, 16, 3.0, 2.0, 500, 140, 4096, 9_000, 0.014, 0.030, 0.0, 0.004, 1500);
      case "llamacpp":
        return new LoadModel.Settings(1, 4, 16_384, 1, 0.5, 2.5, 300, 120, 4096, 2_500, 0.018, 0.020, 0.3, 0, 600);
      case "trtllm":
        return new LoadModel.Settings(1, 64, 60_000, 32, 5.0, 1.8, 800, 180, 8192, 20_000, 0.011, 0.020, 0.5, 0, 1300);
      default:
        throw new IllegalArgumentException("no demo replica named '" + name + "', expected one of " + NAMES);
    }
  }

  /** Configures and starts {@link DemoReplicas}. Not thread-safe. */
  public static final class Builder {
    private long seed;
    private Clock clock = Clock.system();
    private boolean restarts = true;
    private double meanSecondsBetweenRestarts = -1;
    private boolean llamaCppLegacyKvCache;
    private boolean earlyBurst;
    private int basePort;

    private Builder() {}

    /** The seed every replica's random draws derive from (default 0). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** The time source (default the system clock); test-support's {@code ManualClock} in tests. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Whether servers restart now and then, counters back to zero (default true). */
    public Builder restarts(boolean restarts) {
      this.restarts = restarts;
      return this;
    }

    /**
     * The mean time between restarts of every replica, instead of each one's default (10–25
     * minutes); restarts are never sooner than two minutes apart. For tests of restart handling.
     */
    public Builder meanSecondsBetweenRestarts(double seconds) {
      if (!(seconds > 0)) {
        throw new IllegalArgumentException("meanSecondsBetweenRestarts must be > 0: " + seconds);
      }
      this.meanSecondsBetweenRestarts = seconds;
      return this;
    }

    /**
     * Emulates a llama.cpp build from before May 2025 that still exports {@code
     * kv_cache_usage_ratio} and {@code kv_cache_tokens} (default false: the current build).
     */
    public Builder llamaCppLegacyKvCache(boolean legacy) {
      this.llamaCppLegacyKvCache = legacy;
      return this;
    }

    /**
     * Whether every replica's first burst of load starts 2–6 s after start and lasts 30–50 s
     * (default false: 20–60 s after start, 15–35 s long), so that a short run shows queues and a
     * full KV cache at once. The {@code demo} command turns it on.
     */
    public Builder earlyBurst(boolean earlyBurst) {
      this.earlyBurst = earlyBurst;
      return this;
    }

    /** The highest base port: the last replica listens on 65535. */
    public static final int MAX_BASE_PORT = 65_535 - (NAMES.size() - 1);

    /** Listens on basePort, basePort+1, … in {@link #NAMES} order; 0 (default) = ephemeral ports. */
    public Builder basePort(int basePort) {
      if (basePort < 0 || basePort > MAX_BASE_PORT) {
        throw new IllegalArgumentException("basePort out of range: " + basePort);
      }
      this.basePort = basePort;
      return this;
    }

    /** Creates the models and starts the HTTP servers. */
    public DemoReplicas start() throws IOException {
      List<Replica> list = new ArrayList<>();
      for (int i = 0; i < NAMES.size(); i++) {
        String name = NAMES.get(i);
        ExpositionWriter writer = writer(name);
        LoadModel.Settings s = settings(name);
        if (!restarts) {
          s = s.withoutRestarts();
        } else if (meanSecondsBetweenRestarts > 0) {
          s = s.withRestarts(meanSecondsBetweenRestarts);
        }
        long replicaSeed = seed ^ (0x9E3779B97F4A7C15L * (i + 1));
        list.add(new Replica(name, new LoadModel(s, writer.histogramBounds(), replicaSeed, clock, earlyBurst), writer));
      }
      ExecutorService executor = Executors.newFixedThreadPool(4, daemonThreads());
      try {
        bindAll(list, executor);
      } catch (IOException | RuntimeException e) {
        for (Replica r : list) {
          r.stop();
        }
        executor.shutdownNow();
        throw e;
      }
      return new DemoReplicas(list, executor);
    }

    private ExpositionWriter writer(String name) {
      switch (name) {
        case "vllm-dp2":
          return new VllmWriter("meta-llama/Llama-3.1-8B-Instruct", 8192);
        case "sglang-tp2":
          return new SglangWriter("Qwen/Qwen2.5-14B-Instruct", 2);
        case "tgi":
          return new TgiWriter(4095, 4096);
        case "llamacpp":
          return new LlamaCppWriter(llamaCppLegacyKvCache, 1_843_337_112L);
        case "trtllm":
          return new TrtllmWriter("nvidia/Llama-3.1-8B-Instruct-FP8");
        default:
          throw new IllegalArgumentException(name);
      }
    }

    private void bindAll(List<Replica> list, ExecutorService executor) throws IOException {
      // HttpServer's dispatcher thread inherits daemon status from the thread that starts it, so
      // start the servers from a daemon thread: the demo never keeps the JVM alive.
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread starter = new Thread(() -> {
        try {
          for (int i = 0; i < list.size(); i++) {
            int port = basePort == 0 ? 0 : basePort + i;
            HttpServer server;
            try {
              server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
            } catch (IOException e) {
              throw new IOException("can't listen on 127.0.0.1:" + port + " for the " + list.get(i).name()
                  + " replica: " + e.getMessage(), e);
            }
            server.setExecutor(executor);
            list.get(i).bind(server);
            server.start();
          }
        } catch (IOException | RuntimeException e) {
          failure.set(e);
        }
      }, "gputop-demo-start");
      starter.setDaemon(true);
      starter.start();
      try {
        starter.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while starting the demo replicas", e);
      }
      Throwable t = failure.get();
      if (t instanceof IOException) {
        throw (IOException) t;
      }
      if (t instanceof RuntimeException) {
        throw (RuntimeException) t;
      }
    }

    private static java.util.concurrent.ThreadFactory daemonThreads() {
      AtomicInteger n = new AtomicInteger();
      return r -> {
        Thread t = new Thread(r, "gputop-demo-http-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      };
    }
  }
}
