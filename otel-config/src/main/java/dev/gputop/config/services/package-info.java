/**
 * The services receivers offer each other through {@link
 * dev.gputop.receiver.ReceiverContext#publish} and {@link dev.gputop.receiver.ReceiverContext#lookup}:
 * the NVML receiver publishes a {@link dev.gputop.config.services.GpuProcessSource} (the
 * processes on each GPU, for discovery) and a {@link dev.gputop.config.services.GpuPowerSource}
 * (each GPU's power and energy counter, for the servers' efficiency); the inference receiver publishes a {@link
 * dev.gputop.config.services.ProcessOwnerLookup} (which server a process belongs to, for NVML's
 * per-process metrics). They live here, in the receivers' SPI module, so that neither receiver
 * module depends on the other.
 */
package dev.gputop.config.services;
