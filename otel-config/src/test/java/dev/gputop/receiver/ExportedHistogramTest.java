package dev.gputop.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.common.Attributes;
import org.junit.jupiter.api.Test;

class ExportedHistogramTest {

  private static final Attributes SERVER = Attributes.builder().put("server", "a").build();

  private static ExportedHistogram of(double[] bounds, long[] counts) {
    return new ExportedHistogram("h", "H", "s", SERVER, 1, 2, bounds, counts, 0.7);
  }

  @Test
  void arraysAreCopiedInAndOut_andTheListsReadThemInPlace() {
    double[] bounds = {0.1, 1.0};
    long[] counts = {3, 4, 5};
    ExportedHistogram h = of(bounds, counts);
    bounds[0] = 9;
    counts[0] = 9;
    assertThat(h.boundaries()).containsExactly(0.1, 1.0);
    h.counts()[1] = 9;
    assertThat(h.counts()).containsExactly(3, 4, 5);
    assertThat(h.count()).isEqualTo(12);
    assertThat(h.boundaryList()).containsExactly(0.1, 1.0).isSameAs(h.boundaryList());
    assertThat(h.countList()).containsExactly(3L, 4L, 5L).isSameAs(h.countList());
    assertThatThrownBy(() -> h.countList().set(0, 1L)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> h.boundaryList().remove(0)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void hasValidBoundaries_whenFiniteAndStrictlyIncreasing_asTheSdkRequires() {
    assertThat(of(new double[] {}, new long[] {1}).hasValidBoundaries()).isTrue();
    assertThat(of(new double[] {0.1, 0.5, 2.0}, new long[] {1, 1, 1, 1}).hasValidBoundaries()).isTrue();
    assertThat(of(new double[] {0.5, 0.1}, new long[] {1, 1, 1}).hasValidBoundaries()).isFalse();
    assertThat(of(new double[] {0.5, 0.5}, new long[] {1, 1, 1}).hasValidBoundaries()).isFalse();
    assertThat(of(new double[] {Double.NEGATIVE_INFINITY, 0.5}, new long[] {1, 1, 1}).hasValidBoundaries()).isFalse();
    assertThat(of(new double[] {0.1, Double.POSITIVE_INFINITY}, new long[] {1, 1, 1}).hasValidBoundaries()).isFalse();
  }

  @Test
  void equalsAndHashCode_byValue() {
    ExportedHistogram h = of(new double[] {0.1}, new long[] {1, 2});
    assertThat(h).isEqualTo(of(new double[] {0.1}, new long[] {1, 2}))
        .hasSameHashCodeAs(of(new double[] {0.1}, new long[] {1, 2}))
        .isNotEqualTo(of(new double[] {0.1}, new long[] {1, 3}))
        .isNotEqualTo(of(new double[] {0.2}, new long[] {1, 2}));
    assertThat(h.toString()).contains("boundaries=[0.1]", "counts=[1, 2]");
  }

  @Test
  void countsNeedOneMoreEntryThanBoundaries() {
    assertThatThrownBy(() -> of(new double[] {0.1}, new long[] {1}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("counts must have one more entry than boundaries: 1 vs 1");
  }
}
