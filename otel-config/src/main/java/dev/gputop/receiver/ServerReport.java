package dev.gputop.receiver;

/**
 * What the agent reads of an {@code inference[]} entry beyond writing it: the server's name (the
 * key of its history) and the windowed statistics the history charts (docs/json-schema.md names
 * them; null is N/A). The inference receiver's {@code ServerEntry} implements it, its {@code
 * ServerStats} implements {@link Stats} and its {@code LatencyStats} {@link Latency}, all with
 * their own fields. Implementations are immutable.
 */
public interface ServerReport {

  /** The server's name; null for an entry without one (it has no history). */
  String name();

  /** Its statistics; null when it has none. */
  Stats stats();

  /** A server's windowed statistics, as many as the history charts. */
  interface Stats {

    /** Requests in the batch. */
    Integer running();

    /** Requests queued for admission. */
    Integer waiting();

    /** Fraction of KV cache in use, 0–1. */
    Double kvCacheUsage();

    /** Prefix cache hits over queries. */
    Double prefixHitRatio();

    Double requestsPerSecond();

    Double promptTokensPerSecond();

    Double generationTokensPerSecond();

    Double preemptionsPerSecond();

    /** Time to first token; null when the engine has none. */
    Latency ttft();

    /** Inter-token latency. */
    Latency itl();

    /** End-to-end latency. */
    Latency e2e();

    /** Queue time. */
    Latency queue();
  }

  /** A latency distribution's quantiles the history charts, in seconds. */
  interface Latency {

    Double p50();

    Double p99();
  }
}
