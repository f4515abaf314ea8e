package dev.gputop.inference.export;

import dev.gputop.inference.stats.LatencyStats;

/**
 * The statistics of one model on a server that serves several ({@code inference[].models[]}):
 * the fields of {@link ServerEntry} without url, source, gpus and pids. Immutable.
 */
public record ModelEntry(
    String name,
    String engine,
    String state,
    String error,
    Integer running,
    Integer waiting,
    Double kvCacheUsage,
    Double prefixHitRatio,
    Double requestsPerSecond,
    Double promptTokensPerSecond,
    Double generationTokensPerSecond,
    Double preemptionsPerSecond,
    LatencyStats ttft,
    LatencyStats itl,
    LatencyStats e2e,
    LatencyStats queue,
    Double ttftApproxMean) {}
