package dev.gputop.agent.demo;

/**
 * What happens inside a {@link LoadModel}, event by event, for whoever must know it exactly: the
 * tests, which keep the truth to compare with what the agent computes (their {@code Truth}). The
 * demo itself listens to nothing, so it keeps no history. Called on the model's lock, in
 * simulation order; times are readings of the model's clock ({@code nanoTime}).
 */
interface LoadListener {

  /** Listens to nothing. */
  LoadListener NONE = new LoadListener() {};

  /** {@code weight} observations of {@code value} went into a {@code kind} of one engine. */
  default void observed(int engine, Kind kind, double value, long weight) {}

  /** A request produced its first token (TTFT is observed then, also for requests still running). */
  default void firstToken(long nanos, double ttftSeconds) {}

  /** A request finished. */
  default void finished(CompletedRequest request) {}

  /** The server restarted: every counter and histogram starts from zero. */
  default void restarted(long nanos) {}
}
