package dev.gputop.nvml;

import java.util.Map;
import java.util.Set;

/**
 * The Xid codes that mean the GPU or its memory needs attention: the ones the {@code gpu_xid}
 * alert fires for, each with why (docs/nvml.md, "Xid events", from NVIDIA's Xid catalog and the
 * A100/H100 memory error management guide). Other Xids (13, 31, 43, 45, ...) are usually the
 * application's fault and are counted but do not alert. Immutable.
 */
final class XidCodes {

  private XidCodes() {}

  /** Critical Xid code to what it means, in words an operator can act on. */
  public static final Map<Long, String> CRITICAL = Map.ofEntries(
      Map.entry(48L, "double-bit ECC error (uncorrectable memory error)"),
      Map.entry(63L, "row remapping recorded: a reset is needed for it to take effect"),
      Map.entry(64L, "row remapping failed: the memory can no longer protect itself"),
      Map.entry(74L, "NVLink error"),
      Map.entry(79L, "GPU has fallen off the bus"),
      Map.entry(92L, "high single-bit ECC error rate"),
      Map.entry(94L, "contained uncorrectable ECC error"),
      Map.entry(95L, "uncontained uncorrectable ECC error: reset the GPU"),
      Map.entry(119L, "GSP RPC timeout"),
      Map.entry(120L, "GSP error"),
      Map.entry(154L, "GPU recovery action changed (reset or reboot required)"));

  /** The critical codes, for exporting their counters from 0. */
  public static final Set<Long> CRITICAL_CODES = CRITICAL.keySet();

  /** Whether the code is one the {@code gpu_xid} alert fires for. */
  public static boolean isCritical(long xid) {
    return CRITICAL.containsKey(xid);
  }

  /** What the code means, or null for one not in the critical list. */
  public static String describe(long xid) {
    return CRITICAL.get(xid);
  }
}
