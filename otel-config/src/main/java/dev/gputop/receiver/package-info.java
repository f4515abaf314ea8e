/**
 * The receiver contract: the extension point a receiver implements to feed the agent (the NVML
 * and inference receivers do; a third one would implement exactly these types and nothing of the
 * agent's).
 *
 * <p><b>Finding and starting.</b> A {@link dev.gputop.receiver.ReceiverProvider} is found with
 * {@link java.util.ServiceLoader}: list it in {@code
 * META-INF/services/dev.gputop.receiver.ReceiverProvider} of the receiver's jar. The agent asks
 * every provider {@code enabled(config)}, calls {@code prepare(config)} on the enabled ones as soon
 * as the configuration is read (it must return at once; a provider may start loading on a daemon
 * thread of its own), then {@code create(context)} in ascending {@code order()}. {@code create}
 * registers the receiver's instruments with {@code context.openTelemetry()} and publishes the
 * services it offers other receivers ({@link dev.gputop.receiver.ReceiverContext#publish}, with
 * interfaces from {@code dev.gputop.config.services}); it may look up services of receivers with a
 * lower order. It must not block on I/O for long and must not throw for a missing data source
 * (the receiver reports {@code unavailable} instead); it may throw {@code ConfigException} for a
 * configuration it can't use, which stops the agent's start with that message.
 *
 * <p><b>Threading.</b> {@link dev.gputop.receiver.Receiver#refresh()} runs on one agent thread of
 * the receiver's own ({@code gputop-<name>}), one call at a time, every {@code refresh.normal}; it
 * may block on I/O but bounds that time itself, and never throws: failures become state (a server
 * {@code down}, a GPU {@code failed}, the receiver {@code unavailable}). It publishes one immutable
 * snapshot. Every other method ({@code health()}, {@code contribution()}, {@code exportedHistograms()},
 * {@code exportedCounters()}, the instruments' callbacks) may be called from any thread at any
 * time, does no I/O and no computation worth the name: it reads the latest published snapshot.
 * {@code close()} is idempotent and unregisters the callbacks.
 *
 * <p><b>Time.</b> A receiver reads time only from {@link dev.gputop.receiver.ReceiverContext#clock()}
 * ({@link dev.gputop.receiver.Clock}): {@code nanoTime()} for durations and deadlines, {@code
 * epochNanos()} for timestamps that leave the agent, so tests drive it with a manual clock.
 *
 * <p><b>The snapshot part.</b> {@link dev.gputop.receiver.Receiver#contribution()} returns the
 * latest cycle's {@link dev.gputop.receiver.Contribution}: GPU entries, server entries, {@link
 * dev.gputop.receiver.Alert}s, the {@link dev.gputop.receiver.ServingOverview} when the receiver
 * computes one, and further top-level sections by name. Entry types are the receiver's own
 * immutable records: they carry their JSON shape (Jackson writes them as they are, so their
 * fields are the document's) and implement {@link dev.gputop.receiver.GpuReport} or {@link
 * dev.gputop.receiver.ServerReport}, the values the agent reads (the history's keys and series).
 *
 * <p><b>How contributions merge.</b> The agent writes the JSON snapshot (docs/json-schema.md) once,
 * at the edge, from all receivers' contributions in start order: {@code gpus}, {@code inference}
 * and {@code alerts} concatenated; {@code overview.serving} from the receiver that computes one
 * (the later one's if several do; all null when none does); a further section two receivers
 * publish under one name: the later one's. Non-finite numbers become null. {@code health} is the
 * runtime's, keyed by {@code name()}. Histograms and counters of all receivers are exported side
 * by side, as they are.
 *
 * <p>Values crossing this boundary are immutable ({@link dev.gputop.receiver.Contribution}, {@link
 * dev.gputop.receiver.HealthStatus}, {@link dev.gputop.receiver.ExportedHistogram}, {@link
 * dev.gputop.receiver.ExportedCounter}); {@link dev.gputop.receiver.StandardReceiverContext} is
 * the one context, handed to providers by the runtime and by tests alike.
 */
package dev.gputop.receiver;
