package dev.gputop.inference.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.receiver.HealthStatus;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InferenceSnapshotTest {

  /**
   * A snapshot whose list and map components each hold a marker of their own, so that a component
   * that took another's value would show; the others are the empty snapshot's.
   */
  private static InferenceSnapshot marked() throws Exception {
    RecordComponent[] components = InferenceSnapshot.class.getRecordComponents();
    InferenceSnapshot empty = InferenceSnapshot.empty();
    Object[] values = new Object[components.length];
    Class<?>[] types = new Class<?>[components.length];
    for (int i = 0; i < components.length; i++) {
      types[i] = components[i].getType();
      if (types[i] == List.class) {
        values[i] = List.of("list " + components[i].getName());
      } else if (types[i] == Map.class) {
        values[i] = Map.of("map " + components[i].getName(), i);
      } else {
        values[i] = components[i].getAccessor().invoke(empty);
      }
    }
    Constructor<InferenceSnapshot> canonical = InferenceSnapshot.class.getDeclaredConstructor(types);
    return canonical.newInstance(values);
  }

  @Test
  void withHealth_keepsEveryOtherComponent_andTakesTheNewHealth() throws Exception {
    InferenceSnapshot last = marked();
    HealthStatus failed = HealthStatus.unhealthy(List.of("internal error in the inference receiver: boom"));
    InferenceSnapshot kept = last.withHealth(failed);
    assertThat(kept.health()).isEqualTo(failed);
    for (RecordComponent c : InferenceSnapshot.class.getRecordComponents()) {
      if (!c.getName().equals("health")) {
        assertThat(c.getAccessor().invoke(kept)).as(c.getName()).isEqualTo(c.getAccessor().invoke(last));
      }
    }
    assertThat(last.health()).isNotEqualTo(failed);
  }
}
