package dev.gputop.agent.top;

import dev.gputop.inference.export.Unavailable;
import java.util.Locale;

/**
 * How the terminal views write a snapshot's values in a table cell, one rule for {@code top}'s
 * screen and the {@code demo} command's table: counts whole, ratios as whole percentages, rates to
 * a given number of decimals, latencies in ms below one second and in s above, and for a value
 * that is not available either the view's placeholder or the snapshot's short reason for it.
 * Each rule takes a value read into {@link SnapshotView}, which both views read the snapshot into.
 * Stateless.
 */
public final class Cells {

  /** What the short N/A reasons mean; both views print it under their table. */
  public static final String KEY = "N/E not exported by the engine · IDLE no requests in the window"
      + " · WAIT under two scrapes yet · DOWN scrape failed · ≈ approximate mean TTFT";

  private Cells() {}

  /** The short form of a reason of {@code inference[].unavailable} (N/E, IDLE, WAIT, DOWN); null for none. */
  public static String reasonCode(String reason) {
    switch (reason == null ? "" : reason) {
      case Unavailable.NOT_EXPORTED:
        return "N/E";
      case Unavailable.NO_REQUESTS:
        return "IDLE";
      case Unavailable.STARTING:
        return "WAIT";
      case Unavailable.DOWN:
        return "DOWN";
      default:
        return null;
    }
  }

  /**
   * {@code shown}, or where it is the view's placeholder {@code na} the short form of the
   * snapshot's {@code reason} for it ({@link #reasonCode}); {@code na} itself without a reason.
   */
  public static String why(String reason, String shown, String na) {
    String code = na.equals(shown) ? reasonCode(reason) : null;
    return code == null ? shown : code;
  }

  /** A count rounded to a whole number, or {@code na} when the value is not available (null or not finite). */
  public static String count(Double v, String na) {
    return absent(v) ? na : Long.toString(Math.round(v));
  }

  /** A 0–1 ratio as a whole percentage ({@code 97%}), or {@code na}. */
  public static String percent(Double v, String na) {
    return absent(v) ? na : String.format(Locale.ROOT, "%.0f%%", v * 100);
  }

  /** A rate with {@code decimals} decimals, or {@code na}. */
  public static String rate(Double v, int decimals, String na) {
    return absent(v) ? na : String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  /** Seconds as {@code 0.4ms}, {@code 312ms}, {@code 1.84s}, {@code 125s}, or {@code na}. */
  public static String seconds(Double v, String na) {
    if (absent(v)) {
      return na;
    }
    double s = v;
    if (s < 0.01) {
      return String.format(Locale.ROOT, "%.1fms", s * 1000);
    }
    if (s < 0.9995) {
      return String.format(Locale.ROOT, "%.0fms", s * 1000);
    }
    if (s < 99.995) {
      return String.format(Locale.ROOT, "%.2fs", s);
    }
    return String.format(Locale.ROOT, "%.0fs", s);
  }

  /** Whether a value is not available: null, or not finite. */
  static boolean absent(Double v) {
    return v == null || !Double.isFinite(v);
  }
}
