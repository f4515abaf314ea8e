package dev.gputop.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContributionTest {

  private record Gpu(int index, Integer migIndex, Double utilization, Long memoryUsedBytes, Double powerWatts,
      Integer temperatureCelsius) implements GpuReport {}

  @Test
  void copiesWhatItIsGivenAndKeepsTheSectionsInOrder() {
    List<GpuReport> gpus = new ArrayList<>(List.of(new Gpu(0, null, 0.5, 1L, 300.0, 40)));
    Map<String, Object> further = new LinkedHashMap<>();
    further.put("zeta", 1);
    further.put("alpha", 2);
    Contribution c = new Contribution(gpus, List.of(), List.of(new Alert("gpu_failed", null, "GPU 0 failed")), null, further);
    gpus.clear();
    further.clear();

    assertThat(c.gpus()).extracting(GpuReport::index).containsExactly(0);
    assertThat(c.furtherSections().keySet()).containsExactly("zeta", "alpha");
    assertThat(c.alerts()).containsExactly(new Alert("gpu_failed", null, "GPU 0 failed"));
    assertThat(c.overview()).isNull();
    assertThat(Contribution.ofGpus(List.of(new Gpu(1, 2, null, null, null, null)), List.of()).servers()).isEmpty();
  }

  @Test
  void furtherSectionsCanNotTakeTheDocumentsOwnFieldsOrBeNull() {
    for (String name : Contribution.FIXED_SECTIONS) {
      assertThatThrownBy(() -> new Contribution(List.of(), List.of(), List.of(), null, Map.of(name, 1)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + name + "'");
    }
    Map<String, Object> withNull = new LinkedHashMap<>();
    withNull.put("discovery", null);
    assertThatThrownBy(() -> new Contribution(List.of(), List.of(), List.of(), null, withNull))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("discovery");
    assertThat(Contribution.FIXED_SECTIONS)
        .containsExactlyInAnyOrder("timestamp", "gpus", "inference", "overview", "alerts", "health");
  }

  @Test
  void servingOverviewNoneHasEveryValueNullAndNoSlo() {
    assertThat(ServingOverview.NONE).isEqualTo(new ServingOverview(null, null, null, null, null, null, Map.of()));
    assertThat(ServingOverview.NONE.goodRequestsPerSecond()).isEmpty();
  }
}
