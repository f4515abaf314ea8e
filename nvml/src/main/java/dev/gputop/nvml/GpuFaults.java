package dev.gputop.nvml;

import java.util.List;

/**
 * The fault counters of one GPU read in one sample (docs/nvml.md, "GPU faults"): memory
 * retirement (remapped rows on Ampere and later, retired pages before), PCIe replays and NVLink.
 * A value the GPU does not report is null; a GPU without NVLink has no links. Immutable.
 *
 * @param remappedRowsCorrectable rows remapped after correctable errors (InfoROM entries)
 * @param remappedRowsUncorrectable rows remapped after uncorrectable errors
 * @param remapPending a remap waits for the next GPU reset to take effect
 * @param remapFailed a remap failed: the memory can no longer protect itself
 * @param retiredPagesSingleBit pages retired after multiple single-bit ECC errors
 * @param retiredPagesDoubleBit pages retired after a double-bit ECC error
 * @param retiredPagesPending a retirement waits for the next driver reload
 * @param pcieReplays PCIe replays since the driver was loaded (link-level retransmissions)
 * @param nvlinks the GPU's NVLink links in link order
 */
record GpuFaults(
    Long remappedRowsCorrectable,
    Long remappedRowsUncorrectable,
    Boolean remapPending,
    Boolean remapFailed,
    Long retiredPagesSingleBit,
    Long retiredPagesDoubleBit,
    Boolean retiredPagesPending,
    Long pcieReplays,
    List<NvLink> nvlinks) {

  /** Nothing reported. */
  public static final GpuFaults NONE = new GpuFaults(null, null, null, null, null, null, null, null, List.of());

  public GpuFaults {
    nvlinks = List.copyOf(nvlinks);
  }

  /**
   * One NVLink link: its state and its data-link error counters (null where the driver does not
   * count them).
   *
   * @param link the link number
   * @param active whether the link is up
   * @param replayErrors data-link transmit replays
   * @param recoveryErrors data-link transmit recoveries
   * @param crcFlitErrors flow-control digits received with a CRC error
   * @param crcDataErrors data received with a CRC error
   */
  public record NvLink(
      int link, boolean active, Long replayErrors, Long recoveryErrors, Long crcFlitErrors, Long crcDataErrors) {}
}
