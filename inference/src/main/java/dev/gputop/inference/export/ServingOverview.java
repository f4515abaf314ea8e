package dev.gputop.inference.export;

/**
 * {@code overview.serving} of the JSON snapshot: across servers, the worst TTFT p99, the worst
 * ITL p50, the total generation throughput and the total of queued requests. Null when no server
 * has the value. Immutable.
 */
public record ServingOverview(
    Double worstTtftP99, Double worstItlP50, Double generationTokensPerSecond, Integer waiting) {}
