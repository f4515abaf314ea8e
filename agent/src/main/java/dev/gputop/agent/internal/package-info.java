/**
 * Not API: what the attach and extension entry points share about living inside a host JVM
 * ({@link dev.gputop.agent.internal.MetricsOnlyOpenTelemetry}: the host's SDK with the receivers'
 * spans left out).
 */
package dev.gputop.agent.internal;
