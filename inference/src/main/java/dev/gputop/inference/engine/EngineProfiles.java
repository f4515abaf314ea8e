package dev.gputop.inference.engine;

import static dev.gputop.inference.engine.Source.counter;
import static dev.gputop.inference.engine.Source.gauge;
import static dev.gputop.inference.engine.Source.histogram;
import static dev.gputop.inference.engine.Source.sample;

import java.util.List;
import java.util.Map;

/**
 * The name maps of every engine (reference/CONCEPTS.md and reference/METRICS.md), and engine
 * recognition from metric names. Every rename of every released version is listed, newest name
 * first; docs/inference.md shows the same table for people. Thread-safe (constants only).
 */
public final class EngineProfiles {

  private EngineProfiles() {}

  /**
   * vLLM V0 and V1 (and Ray Serve's {@code ray_vllm:} re-export). Series repeat per {@code
   * engine} (data parallel), {@code model_name}, {@code finished_reason}: all summed.
   */
  public static final EngineProfile VLLM =
      new EngineProfile(
          Engine.VLLM,
          Map.of("vllm:", "vllm:", "ray_vllm:", "vllm:"),
          List.of("model_name"),
          List.of(),
          Map.ofEntries(
              Map.entry(Concept.RUNNING, List.of(gauge("vllm:num_requests_running"))),
              Map.entry(Concept.WAITING, List.of(gauge("vllm:num_requests_waiting"))),
              // 0.10 renamed gpu_cache_usage_perc (removed in 0.12).
              Map.entry(
                  Concept.KV_CACHE,
                  List.of(gauge("vllm:kv_cache_usage_perc"), gauge("vllm:gpu_cache_usage_perc"))),
              // V1: 0.10 renamed gpu_prefix_cache_* (removed in 0.12).
              Map.entry(
                  Concept.PREFIX_HITS,
                  List.of(counter("vllm:prefix_cache_hits"), counter("vllm:gpu_prefix_cache_hits"))),
              Map.entry(
                  Concept.PREFIX_QUERIES,
                  List.of(
                      counter("vllm:prefix_cache_queries"), counter("vllm:gpu_prefix_cache_queries"))),
              // V0 only (≤0.9): block-level, cumulative, −1 when prefix caching is off.
              Map.entry(Concept.PREFIX_HIT_RATE_GAUGE, List.of(gauge("vllm:gpu_prefix_cache_hit_rate"))),
              Map.entry(
                  Concept.REQUESTS,
                  List.of(
                      counter("vllm:request_success"),
                      sample("vllm:e2e_request_latency_seconds_count"))),
              Map.entry(Concept.PROMPT_TOKENS, List.of(counter("vllm:prompt_tokens"))),
              Map.entry(Concept.GENERATION_TOKENS, List.of(counter("vllm:generation_tokens"))),
              Map.entry(Concept.PREEMPTIONS, List.of(counter("vllm:num_preemptions"))),
              Map.entry(Concept.TTFT, List.of(histogram("vllm:time_to_first_token_seconds"))),
              // 0.11 renamed time_per_output_token_seconds (same data; removed ~0.14).
              Map.entry(
                  Concept.ITL,
                  List.of(
                      histogram("vllm:inter_token_latency_seconds"),
                      histogram("vllm:time_per_output_token_seconds"))),
              Map.entry(Concept.E2E, List.of(histogram("vllm:e2e_request_latency_seconds"))),
              // request_queue_time_seconds since ~0.6; time_in_queue_requests before (removed 0.10).
              Map.entry(
                  Concept.QUEUE,
                  List.of(
                      histogram("vllm:request_queue_time_seconds"),
                      histogram("vllm:time_in_queue_requests")))));

