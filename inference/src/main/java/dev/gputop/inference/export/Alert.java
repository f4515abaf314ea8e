package dev.gputop.inference.export;

/**
 * One {@code alerts[]} entry. Immutable.
 *
 * @param name {@code kv_cache_full} or {@code inference_unhealthy}
 * @param server the server it concerns
 * @param message what is wrong, in words
 */
public record Alert(String name, String server, String message) {}
