package dev.gputop.agent.demo;

import dev.gputop.receiver.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A simulated inference server under load: Poisson arrivals whose rate drifts and bursts, a
 * waiting queue, a batch limited by {@code maxRunning} and by KV-cache capacity, prefill and
 * decode times drawn from realistic distributions, prefix-cache hits, preemptions when the KV
 * cache overflows, and (optionally) a restart now and then that sets every counter back to zero.
 * With several data-parallel engines each engine has its own queue, batch and counters, and
 * arrivals go to the least loaded one.
 *
 * <p>The model is advanced in fixed 20 ms steps on a grid anchored at its creation, lazily: every
 * read ({@link #stats()}, {@link #isDown()}) first simulates up to the clock's {@code nanoTime()}.
 * So the same seed and the same clock readings give the same server, whether it is read often or
 * rarely, in real time or on a manual clock (test-support's {@code ManualClock}). Events inside a
 * step keep their exact times (arrivals, first tokens, finishes); only scheduling happens on step
 * boundaries.
 *
 * <p>Every value that goes into a histogram, every first token, finish and restart is told to a
 * {@link LoadListener}, so tests can keep the truth and compare what the agent computes with what
 * really happened; the demo keeps no such history.
 *
 * <p>Thread-safe: all methods synchronize on the model.
 */
public final class LoadModel {

  /** The length of one simulation step. */
  public static final long STEP_NANOS = 20_000_000L;

  /**
   * The shape of a simulated server.
   *
   * @param engines data-parallel engines (each its own scheduler), at least 1
   * @param maxRunning the batch limit per engine
   * @param kvCapacityTokens KV-cache capacity per engine, in tokens
   * @param blockSize KV block size in tokens (prefix hits are whole blocks)
   * @param arrivalsPerSecond mean arrival rate over the whole server
   * @param burstFactor arrival-rate multiplier during bursts (1 = no bursts)
   * @param promptTokensMedian median prompt length
   * @param generationTokensMedian median generated length
   * @param maxModelLen context length (caps prompt lengths)
   * @param prefillTokensPerSecond prefill speed of an idle engine
   * @param itlBaseSeconds inter-token gap of an idle engine
   * @param itlLoadSeconds extra gap at a full batch
   * @param prefixShareProbability chance that a prompt starts with a cached prefix
   * @param rejectProbability chance that a request fails validation (never queued)
   * @param meanSecondsBetweenRestarts mean time between restarts; 0 disables restarts
   */
  public record Settings(
      int engines,
      int maxRunning,
      long kvCapacityTokens,
      int blockSize,
      double arrivalsPerSecond,
      double burstFactor,
      double promptTokensMedian,
      double generationTokensMedian,
      int maxModelLen,
      double prefillTokensPerSecond,
      double itlBaseSeconds,
      double itlLoadSeconds,
      double prefixShareProbability,
      double rejectProbability,
      double meanSecondsBetweenRestarts) {

    public Settings {
      if (engines < 1 || maxRunning < 1 || kvCapacityTokens < 1 || blockSize < 1) {
        throw new IllegalArgumentException("engines, maxRunning, kvCapacityTokens, blockSize must be > 0");
      }
      if (!(arrivalsPerSecond > 0) || !(prefillTokensPerSecond > 0) || !(itlBaseSeconds > 0)) {
        throw new IllegalArgumentException("rates and itlBaseSeconds must be > 0");
      }
      if (burstFactor < 1 || meanSecondsBetweenRestarts < 0) {
        throw new IllegalArgumentException("burstFactor must be >= 1, meanSecondsBetweenRestarts >= 0");
      }
    }

    /** These settings with restarts switched off (for tests that need monotonic counters). */
    public Settings withoutRestarts() {
      return withRestarts(0);
    }

    /** These settings with another mean time between restarts (0 = never). */
    public Settings withRestarts(double meanSeconds) {
      return new Settings(engines, maxRunning, kvCapacityTokens, blockSize, arrivalsPerSecond,
          burstFactor, promptTokensMedian, generationTokensMedian, maxModelLen,
          prefillTokensPerSecond, itlBaseSeconds, itlLoadSeconds, prefixShareProbability,
          rejectProbability, meanSeconds);
    }

    /** These settings with another mean arrival rate. */
    public Settings withArrivalsPerSecond(double rate) {
      return new Settings(engines, maxRunning, kvCapacityTokens, blockSize, rate, burstFactor,
          promptTokensMedian, generationTokensMedian, maxModelLen, prefillTokensPerSecond,
          itlBaseSeconds, itlLoadSeconds, prefixShareProbability, rejectProbability,
          meanSecondsBetweenRestarts);
    }
  }

  /** A copy of the model's state for a writer: consistent, private to the caller. */
  record Stats(
      long nowNanos,
      long nowEpochNanos,
      long startEpochNanos,
      long startNanos,
      int generation,
      Settings settings,
      List<EngineStats> engines) {}

  private enum Phase { WAITING, PREFILL, DECODE }

  private static final class Request {
    final long arrival;
    final int prompt;
    final int cached;
    final int gen;
    final int maxTokens;
    Phase phase = Phase.WAITING;
    long scheduled = -1;
    long firstToken = -1;
    long prefillEnd;
    long lastToken;
    long itlNanos;
    int generated;
    int preemptions;
    final List<Double> stalls = new ArrayList<>(0);

    Request(long arrival, int prompt, int cached, int gen, int maxTokens) {
      this.arrival = arrival;
      this.prompt = prompt;
      this.cached = cached;
      this.gen = gen;
      this.maxTokens = maxTokens;
    }

    long kvTokens() {
      return prompt + generated;
    }
  }

  private static final class Engine {
    final ArrayDeque<Request> waiting = new ArrayDeque<>();
    final List<Request> running = new ArrayList<>();
    EngineStats stats;

    int load() {
      return waiting.size() + running.size();
    }
  }

  private final Settings settings;
  private final Clock clock;
  private final SplittableRandom rnd;
  private final Map<Kind, double[]> bounds;
  private final long originNanos;
  private final long epochOffsetNanos;
  private final double phase;
  private final Engine[] engines;
  private LoadListener listener = LoadListener.NONE;

  private long simNanos;
  private long startNanos;
  private int generation;
  private long nextArrival;
  private long nextRestart;
  private long burstStart;
  private long burstEnd;
  /** Until when the server is down after a scheduled restart (not listening, no arrivals). */
  private long downUntil = Long.MIN_VALUE;

  /**
   * A model that keeps histograms of the given kinds with the given upper bounds (the engine's
   * bucket boundaries; +Inf is implied). Kinds not listed are still recorded as truth totals.
   */
  public LoadModel(Settings settings, Map<Kind, double[]> histogramBounds, long seed, Clock clock) {
    this(settings, histogramBounds, seed, clock, false);
  }

  /**
   * As {@link #LoadModel(Settings, Map, long, Clock)}; with {@code earlyBurst} the first burst
   * starts 2–6 s after creation and lasts 30–50 s (instead of 20–60 s and 15–35 s), so that a
   * 30-second demo shows queues and a full KV cache. The random draws are the same either way.
   */
  public LoadModel(Settings settings, Map<Kind, double[]> histogramBounds, long seed, Clock clock, boolean earlyBurst) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.bounds = new EnumMap<>(Kind.class);
    for (Map.Entry<Kind, double[]> e : histogramBounds.entrySet()) {
      bounds.put(e.getKey(), e.getValue().clone());
    }
    this.rnd = new SplittableRandom(seed);
    this.originNanos = clock.nanoTime();
    this.epochOffsetNanos = clock.epochNanos() - originNanos;
    this.simNanos = originNanos;
    this.startNanos = originNanos;
    // Start near the top of the swell, so the first burst (20–60 s in) fills the batch: a short
    // demo shows queues and a full KV cache, not only an idle server.
    this.phase = Math.PI / 2 - 0.6 + rnd.nextDouble() * 0.9;
    this.engines = new Engine[settings.engines()];
    for (int i = 0; i < engines.length; i++) {
      engines[i] = new Engine();
      engines[i].stats = new EngineStats(i, bounds, settings.kvCapacityTokens());
    }
    this.nextArrival = originNanos + expNanos(rate(originNanos));
    // The first burst comes soon, so a short demo shows a queue forming.
    this.burstStart = originNanos + (long) ((earlyBurst ? 2 + rnd.nextDouble() * 4 : 20 + rnd.nextDouble() * 40) * 1e9);
    this.burstEnd = burstStart + (long) ((earlyBurst ? 30 : 15) * 1e9 + rnd.nextDouble() * 20 * 1e9);
    this.nextRestart = scheduleRestart(originNanos);
  }

  /** The settings this model runs with. */
  public Settings settings() {
    return settings;
  }

  /** Simulates up to the clock's current reading. */
  public synchronized void advance() {
    long now = clock.nanoTime();
    while (simNanos + STEP_NANOS <= now) {
      step(simNanos, simNanos + STEP_NANOS);
      simNanos += STEP_NANOS;
    }
  }

  /**
   * Tells {@code l} everything that happens from now on. Only before the first step, so that
   * nothing it must know has happened yet (the model runs only when read).
   *
   * @throws IllegalStateException when the model has already simulated a step
   */
  synchronized void listen(LoadListener l) {
    if (simNanos != originNanos) {
      throw new IllegalStateException("the model has already run: listen before the first read");
    }
    listener = Objects.requireNonNull(l, "listener");
    for (Engine e : engines) {
      e.stats.listener = l;
    }
  }

  /** Who is told of what happens ({@link LoadListener#NONE} in the demo). */
  synchronized LoadListener listener() {
    return listener;
  }

  /** A consistent copy of every engine's metrics, after simulating up to now. */
  synchronized Stats stats() {
    advance();
    List<EngineStats> copies = new ArrayList<>(engines.length);
    for (Engine e : engines) {
      copies.add(e.stats.copy());
    }
    return new Stats(simNanos, simNanos + epochOffsetNanos, startNanos + epochOffsetNanos,
        startNanos, generation, settings, copies);
  }

  /** Restarts the server now: queued and running requests are lost, counters start from zero. */
  public synchronized void restart() {
    advance();
    restartAt(simNanos);
  }

  /**
   * Whether the server is down now: for 3–10 s after each scheduled restart it is not listening
   * (the replica drops the connection) and requests sent to it are lost. A {@link #restart()}
   * asked for explicitly has no downtime.
   */
  public synchronized boolean isDown() {
    advance();
    return simNanos < downUntil;
  }

  private void step(long t0, long t1) {
    if (t1 >= nextRestart) {
      restartAt(t1);
      downUntil = t1 + (long) ((3 + rnd.nextDouble() * 7) * 1e9);
    }
    arrivals(t1);
    for (Engine e : engines) {
      progress(e, t1);
      preempt(e);
      int admittedTokens = admit(e, t1);
      iterate(e, admittedTokens);
    }
  }

  private void arrivals(long t1) {
    while (nextArrival <= t1) {
      long at = nextArrival;
      nextArrival = at + expNanos(rate(at));
      if (at < downUntil) {
        continue; // nobody is listening: the client sees a refused connection
      }
      Engine target = engines[0];
      for (int i = 1; i < engines.length; i++) {
        Engine e = engines[i];
        if (e.load() < target.load() || (e.load() == target.load() && rnd.nextBoolean())) {
          target = e;
        }
      }
      target.stats.arrived++;
      if (rnd.nextDouble() < settings.rejectProbability()) {
        target.stats.rejected++;
        continue;
      }
      target.waiting.addLast(newRequest(at));
    }
  }

  private Request newRequest(long at) {
    int maxLen = Math.max(16, settings.maxModelLen());
    int prompt = (int) clamp(logNormal(settings.promptTokensMedian(), 0.8), 8, maxLen / 2.0);
    double u = rnd.nextDouble();
    int maxTokens = u < 0.15 ? 128 : u < 0.5 ? 256 : u < 0.85 ? 512 : 1024;
    maxTokens = Math.min(maxTokens, maxLen - prompt);
    int gen = (int) clamp(logNormal(settings.generationTokensMedian(), 0.7), 1, maxTokens);
    int cached = 0;
    if (rnd.nextDouble() < settings.prefixShareProbability()) {
      int c = (int) (prompt * (0.3 + rnd.nextDouble() * 0.65));
      c = Math.min(c, prompt - 1); // the last prompt token is always computed
      cached = Math.max(0, c / settings.blockSize() * settings.blockSize());
    }
    return new Request(at, prompt, cached, gen, maxTokens);
  }

  private void progress(Engine e, long t1) {
    EngineStats s = e.stats;
    long produced = 0;
    for (Iterator<Request> it = e.running.iterator(); it.hasNext(); ) {
      Request r = it.next();
      if (r.phase == Phase.PREFILL && r.prefillEnd <= t1) {
        if (r.firstToken < 0) {
          r.firstToken = r.prefillEnd;
          double ttft = (r.firstToken - r.arrival) / 1e9;
          s.observe(Kind.TTFT, ttft, 1);
          listener.firstToken(r.firstToken, ttft);
          s.promptTokens += r.prompt;
        } else {
          // Resumed after a preemption: one long gap between two tokens.
          double gap = (r.prefillEnd - r.lastToken) / 1e9;
          r.stalls.add(gap);
          s.observe(Kind.ITL, gap, 1);
        }
        r.generated++;
        r.lastToken = r.prefillEnd;
        s.generationTokens++;
        produced++;
        r.phase = Phase.DECODE;
      }
      if (r.phase == Phase.DECODE) {
        long n = Math.min(r.gen - r.generated, (t1 - r.lastToken) / r.itlNanos);
        if (n > 0) {
          r.generated += (int) n;
          r.lastToken += n * r.itlNanos;
          s.observe(Kind.ITL, r.itlNanos / 1e9, n);
          s.generationTokens += n;
          produced += n;
        }
        if (r.generated >= r.gen) {
          it.remove();
          finish(e, r);
        }
      }
    }
    double stepRate = produced / (STEP_NANOS / 1e9);
    s.genThroughput = s.genThroughput * 0.95 + stepRate * 0.05;
  }

  private void finish(Engine e, Request r) {
    EngineStats s = e.stats;
    long end = r.lastToken;
    String reason = r.gen >= r.maxTokens ? "length" : "stop";
    s.completed++;
    if (reason.equals("length")) {
      s.finishedLength++;
    } else {
      s.finishedStop++;
    }
    s.promptTokensFinished += r.prompt;
    s.generationTokensFinished += r.gen;
    s.cachedTokensFinished += r.cached;
    CompletedRequest c = new CompletedRequest(
        e.stats.index, generation, r.arrival, r.scheduled, r.firstToken, end, r.prompt, r.cached,
        r.gen, r.maxTokens, reason, r.preemptions, r.itlNanos / 1e9, r.stalls);
    s.promptMillisFinished += (long) Math.floor(c.prefillSeconds() * 1000);
    s.predictedMillisFinished += (long) Math.floor(c.decodeSeconds() * 1000);
    s.observe(Kind.E2E, c.e2eSeconds(), 1);
    s.observe(Kind.QUEUE, c.queueSeconds(), 1);
    s.observe(Kind.PREFILL, c.prefillSeconds(), 1);
    s.observe(Kind.DECODE, c.decodeSeconds(), 1);
    s.observe(Kind.INFERENCE, c.inferenceSeconds(), 1);
    if (r.gen > 1) {
      s.observe(Kind.TPOT, c.tpotSeconds(), 1);
    }
    s.observe(Kind.PROMPT_TOKENS, r.prompt, 1);
    s.observe(Kind.GENERATION_TOKENS, r.gen, 1);
    s.observe(Kind.MAX_TOKENS, r.maxTokens, 1);
    s.observe(Kind.PARAMS_N, 1, 1);
    s.observe(Kind.PREFILL_COMPUTED_TOKENS, r.prompt - r.cached, 1);
    s.observe(Kind.PREEMPTIONS_PER_REQUEST, r.preemptions, 1);
    s.observe(Kind.VALIDATION, 0.0002 + rnd.nextDouble() * 0.0008, 1);
    listener.finished(c);
  }

  private void preempt(Engine e) {
    long used = 0;
    for (Request r : e.running) {
      used += r.kvTokens();
    }
    while (used > settings.kvCapacityTokens()) {
      Request victim = null;
      for (int i = e.running.size() - 1; i >= 0; i--) {
        if (e.running.get(i).phase == Phase.DECODE) {
          victim = e.running.remove(i);
          break;
        }
      }
      if (victim == null) {
        break;
      }
      used -= victim.kvTokens();
      victim.phase = Phase.WAITING;
      victim.preemptions++;
      e.stats.preemptions++;
      e.stats.preemptedInputTokens += victim.prompt;
      e.stats.preemptedOutputTokens += victim.generated;
      e.waiting.addFirst(victim);
    }
  }

  private int admit(Engine e, long t1) {
    EngineStats s = e.stats;
    long used = 0;
    for (Request r : e.running) {
      used += r.kvTokens();
    }
    int computed = 0;
    long batchQueries = 0;
    long batchHits = 0;
    double longestPrefill = 0;
    while (!e.waiting.isEmpty() && e.running.size() < settings.maxRunning()) {
      Request r = e.waiting.peekFirst();
      long need = r.kvTokens() + 1;
      if (!e.running.isEmpty() && used + need > 0.98 * settings.kvCapacityTokens()) {
        break; // no room in the KV cache: the request keeps waiting
      }
      e.waiting.removeFirst();
      double load = (double) e.running.size() / settings.maxRunning();
      int uncached;
      if (r.scheduled < 0) {
        r.scheduled = t1;
        s.prefixQueries += r.prompt;
        s.prefixHits += r.cached;
        batchQueries += r.prompt;
        batchHits += r.cached;
        uncached = r.prompt - r.cached;
        double itl = (settings.itlBaseSeconds() + settings.itlLoadSeconds() * Math.pow(load, 1.5))
            * logNormal(1.0, 0.15);
        r.itlNanos = Math.max(1_000_000L, (long) (clamp(itl, 0.004, 0.25) * 1e9));
      } else {
        uncached = r.prompt + r.generated; // recompute after preemption
      }
      double prefill = 0.012
          + uncached / settings.prefillTokensPerSecond() * (1 + load)
          + rnd.nextDouble() * 0.5 * settings.itlBaseSeconds();
      r.prefillEnd = t1 + (long) (prefill * 1e9);
      r.phase = Phase.PREFILL;
      e.running.add(r);
      used += need;
      computed += uncached;
      longestPrefill = Math.max(longestPrefill, prefill);
    }
    if (computed > 0) {
      s.prefillCalls++;
      s.observe(Kind.BATCH_PREFILL, longestPrefill, 1);
      if (batchQueries > 0) {
        s.cacheHitRate = (double) batchHits / batchQueries;
      }
    }
    long kv = 0;
    long maxTokens = 0;
    for (Request r : e.running) {
      kv += r.kvTokens();
      maxTokens += r.prompt + r.maxTokens;
    }
    s.kvUsedTokens = Math.min(kv, settings.kvCapacityTokens());
    s.batchMaxTokens = maxTokens;
    s.running = e.running.size();
    s.waiting = e.waiting.size();
    return computed;
  }

  private void iterate(Engine e, int admittedTokens) {
    if (e.running.isEmpty()) {
      return;
    }
    EngineStats s = e.stats;
    int decoding = 0;
    long itlSum = 0;
    for (Request r : e.running) {
      if (r.phase == Phase.DECODE) {
        decoding++;
        itlSum += r.itlNanos;
      }
    }
    s.decodeCalls++;
    s.busySlotSum += e.running.size();
    long stepTokens = decoding + admittedTokens;
    s.maxStepTokens = Math.max(s.maxStepTokens, stepTokens);
    if (stepTokens > 0) {
      s.observe(Kind.ITERATION_TOKENS, stepTokens, 1);
    }
    if (decoding > 0) {
      s.observe(Kind.BATCH_DECODE, itlSum / (double) decoding / 1e9, 1);
    }
  }

  private void restartAt(long t) {
    generation++;
    startNanos = t;
    listener.restarted(t);
    for (int i = 0; i < engines.length; i++) {
      engines[i].waiting.clear();
      engines[i].running.clear();
      engines[i].stats = new EngineStats(i, bounds, settings.kvCapacityTokens());
      engines[i].stats.listener = listener;
    }
    nextRestart = scheduleRestart(t);
  }

  private long scheduleRestart(long from) {
    if (settings.meanSecondsBetweenRestarts() <= 0) {
      return Long.MAX_VALUE;
    }
    // Never sooner than two minutes, so a window of scrapes always sees some steady load.
    double s = 120 + expSeconds(1 / settings.meanSecondsBetweenRestarts());
    return from + (long) (s * 1e9);
  }

  /** Arrivals per second at time t: a slow swell, plus bursts. */
  private double rate(long t) {
    double minutes = (t - originNanos) / 60e9;
    double swell = 0.85 + 0.3 * Math.sin(2 * Math.PI * minutes / 4 + phase);
    if (t >= burstEnd) {
      burstStart = t + (long) ((30 + expSeconds(1 / 90.0)) * 1e9);
      burstEnd = burstStart + (long) ((15 + rnd.nextDouble() * 15) * 1e9);
    }
    double burst = t >= burstStart ? settings.burstFactor() : 1;
    return settings.arrivalsPerSecond() * swell * burst;
  }

  private long expNanos(double ratePerSecond) {
    return Math.max(1L, (long) (expSeconds(ratePerSecond) * 1e9));
  }

  private double expSeconds(double ratePerSecond) {
    return -Math.log(1 - rnd.nextDouble()) / ratePerSecond;
  }

  private double logNormal(double median, double sigma) {
    return median * Math.exp(sigma * gaussian());
  }

  private double gaussian() {
    // Box-Muller; SplittableRandom has no nextGaussian on Java 17.
    double u1 = 1 - rnd.nextDouble();
    double u2 = rnd.nextDouble();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  private static double clamp(double v, double lo, double hi) {
    return Math.max(lo, Math.min(hi, v));
  }
}