  /**
   * SGLang ({@code sglang:}, and {@code sglang_} behind sgl-router / smg gateway). Scheduler
   * gauges repeat per {@code tp_rank} (and {@code pp_rank}, {@code moe_ep_rank}): one rank is
   * read; {@code dp_rank} and the gateway's {@code worker_addr} are summed.
   */
  public static final EngineProfile SGLANG =
      new EngineProfile(
          Engine.SGLANG,
          Map.of("sglang:", "sglang:", "sglang_", "sglang:"),
          // v0.3.5 used name= instead of model_name=.
          List.of("model_name", "name"),
          List.of("tp_rank", "pp_rank", "moe_ep_rank"),
          Map.ofEntries(
              Map.entry(Concept.RUNNING, List.of(gauge("sglang:num_running_reqs"))),
              Map.entry(Concept.WAITING, List.of(gauge("sglang:num_queue_reqs"))),
              Map.entry(Concept.KV_CACHE, List.of(gauge("sglang:token_usage"))),
              Map.entry(Concept.PREFIX_HITS, List.of(counter("sglang:cached_tokens"))),
              Map.entry(Concept.PREFIX_QUERIES, List.of(counter("sglang:prompt_tokens"))),
              Map.entry(
                  Concept.REQUESTS,
                  List.of(
                      counter("sglang:num_requests"),
                      sample("sglang:e2e_request_latency_seconds_count"))),
              Map.entry(Concept.PROMPT_TOKENS, List.of(counter("sglang:prompt_tokens"))),
              Map.entry(Concept.GENERATION_TOKENS, List.of(counter("sglang:generation_tokens"))),
              Map.entry(Concept.PREEMPTIONS, List.of(counter("sglang:num_retracted_requests"))),
              Map.entry(Concept.TTFT, List.of(histogram("sglang:time_to_first_token_seconds"))),
              // time_per_output_token_seconds was the name up to ~v0.4.x.
              Map.entry(
                  Concept.ITL,
                  List.of(
                      histogram("sglang:inter_token_latency_seconds"),
                      histogram("sglang:time_per_output_token_seconds"))),
              Map.entry(Concept.E2E, List.of(histogram("sglang:e2e_request_latency_seconds"))),
              Map.entry(Concept.QUEUE, List.of(histogram("sglang:queue_time_seconds")))));

  /**
   * Text Generation Inference. No model label (one model per server); counters have no {@code
   * _total}; token throughput comes from the token-count histograms' {@code _sum}. No TTFT, no
   * KV cache. ITL is the per-request mean time per output token.
   */
  public static final EngineProfile TGI =
      new EngineProfile(
          Engine.TGI,
          Map.of("tgi_", "tgi_"),
          List.of(),
          List.of(),
          Map.ofEntries(
              Map.entry(Concept.RUNNING, List.of(gauge("tgi_batch_current_size"))),
              Map.entry(Concept.WAITING, List.of(gauge("tgi_queue_size"))),
              Map.entry(Concept.REQUESTS, List.of(counter("tgi_request_success"))),
              Map.entry(Concept.PROMPT_TOKENS, List.of(sample("tgi_request_input_length_sum"))),
              Map.entry(
                  Concept.GENERATION_TOKENS, List.of(sample("tgi_request_generated_tokens_sum"))),
              Map.entry(Concept.ITL, List.of(histogram("tgi_request_mean_time_per_token_duration"))),
              Map.entry(Concept.E2E, List.of(histogram("tgi_request_duration"))),
              Map.entry(Concept.QUEUE, List.of(histogram("tgi_request_queue_duration"))),
              // Only for the approximate TTFT (queue + prefill), shown under its own name.
              Map.entry(
                  Concept.PREFILL_BATCH,
                  List.of(histogram("tgi_batch_inference_duration").where("method", "prefill")))));

  /**
   * llama.cpp {@code llama-server --metrics}: no labels, no latency histograms, no request
   * counter; the KV-cache gauge exists only in builds before May 2025 (#13660).
   */
  public static final EngineProfile LLAMACPP =
      new EngineProfile(
          Engine.LLAMACPP,
          Map.of("llamacpp:", "llamacpp:"),
          List.of(),
          List.of(),
          Map.ofEntries(
              Map.entry(Concept.RUNNING, List.of(gauge("llamacpp:requests_processing"))),
              Map.entry(Concept.WAITING, List.of(gauge("llamacpp:requests_deferred"))),
              Map.entry(Concept.KV_CACHE, List.of(gauge("llamacpp:kv_cache_usage_ratio"))),
              Map.entry(Concept.PROMPT_TOKENS, List.of(counter("llamacpp:prompt_tokens"))),
              Map.entry(Concept.GENERATION_TOKENS, List.of(counter("llamacpp:tokens_predicted")))));

  /** Profiles in recognition priority: a vLLM that also serves TGI-style names is vLLM. */
  public static final List<EngineProfile> ALL = List.of(VLLM, SGLANG, LLAMACPP, TGI);

  /** The profile of an engine, or null for {@link Engine#UNKNOWN}. */
  public static EngineProfile of(Engine engine) {
    for (EngineProfile p : ALL) {
      if (p.engine() == engine) {
        return p;
      }
    }
    return null;
  }
}
