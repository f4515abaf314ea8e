/**
 * The running agent: {@link dev.gputop.agent.runtime.AgentRuntime} refreshes the receivers on
 * their schedule, assembles the snapshot document ({@link
 * dev.gputop.agent.runtime.SnapshotAssembler}) and records history; {@link
 * dev.gputop.agent.runtime.StandaloneSdk} wires the OpenTelemetry SDK (OTLP exporter with {@link
 * dev.gputop.agent.runtime.LazyTlsHttpSenderProvider}, the Prometheus reader, the servers'
 * histograms through {@link dev.gputop.agent.runtime.ExportedHistogramProducer}) and {@link
 * dev.gputop.agent.runtime.ExportMonitor} reports the exports' health. Also the agent's JSON
 * mapper, version and uptime, which every output shares. Everything an output needs from a
 * running agent is here; the outputs themselves ({@code http}, {@code top}) sit above.
 */
package dev.gputop.agent.runtime;
