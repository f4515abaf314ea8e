package dev.gputop.inference.discovery;

/**
 * A process discovery looked at and did not turn into a server, with the reason (shown by {@code
 * discover} and in the snapshot). Immutable.
 *
 * @param pid the process
 * @param command its command line (truncated for display)
 * @param reason why it was skipped, e.g. "container abc123 has no known pod IP"
 */
public record SkippedProcess(long pid, String command, String reason) {}
