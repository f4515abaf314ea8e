package dev.gputop.inference.export;

import dev.gputop.inference.stats.LatencyStats;
import java.util.List;

/**
 * One {@code inference[]} entry of the JSON snapshot, field for field as SPEC.md section 4 names
 * them; null is N/A. Immutable.
 *
 * @param name the server's name
 * @param engine {@code vllm}, {@code sglang}, {@code tgi}, {@code llamacpp} or {@code unknown}
 * @param url the metrics URL
 * @param source {@code discovered} or {@code configured}
 * @param state {@code up}, {@code down} or {@code starting}
 * @param error why the last scrape failed, or null
 * @param gpus NVML indices of the GPUs its processes use
 * @param pids its processes
 * @param running requests in the batch
 * @param waiting requests queued
 * @param kvCacheUsage KV cache in use, 0–1
 * @param prefixHitRatio prefix-cache hit ratio over the window, 0–1
 * @param requestsPerSecond completed requests per second
 * @param promptTokensPerSecond prompt tokens per second
 * @param generationTokensPerSecond generated tokens per second
 * @param preemptionsPerSecond preemptions per second
 * @param ttft time to first token
 * @param itl inter-token latency
 * @param e2e end-to-end latency
 * @param queue queue time
 * @param ttftApproxMean TGI only: mean queue time + mean prefill batch time, an approximation of
 *     the mean TTFT for an engine without a TTFT histogram; null for the others
 * @param models the same statistics per served model when the server serves several, else empty
 */
public record ServerEntry(
    String name,
    String engine,
    String url,
    String source,
    String state,
    String error,
    List<Integer> gpus,
    List<Long> pids,
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
    Double ttftApproxMean,
    List<ModelEntry> models) {

  public ServerEntry {
    gpus = List.copyOf(gpus);
    pids = List.copyOf(pids);
    models = List.copyOf(models);
  }
}
