/**
 * The {@code /metrics} exposition: {@link dev.gputop.agent.prometheus.ExpositionReader} is the SDK's
 * metric reader, and the writers turn the collected metrics into the Prometheus text format 0.0.4
 * and OpenMetrics 1.0, byte for byte as OpenTelemetry's Prometheus exporter writes them, over
 * shared pieces: the names ({@link dev.gputop.agent.prometheus.ExpositionNames}), the labels
 * ({@link dev.gputop.agent.prometheus.PrometheusLabels}) and the output buffer ({@link
 * dev.gputop.agent.prometheus.TextBuffer}). Depends on no other package of the agent.
 */
package dev.gputop.agent.prometheus;
