package dev.gputop.nvml;

/**
 * One Xid critical error event from NVML ({@code nvmlEventTypeXidCriticalError}). Immutable.
 *
 * @param gpuUuid the GPU's UUID
 * @param index the GPU's NVML index
 * @param xid the Xid code; 999 when the driver does not know it
 * @param gpuInstanceId the MIG GPU instance the event is attributed to, or null
 * @param computeInstanceId the MIG compute instance, or null
 */
record XidEvent(String gpuUuid, int index, long xid, Integer gpuInstanceId, Integer computeInstanceId) {}
