package dev.gputop.inference.engine;

import java.util.List;
import java.util.Objects;

/**
 * A series that is the total of its siblings: among the series of a metric that differ only in
 * {@code label}, the one whose {@code label} is {@code value} (an empty value also matches a
 * series without the label, as in Prometheus) already counts all the others. When it is there,
 * only it is read and its siblings are skipped; when it is not, the siblings are summed. Either
 * way nothing is counted twice. SGLang's scheduler gauges are the example: with priority
 * scheduling every gauge is written under {@code priority=""} (the total) beside one series per
 * priority. Immutable.
 *
 * @param label the label that tells the total from its parts
 * @param value the label's value on the total row
 * @param metrics the canonical source names the rule applies to; empty: every source of the
 *     engine
 */
public record TotalRowRule(String label, String value, List<String> metrics) {

  public TotalRowRule {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(value, "value");
    metrics = List.copyOf(metrics);
  }

  /** Whether the rule applies to the source with this canonical name. */
  public boolean appliesTo(String sourceName) {
    return metrics.isEmpty() || metrics.contains(sourceName);
  }

  /** A readable form, e.g. {@code priority="" is the total of its siblings}. */
  public String describe() {
    return label + "=\"" + value + "\" is the total of its siblings"
        + (metrics.isEmpty() ? "" : " in " + String.join(", ", metrics));
  }
}
